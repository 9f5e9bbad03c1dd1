import Foundation
import MediationKit
import SQLiteSupport

/// A ``RewardLedger`` in a SQLite file: a recorded reward survives a killed process and, as far
/// as SQLite and the file system can promise, a power loss.
///
/// ## Durability
/// The file is in WAL mode (`PRAGMA journal_mode=WAL`, checked at open) with
/// `PRAGMA synchronous=FULL`: every ``record(_:)`` is one INSERT in its own transaction, and the
/// commit syncs the write-ahead log to disk before `record` returns. `synchronous=NORMAL`, WAL's
/// usual setting, would skip that sync: still safe when only the process dies, but the last
/// rewards could roll back on a power loss or OS crash. A reward ledger records a handful of rows
/// per session, so one sync per reward costs nothing that matters, and FULL is the choice.
///
/// ## Sharing
/// Safe to use from any thread (one connection behind a lock). Two instances, in one process or
/// in two, can share a file: each waits up to ``busyTimeoutMilliseconds`` for the other's lock.
/// WAL needs the `-wal` and `-shm` files next to the database, so the directory must be writable
/// and on a local file system.
///
/// ## History
/// An acknowledged reward keeps its row, stamped with the acknowledgment time, so acknowledging
/// it again returns `false` and recording its transaction id again is refused. Call
/// ``pruneAcknowledged(olderThanMilliseconds:)`` now and then (e.g. on start, with 30 days) so the
/// file does not grow for ever; after pruning, that protection is gone for the pruned ids.
///
/// The schema version is kept in `PRAGMA user_version`; a file with a newer version is refused
/// unchanged, and one with an older version is upgraded when opened (version 1 files gain the
/// `experiment_arms` column; their rewards read with no arm). ``LedgerEntry/reward``'s ``Reward/isRedelivery`` is not stored: entries come back
/// with `false`, and the mediator marks the ones it redelivers.
public final class SQLiteRewardLedger: RewardLedger {
  /// How long an operation waits for a lock another connection holds before it fails.
  public static let busyTimeoutMilliseconds: Int32 = 5_000

  /// The file, as given to ``init(path:createIfMissing:wallClockMilliseconds:)`` (or `:memory:`).
  public let path: String

  private let wallClock: @Sendable () -> Int64
  private let store: SQLiteStore<Statements, LedgerError>

  /// The ledger's compiled statements.
  private struct Statements {
    let insert: SQLiteStatement
    let selectPending: SQLiteStatement
    let selectAll: SQLiteStatement
    let selectOne: SQLiteStatement
    let markRedelivered: SQLiteStatement
    let acknowledge: SQLiteStatement
    let prune: SQLiteStatement
  }

  /// Opens the ledger at `path`, creating the file and its schema if needed.
  ///
  /// - Parameters:
  ///   - path: The database file. Its directory must exist and be writable (for the WAL files).
  ///   - createIfMissing: Whether to create a new ledger when there is no file; `false` for tools
  ///     that only read one.
  ///   - wallClockMilliseconds: The clock that stamps acknowledgments and measures
  ///     ``pruneAcknowledged(olderThanMilliseconds:)``'s age (injected in tests).
  /// - Throws: ``LedgerError`` naming the path, what is wrong and what was expected: a directory,
  ///   a missing directory or file, a file that is not writable, not a SQLite database or not a
  ///   reward ledger, a ledger with a newer schema version, a file system without WAL support.
  ///   A lock another process holds past ``busyTimeoutMilliseconds``, a full disk or an I/O error
  ///   while opening, creating or upgrading the file throws one whose
  ///   ``LedgerError/isStorageFailure`` is true; every other failure to open one with it false.
  public convenience init(
    path: String, createIfMissing: Bool = true,
    wallClockMilliseconds: @escaping @Sendable () -> Int64 = MediatorOptions.systemWallClock
  ) throws(LedgerError) {
    try self.init(
      path: path, createIfMissing: createIfMissing, busyTimeoutMilliseconds: Self.busyTimeoutMilliseconds,
      wallClockMilliseconds: wallClockMilliseconds)
  }

  /// Opens the ledger at `path` waiting at most `busyTimeoutMilliseconds` for another
  /// connection's lock (tests pass a short one).
  package init(
    path: String, createIfMissing: Bool, busyTimeoutMilliseconds: Int32,
    wallClockMilliseconds: @escaping @Sendable () -> Int64
  ) throws(LedgerError) {
    self.path = path
    self.wallClock = wallClockMilliseconds
    store = try SQLiteStore(
      kind: LedgerSchema.kind, path: path, createIfMissing: createIfMissing,
      busyTimeoutMilliseconds: busyTimeoutMilliseconds,
      failure: { LedgerError($0.message, isStorageFailure: $0.isStorageFailure) }
    ) { (connection) throws(SQLiteFailure) in
      Statements(
        insert: try connection.prepare(LedgerSchema.insert),
        selectPending: try connection.prepare(LedgerSchema.selectPending),
        selectAll: try connection.prepare(LedgerSchema.selectAll),
        selectOne: try connection.prepare(LedgerSchema.selectOne),
        markRedelivered: try connection.prepare(LedgerSchema.markRedelivered),
        acknowledge: try connection.prepare(LedgerSchema.acknowledge),
        prune: try connection.prepare(LedgerSchema.pruneAcknowledged))
    }
  }

