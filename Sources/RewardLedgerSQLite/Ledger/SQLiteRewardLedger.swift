import CSQLite3
import Foundation
import MediationKit

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
/// unchanged. ``LedgerEntry/reward``'s ``Reward/isRedelivery`` is not stored: entries come back
/// with `false`, and the mediator marks the ones it redelivers.
public final class SQLiteRewardLedger: RewardLedger {
  /// How long an operation waits for a lock another connection holds before it fails.
  public static let busyTimeoutMilliseconds: Int32 = 5_000

  /// The file, as given to ``init(path:createIfMissing:wallClockMilliseconds:)`` (or `:memory:`).
  public let path: String

  private let wallClock: @Sendable () -> Int64
  private let store: Locked<Store>

  /// The connection and its compiled statements. Each statement holds the connection, so when
  /// the ledger goes, the statements are finalized first and the connection is closed last.
  private struct Store {
    let connection: SQLiteConnection
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
  public init(
    path: String, createIfMissing: Bool = true,
    wallClockMilliseconds: @escaping @Sendable () -> Int64 = MediatorOptions.systemWallClock
  ) throws(LedgerError) {
    self.path = path
    self.wallClock = wallClockMilliseconds
    let inMemory = path == ":memory:"
    if !inMemory { try Self.checkPath(path, createIfMissing: createIfMissing) }
    var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX
    if createIfMissing { flags |= SQLITE_OPEN_CREATE }
    let connection: SQLiteConnection
    do {
      connection = try SQLiteConnection(path: path, flags: flags)
    } catch {
      throw LedgerError(
        "\(error.message); expected a readable and writable reward ledger file in an existing directory")
    }
    try Self.configure(connection, inMemory: inMemory)
    self.store = Locked(try Self.prepareStatements(connection))
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
      .integer(Int64(entry.deliveries)),
    ]
    try store.withLock { (store) throws(LedgerError) in
      do throws(SQLiteFailure) {
        try store.insert.run(values)
      } catch {
        if error.primaryCode == SQLITE_CONSTRAINT,
          let existing = try? store.selectOne.query([.text(id)], row: Self.decode).first
        {
          let state =
            existing.acknowledgedAtMilliseconds.map { "acknowledged at \($0) ms" }
            ?? "pending since \(existing.entry.recordedAtMilliseconds) ms"
          throw LedgerError(
            "record: transaction id \(id) is already in the reward ledger at \(path) (\(state)); "
              + "expected a new transaction id")
        }
        throw Self.ledgerError(error, "record transaction id \(id)", path: path)
      }
    }
  }

  /// The pending rewards, oldest first (by recording time, then transaction id).
  public func pending() throws(LedgerError) -> [LedgerEntry] {
    try locked("read the pending rewards") { (store) throws(SQLiteFailure) in
      try store.selectPending.query([], row: Self.decode).map(\.entry)
    }
  }

  /// Counts one more delivery of a pending reward; an unknown or acknowledged id is left alone.
  public func markRedelivered(transactionID: String) throws(LedgerError) {
    try locked("count a redelivery of transaction id \(transactionID)") { (store) throws(SQLiteFailure) in
      try store.markRedelivered.run([.text(transactionID)])
    }
  }

  /// Marks a pending reward acknowledged now (by the wall clock), keeping its row as history.
  ///
  /// - Returns: `true` if it was pending; `false` if it was already acknowledged or is unknown.
  @discardableResult
  public func acknowledge(transactionID: String) throws(LedgerError) -> Bool {
    let now = wallClock()
    return try locked("acknowledge transaction id \(transactionID)") { (store) throws(SQLiteFailure) in
      try store.acknowledge.run([.text(transactionID), .integer(now)]) == 1
    }
  }

  // MARK: Tools

  /// Every reward in the file, oldest first (by recording time, then transaction id).
  ///
  /// - Parameter includeAcknowledged: Whether to include the acknowledged ones kept as history;
  ///   `false` gives the pending ones, as ``pending()`` does.
  public func entries(includeAcknowledged: Bool) throws(LedgerError) -> [LedgerRecord] {
    try locked("read the rewards") { (store) throws(SQLiteFailure) in
      try (includeAcknowledged ? store.selectAll : store.selectPending).query([], row: Self.decode)
    }
  }

