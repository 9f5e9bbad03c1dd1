import ReplayGuardPostgres
import ReplayGuardSQLite
import RewardCallbacks

extension CommandContext {
  /// The replay guard of a command that verifies callbacks: the SQLite file of `--seen FILE`
  /// (created if missing), or the PostgreSQL database of `--seen postgres://…` that several servers
  /// share, so a replay is refused across runs; without `--seen`, a fresh in-memory guard, which
  /// refuses replays within this run only. `--seen-timeout MS` bounds how long it waits for a lock
  /// (SQLite) or a statement (PostgreSQL).
  ///
  /// - Throws: exit 66 when `path` is a directory; exit 65 when the file is not a replay guard and
  ///   never will be (not a SQLite database, another application's database or a reward ledger, a
  ///   newer schema version, not writable, in a directory that does not exist); exit 74 when its
  ///   storage fails while opening (a lock held past the timeout, a full disk, an I/O error, a
  ///   database that cannot be reached):
  ///   nothing was recorded, and the same callback may be verified again once the storage works.
  func openReplayGuard() throws(CLIError) -> any ReplayGuard {
    let timeout = try seenTimeoutMilliseconds()
    guard let path = arguments.value(.seen) else {
      if arguments.value(.seenTimeout) != nil {
        throw .usage("--seen-timeout needs --seen, the replay guard it bounds", .verifyCallback)
      }
      return InMemoryReplayGuard()
    }
    if path.hasPrefix("postgres://") || path.hasPrefix("postgresql://") {
      do {
        // One verification, one connection.
        return try PostgresReplayGuard(
          url: path, maximumConnections: 1, statementTimeoutMilliseconds: timeout)
      } catch {
        throw .replayGuard(error)
      }
    }
    try Self.checkStoreFile(path, createIfMissing: true, shortName: "replay guard", name: "replay guard")
    do {
      return try SQLiteReplayGuard(path: path, busyTimeoutMilliseconds: timeout)
    } catch {
      throw .replayGuard(error)
    }
  }

  /// `--seen-timeout MS`, or the guard's default (5 s).
  private func seenTimeoutMilliseconds() throws(CLIError) -> Int32 {
    guard let text = arguments.value(.seenTimeout) else {
      return SQLiteReplayGuard.defaultBusyTimeoutMilliseconds
    }
    guard let value = Int32(text), value > 0, value <= 3_600_000 else {
      throw .usage(
        "invalid value '\(text)' for --seen-timeout: expected milliseconds, a whole number from 1 to 3600000",
        .verifyCallback)
    }
    return value
  }
}

extension CLIError {
  /// A replay guard that could not be opened: exit 74 when its storage failed (retry the callback
  /// later), 65 when it is not a replay guard (fix the `--seen` argument).
  static func replayGuard(_ error: ReplayGuardError) -> CLIError {
    guard error.isRetryable else { return .data("--seen: \(error.message)") }
    return CLIError(
      kind: .io,
      message:
        "--seen: \(error.message); the callback was not checked and nothing was recorded, so it can be "
        + "verified again once the replay guard's storage works")
  }
}
