import ReplayGuardSQLite
import RewardCallbacks

extension CommandContext {
  /// The replay guard of a command that verifies callbacks: the SQLite file of `--seen FILE`
  /// (created if missing), so a replay is refused across runs; without `--seen`, a fresh in-memory
  /// guard, which refuses replays within this run only.
  ///
  /// - Throws: exit 66 when `path` is a directory; exit 65 when the file is not a replay guard (not
  ///   a SQLite database, another application's database or a reward ledger, a newer schema
  ///   version, not writable, in a directory that does not exist).
  func openReplayGuard() throws(CLIError) -> any ReplayGuard {
    guard let path = arguments.value(.seen) else { return InMemoryReplayGuard() }
    try Self.checkStoreFile(path, createIfMissing: true, shortName: "replay guard", name: "replay guard")
    do {
      return try SQLiteReplayGuard(path: path)
    } catch {
      throw .data("--seen: \(error.message)")
    }
  }
}