  /// The reward with `transactionID`, pending or acknowledged; `nil` if the ledger has none.
  public func entry(transactionID: String) throws(LedgerError) -> LedgerRecord? {
    try locked("read transaction id \(transactionID)") { (store) throws(SQLiteFailure) in
      try store.selectOne.query([.text(transactionID)], row: Self.decode).first
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
    return try locked("prune acknowledged rewards") { (store) throws(SQLiteFailure) in
      try store.prune.run([.integer(overflow ? Int64.min : cutoff)])
    }
  }

  // MARK: Internals

  /// The connection's `PRAGMA` `name` (e.g. `journal_mode`, `synchronous`), for tests.
  func pragma(_ name: Pragma) throws(LedgerError) -> String {
    try locked("read PRAGMA \(name.rawValue)") { (store) throws(SQLiteFailure) in
      try store.connection.execute("PRAGMA \(name.rawValue)").first ?? ""
    }
  }

  /// The settings ``pragma(_:)`` reads: a fixed list, so no SQL is built from a caller's text.
  enum Pragma: String {
    case journalMode = "journal_mode"
    case synchronous
    case busyTimeout = "busy_timeout"
    case userVersion = "user_version"
  }

  @discardableResult
  private func locked<Result>(
    _ operation: String, _ body: (Store) throws(SQLiteFailure) -> Result
  ) throws(LedgerError) -> Result {
    do {
      return try store.withLock { (store) throws(SQLiteFailure) in try body(store) }
    } catch {
      throw Self.ledgerError(error, operation, path: path)
    }
  }

  private static func decode(_ row: SQLiteRow) -> LedgerRecord {
    let networkReward =
      row.isNull(5) ? nil : NetworkReward(type: row.text(5), amount: row.real(6))
    let reward = Reward(
      type: row.text(3), amount: Int(truncatingIfNeeded: row.integer(4)), transactionID: row.text(0),
      network: NetworkID(row.text(2)), networkReward: networkReward)
    let entry = LedgerEntry(
      reward: reward, zoneID: row.text(1), recordedAtMilliseconds: row.integer(7),
      deliveries: Int(truncatingIfNeeded: row.integer(8)))
    return LedgerRecord(entry: entry, acknowledgedAtMilliseconds: row.isNull(9) ? nil : row.integer(9))
  }

  private static func ledgerError(_ failure: SQLiteFailure, _ operation: String, path: String) -> LedgerError
  {
    if failure.primaryCode == SQLITE_NOTADB {
      return LedgerError(
        "\(path) is not a SQLite database (\(operation): \(failure.message)); "
          + "expected a reward ledger, or a path where a new one can be created")
    }
    return failure.ledgerError(operation, path: path)
  }

  /// What can be told from the file system alone, said plainly before SQLite is asked.
  private static func checkPath(_ path: String, createIfMissing: Bool) throws(LedgerError) {
    guard !path.isEmpty else {
      throw LedgerError("the reward ledger path is empty; expected a file path")
    }
    let files = FileManager.default
    var isDirectory: ObjCBool = false
    if files.fileExists(atPath: path, isDirectory: &isDirectory) {
      if isDirectory.boolValue {
        throw LedgerError(
          "\(path) is a directory; expected a reward ledger file, or a path where one can be created")
      }
      if !files.isWritableFile(atPath: path) {
        throw LedgerError(
          "\(path) is not writable by this process; expected a reward ledger it can write "
            + "(rewards are recorded in it)")
      }
      return
    }
    guard createIfMissing else {
      throw LedgerError("no ledger at \(path); expected an existing reward ledger file")
    }
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
    guard files.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
      throw LedgerError(
        "cannot create the reward ledger at \(path): the directory \(directory) does not exist; "
          + "expected an existing directory")
    }
  }