  /// Opens the ledger at `path` on a background queue, so the calling thread — the main thread
  /// in an app — never waits on the disk: creating the file and its schema, checking it, and
  /// waiting up to ``busyTimeoutMilliseconds`` for another connection's lock all happen there.
  /// ```swift
  /// let ledger = try await SQLiteRewardLedger.open(path: ledgerURL.path)
  /// let mediator = try Mediator(
  ///   config: config, registry: registry, scheduler: DispatchScheduler(queue: .main), ledger: ledger)
  /// ```
  /// The parameters and errors are those of ``init(path:createIfMissing:wallClockMilliseconds:)``.
  public static func open(
    path: String, createIfMissing: Bool = true,
    wallClockMilliseconds: @escaping @Sendable () -> Int64 = MediatorOptions.systemWallClock
  ) async throws(LedgerError) -> SQLiteRewardLedger {
    // A dispatch queue, not the task's executor: under Swift 6.2's nonisolated(nonsending)
    // default an async function runs on its caller's actor, which may be the main actor. The
    // ledger is handed back through a lock, a happens-before the thread sanitizer sees (it does
    // not see the one of the continuation's resume, inside the uninstrumented runtime).
    let opened = Locked<Result<SQLiteRewardLedger, LedgerError>?>(nil)
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      DispatchQueue.global(qos: .userInitiated).async {
        let result = Result { () throws(LedgerError) in
          try SQLiteRewardLedger(
            path: path, createIfMissing: createIfMissing, wallClockMilliseconds: wallClockMilliseconds)
        }
        opened.withLock { $0 = result }
        continuation.resume()
      }
    }
    guard let result = opened.withLock({ $0.take() }) else {
      preconditionFailure("the open resumed before setting its result")
    }
    return try result.get()
  }

  /// A ledger in memory (`:memory:`): the SQL layer without a file, for tests.
  public static func inMemory(
    wallClockMilliseconds: @escaping @Sendable () -> Int64 = MediatorOptions.systemWallClock
  ) throws(LedgerError) -> SQLiteRewardLedger {
    try SQLiteRewardLedger(path: ":memory:", wallClockMilliseconds: wallClockMilliseconds)
  }

  // MARK: RewardLedger

  /// Records a new pending reward; when this returns, the row is committed and synced to disk.
  ///
  /// - Throws: ``LedgerError`` if the transaction id is already in the ledger (pending or
  ///   acknowledged), or if SQLite fails.
  public func record(_ entry: LedgerEntry) throws(LedgerError) {
    let reward = entry.reward
    let id = reward.transactionID
    if let networkReward = reward.networkReward, !networkReward.amount.isFinite {
      throw LedgerError(
        "record: transaction id \(id) has a network reward amount of \(networkReward.amount); "
          + "expected a finite number")
    }
    let values: [SQLiteValue] = [
      .text(id), .text(entry.zoneID), .text(reward.network.rawValue), .text(reward.type),
      .integer(Int64(reward.amount)), reward.networkReward.map { .text($0.type) } ?? .null,
      reward.networkReward.map { .real($0.amount) } ?? .null, .integer(entry.recordedAtMilliseconds),
      .integer(Int64(entry.deliveries)), Self.encodeArms(reward.experimentArms),
    ]
    let existing = try store.locked("record transaction id \(id)") {
      (statements) throws(SQLiteFailure) -> LedgerRecord? in
      do throws(SQLiteFailure) {
        try statements.insert.run(values)
        return nil
      } catch {
        guard error.isConstraintViolation,
          let existing = try? statements.selectOne.query([.text(id)], row: Self.decode).first
        else { throw error }
        return existing
      }
    }
    if let existing {
      let state =
        existing.acknowledgedAtMilliseconds.map { "acknowledged at \($0) ms" }
        ?? "pending since \(existing.entry.recordedAtMilliseconds) ms"
      throw LedgerError(
        "record: transaction id \(id) is already in the reward ledger at \(path) (\(state)); "
          + "expected a new transaction id")
    }
  }

  /// The pending rewards, oldest first (by recording time, then transaction id).
  public func pending() throws(LedgerError) -> [LedgerEntry] {
    try store.locked("read the pending rewards") { (statements) throws(SQLiteFailure) in
      try statements.selectPending.query([], row: Self.decode).map(\.entry)
    }
  }

  /// Counts one more delivery of a pending reward; an unknown or acknowledged id is left alone.
  public func markRedelivered(transactionID: String) throws(LedgerError) {
    try store.locked("count a redelivery of transaction id \(transactionID)") {
      (statements) throws(SQLiteFailure) in
      try statements.markRedelivered.run([.text(transactionID)])
    }
  }

  /// Marks a pending reward acknowledged now (by the wall clock), keeping its row as history.
  ///
  /// - Returns: `true` if it was pending; `false` if it was already acknowledged or is unknown.
  @discardableResult
  public func acknowledge(transactionID: String) throws(LedgerError) -> Bool {
    let now = wallClock()
    return try store.locked("acknowledge transaction id \(transactionID)") {
      (statements) throws(SQLiteFailure) in
      try statements.acknowledge.run([.text(transactionID), .integer(now)]) == 1
    }
  }

  // MARK: Tools

  /// Every reward in the file, oldest first (by recording time, then transaction id).
  ///
  /// - Parameter includeAcknowledged: Whether to include the acknowledged ones kept as history;
  ///   `false` gives the pending ones, as ``pending()`` does.
  public func entries(includeAcknowledged: Bool) throws(LedgerError) -> [LedgerRecord] {
    try store.locked("read the rewards") { (statements) throws(SQLiteFailure) in
      try (includeAcknowledged ? statements.selectAll : statements.selectPending).query([], row: Self.decode)
    }
  }

  /// The reward with `transactionID`, pending or acknowledged; `nil` if the ledger has none.
  public func entry(transactionID: String) throws(LedgerError) -> LedgerRecord? {
    try store.locked("read transaction id \(transactionID)") { (statements) throws(SQLiteFailure) in
      try statements.selectOne.query([.text(transactionID)], row: Self.decode).first
    }
  }

  /// Deletes the acknowledged rewards acknowledged more than `olderThanMilliseconds` ago (by the
  /// wall clock), so the history does not grow for ever. Pending rewards are never deleted.
  ///
  /// A pruned transaction id is forgotten: recording it again is no longer refused. Keep the
  /// history longer than any id could come back (the mediator never reuses one; 30 days is ample).
  ///
  /// - Returns: How many rows were deleted.
  /// - Throws: ``LedgerError`` for a negative age, or if SQLite fails.
  @discardableResult
  public func pruneAcknowledged(olderThanMilliseconds age: Int64) throws(LedgerError) -> Int {
    guard age >= 0 else {
      throw LedgerError("pruneAcknowledged: an age of \(age) ms; expected 0 or more milliseconds")
    }
    let (cutoff, overflow) = wallClock().subtractingReportingOverflow(age)
    return try store.locked("prune acknowledged rewards") { (statements) throws(SQLiteFailure) in
      try statements.prune.run([.integer(overflow ? Int64.min : cutoff)])
    }
  }

  // MARK: Internals

  /// The connection's `PRAGMA` `name` (e.g. `journal_mode`, `synchronous`), for tests.
  func pragma(_ name: SQLitePragma) throws(LedgerError) -> String {
    try store.pragma(name)
  }

  /// The arms as a JSON object with sorted keys (one text per set of arms); `NULL` for none.
  static func encodeArms(_ arms: [String: String]) -> SQLiteValue {
    guard !arms.isEmpty,
      let data = try? JSONSerialization.data(withJSONObject: arms, options: [.sortedKeys]),
      let text = String(data: data, encoding: .utf8)
    else { return .null }
    return .text(text)
  }

  /// The arms from their column; text that is not a JSON object of strings (never written by
  /// this ledger) reads as none rather than making the reward unreadable.
  static func decodeArms(_ text: String) -> [String: String] {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: String] ?? [:]
  }

  private static func decode(_ row: SQLiteRow) -> LedgerRecord {
    let networkReward =
      row.isNull(5) ? nil : AdapterSignal.NetworkReward(type: row.text(5), amount: row.real(6))
    let reward = Reward(
      type: row.text(3), amount: Int(truncatingIfNeeded: row.integer(4)), transactionID: row.text(0),
      network: NetworkID(row.text(2)), networkReward: networkReward,
      experimentArms: row.isNull(10) ? [:] : decodeArms(row.text(10)))
    let entry = LedgerEntry(
      reward: reward, zoneID: row.text(1), recordedAtMilliseconds: row.integer(7),
      deliveries: Int(truncatingIfNeeded: row.integer(8)))
    return LedgerRecord(entry: entry, acknowledgedAtMilliseconds: row.isNull(9) ? nil : row.integer(9))
  }
}