  /// Busy timeout, write access, schema version, WAL, FULL sync, and the schema if it is new.
  private static func configure(_ connection: SQLiteConnection, inMemory: Bool) throws(LedgerError) {
    let path = connection.path
    @discardableResult
    func step<Result>(_ operation: String, _ body: () throws(SQLiteFailure) -> Result) throws(LedgerError)
      -> Result
    {
      do {
        return try body()
      } catch {
        throw ledgerError(error, operation, path: path)
      }
    }
    connection.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
    if connection.isReadOnly {
      throw LedgerError(
        "\(path) could only be opened read-only; expected a reward ledger this process can write")
    }
    // Checked before anything is written: a file this code must refuse is left exactly as it was.
    try checkSchema(
      connection,
      version: try step("read the schema version") { () throws(SQLiteFailure) in
        try schemaVersion(connection)
      })
    if !inMemory {
      let mode = try step("switch to WAL mode") { () throws(SQLiteFailure) in
        try connection.execute("PRAGMA journal_mode = WAL").first ?? ""
      }
      guard mode.lowercased() == "wal" else {
        throw LedgerError(
          "cannot use WAL mode for the reward ledger at \(path) (journal mode stays '\(mode)'); "
            + "expected a local file system that supports WAL's shared memory")
      }
    }
    try step("set synchronous=FULL") { () throws(SQLiteFailure) in
      try connection.execute("PRAGMA synchronous = FULL")
    }
    // BEGIN IMMEDIATE takes the write lock first, so two processes creating the schema at once
    // do it one after the other, and the second finds it done.
    try step("begin the schema transaction") { () throws(SQLiteFailure) in
      try connection.execute("BEGIN IMMEDIATE")
    }
    do {
      let version = try step("read the schema version") { () throws(SQLiteFailure) in
        try schemaVersion(connection)
      }
      try checkSchema(connection, version: version)
      if version == 0 {
        try step("create the schema") { () throws(SQLiteFailure) in
          for statement in LedgerSchema.create { try connection.execute(statement) }
        }
      }
      try step("commit the schema") { () throws(SQLiteFailure) in try connection.execute("COMMIT") }
    } catch {
      _ = try? connection.execute("ROLLBACK")
      throw error
    }
  }

  private static func schemaVersion(_ connection: SQLiteConnection) throws(SQLiteFailure) -> Int64 {
    try connection.prepare("PRAGMA user_version").query([]) { $0.integer(0) }.first ?? 0
  }

  /// Refuses a newer schema, and a database with tables but no ledger schema version.
  private static func checkSchema(_ connection: SQLiteConnection, version: Int64) throws(LedgerError) {
    let path = connection.path
    if version > LedgerSchema.version {
      throw LedgerError(
        "the reward ledger at \(path) has schema version \(version), newer than this MediationKit "
          + "reads; expected version \(LedgerSchema.version) or lower (use a newer MediationKit or another file)"
      )
    }
    guard version == 0 else { return }
    let tables: [String]
    do {
      tables = try connection.prepare(LedgerSchema.tableNames).query([]) { $0.text(0) }
    } catch {
      throw ledgerError(error, "list the tables", path: path)
    }
    if !tables.isEmpty {
      throw LedgerError(
        "\(path) is a SQLite database but not a reward ledger (tables: \(tables.joined(separator: ", ")); "
          + "no ledger schema version); expected a reward ledger, or a path where a new one can be created")
    }
  }

  private static func prepareStatements(_ connection: SQLiteConnection) throws(LedgerError) -> Store {
    do {
      return Store(
        connection: connection, insert: try connection.prepare(LedgerSchema.insert),
        selectPending: try connection.prepare(LedgerSchema.selectPending),
        selectAll: try connection.prepare(LedgerSchema.selectAll),
        selectOne: try connection.prepare(LedgerSchema.selectOne),
        markRedelivered: try connection.prepare(LedgerSchema.markRedelivered),
        acknowledge: try connection.prepare(LedgerSchema.acknowledge),
        prune: try connection.prepare(LedgerSchema.pruneAcknowledged))
    } catch {
      throw LedgerError(
        "\(connection.path) does not have the reward ledger's tables (prepare: \(error.message)); "
          + "expected a reward ledger of schema version \(LedgerSchema.version)")
    }
  }
}
