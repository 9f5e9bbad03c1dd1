import CLibPQ
import Foundation
import MediationKit
import RewardCallbacks

/// A ``ReplayGuard`` in a PostgreSQL table, for a publisher whose reward endpoint runs on several
/// servers: every server opens a guard on the same database, and a callback accepted by one is a
/// replay on all of them.
///
/// ## Claims
/// A claim is one statement, `INSERT … ON CONFLICT (network, id) DO NOTHING`, committed on its
/// own: PostgreSQL's unique index decides, so of any number of servers, processes or threads
/// claiming one id at once exactly one gets `true`. When ``claim(_:network:)`` returns `true` the
/// row is committed — durable as far as the server's `synchronous_commit` (on by default) and
/// replication settings promise. Ids are kept per network, as in `SQLiteReplayGuard`.
///
/// ## Failures
/// Every failure — no connection, the server restarting, a statement that runs past
/// `statementTimeoutMilliseconds` (e.g. waiting on another session's lock), a full disk — throws a
/// ``ReplayGuardError`` with `isRetryable` true: the verifiers reject the callback with
/// ``CallbackRejection/Reason/storageFailure``, never as accepted and never as `replayed`, and the
/// network's retry is accepted once the database answers. A timed-out or failed statement committed
/// nothing. When a connection turns out to be lost (the server restarted since it was last used),
/// the guard drops its idle connections, connects again and repeats the claim once with the same
/// claim token, so a first attempt that did commit before the connection died is recognised as
/// this claim's own (`true`), not as a replay.
///
/// ## Threading
/// libpq is blocking: a claim blocks its calling thread for one round trip to the server, at most
/// about `statementTimeoutMilliseconds` (plus a reconnection when the server restarted), and a
/// caller that finds every connection lent waits for one, up to the same timeout. At most
/// `maximumConnections` threads are inside libpq at once. Call the verifiers from threads your
/// server owns (a `DispatchQueue`, a thread pool for blocking work), not directly from Swift
/// concurrency tasks: a task blocked here holds one of the cooperative pool's few threads (one per
/// core). From async code, hop to such a queue first (e.g. `withCheckedContinuation` around
/// `queue.async`).
///
/// ## Retention
/// As for `SQLiteReplayGuard`: ``pruneClaims(olderThanMilliseconds:)`` forgets claims older than
/// an age of at least ``minimumRetentionMilliseconds``; a pruned id replayed later is accepted again.
public final class PostgresReplayGuard: ReplayGuard {
  /// The table the guard keeps its claims in unless told otherwise.
  public static let defaultTable = "mediationkit_claimed_ids"
  /// How long a statement may run, by default, before it is cancelled and the claim fails.
  public static let defaultStatementTimeoutMilliseconds: Int32 = 5_000
  /// How many connections a guard keeps open at most, by default.
  public static let defaultMaximumConnections = 8
  /// The least age ``pruneClaims(olderThanMilliseconds:)`` accepts: one day.
  public static let minimumRetentionMilliseconds = ReplayGuardRetention.minimumMilliseconds

  /// The database, for messages: host, port, database name and user (never the password).
  public let database: String
  /// The table of claims.
  public let table: String

  private let conninfo: String
  private let statementTimeoutMilliseconds: Int32
  private let wallClock: @Sendable () -> Int64
  private let pool: PostgresConnectionPool

  /// Connects to the database at `url`, creating the claims table if it does not exist.
  ///
  /// - Parameters:
  ///   - url: A libpq connection URL (`postgres://user:password@host:port/database?…`) or
  ///     `key=value` string.
  ///   - table: The table of claims: a lower-case SQL identifier (letters, digits, `_`).
  ///   - maximumConnections: How many connections the guard opens at most (at least 1).
  ///   - statementTimeoutMilliseconds: How long a statement (a claim waiting on another session's
  ///     lock, say) may run before it is cancelled and the claim fails; it also bounds the wait for
  ///     a free connection and, rounded up to seconds, for connecting.
  ///   - wallClockMilliseconds: The clock that stamps claims and measures
  ///     ``pruneClaims(olderThanMilliseconds:)``'s age (injected in tests).
  /// - Throws: ``ReplayGuardError``: retryable when the database cannot be reached or fails;
  ///   not retryable for a URL libpq cannot read, a bad table name or limit, or a table of that
  ///   name that is not a replay guard's.
  public init(
    url: String, table: String = PostgresReplayGuard.defaultTable,
    maximumConnections: Int = PostgresReplayGuard.defaultMaximumConnections,
    statementTimeoutMilliseconds: Int32 = PostgresReplayGuard.defaultStatementTimeoutMilliseconds,
    wallClockMilliseconds: @escaping @Sendable () -> Int64 = MediatorOptions.systemWallClock
  ) throws(ReplayGuardError) {
    database = try Self.describe(url)
    guard table.utf8.count <= 63, table.first.map({ $0 == "_" || ("a"..."z").contains($0) }) == true,
      table.allSatisfy({ $0 == "_" || ("a"..."z").contains($0) || ("0"..."9").contains($0) })
    else {
      throw ReplayGuardError(
        "the replay guard table '\(table)' is not a lower-case SQL identifier; expected letters a-z, digits "
          + "and '_', starting with a letter or '_', at most 63 bytes", isRetryable: false)
    }
    guard maximumConnections >= 1, statementTimeoutMilliseconds >= 1 else {
      throw ReplayGuardError(
        "maximumConnections \(maximumConnections) and statementTimeoutMilliseconds "
          + "\(statementTimeoutMilliseconds); expected both at least 1", isRetryable: false)
    }
    self.table = table
    self.conninfo = url
    self.statementTimeoutMilliseconds = statementTimeoutMilliseconds
    self.wallClock = wallClockMilliseconds
    pool = PostgresConnectionPool(capacity: maximumConnections)
    // Opens the first connection now, so a database that cannot be reached, or a table that is
    // not a replay guard's, is said here rather than at the first claim.
    try withConnection("open") { (_, _) throws(PostgresFailure) in }
  }

  // MARK: ReplayGuard

  /// Records `id` in `network`'s namespace, stamped with the wall clock, and returns true if this
  /// call recorded it (committed when it returns); false if it was already there.
  ///
  /// - Throws: ``ReplayGuardError`` (retryable) when the database fails or times out; nothing was
  ///   recorded.
  public func claim(_ id: String, network: CallbackNetwork) throws(ReplayGuardError) -> Bool {
    try claim(id, namespace: network.rawValue)
  }

  /// Records `id` in the unnamed namespace and returns true the first time; false after, and false
  /// when the database fails (fail closed: use ``claim(_:network:)`` to tell the two apart).
  public func claim(_ id: String) -> Bool {
    (try? claim(id, namespace: "")) ?? false
  }

  // MARK: Tools

  /// When `id` was claimed in `network`'s namespace, in milliseconds since 1970 by the wall clock;
  /// `nil` if it was not (or was pruned).
  public func claimedAtMilliseconds(_ id: String, network: CallbackNetwork) throws(ReplayGuardError)
    -> Int64?
  {
    try Self.checkText(id)
    return try withConnection("read the claim of \(network.rawValue) id \(id)") {
      (connection, _) throws(PostgresFailure) in
      try connection.executePrepared(Statement.claimedAt, [network.rawValue, id]).rows.first?.first??.int64
    }
  }

  /// How many ids the guard holds, over every namespace.
  public func count() throws(ReplayGuardError) -> Int {
    try withConnection("count the claims") { (connection, _) throws(PostgresFailure) in
      Int(try connection.executePrepared(Statement.count, []).rows.first?.first??.int64 ?? 0)
    }
  }

  /// Deletes the ids claimed more than `olderThanMilliseconds` ago (by the wall clock); read the
  /// type's *Retention* section before choosing the age.
  ///
  /// - Returns: How many ids were deleted.
  /// - Throws: ``ReplayGuardError`` for an age under ``minimumRetentionMilliseconds``, or if the
  ///   database fails.
  @discardableResult
  public func pruneClaims(olderThanMilliseconds age: Int64) throws(ReplayGuardError) -> Int {
    let cutoff = try ReplayGuardRetention.cutoff(now: wallClock(), age: age)
    return try withConnection("prune the claims") { (connection, _) throws(PostgresFailure) in
      try connection.executePrepared(Statement.prune, [String(cutoff)]).affectedRows
    }
  }

  /// Drops the table of claims (the benchmark's scratch tables).
  package func dropTable() throws(ReplayGuardError) {
    _ = try withConnection("drop the table \(table)") { (connection, _) throws(PostgresFailure) in
      _ = try connection.execute("DROP TABLE IF EXISTS \(table)")
    }
  }

  // MARK: Internals

  /// The statements each connection prepares, by name.
  private enum Statement {
    static let claim = "mk_claim"
    static let tokenOf = "mk_token_of"
    static let claimedAt = "mk_claimed_at"
    static let count = "mk_count"
    static let prune = "mk_prune"
  }

  /// The statements, over ``table`` — the one name put into SQL text, checked to be a plain
  /// identifier; every value is a `$N` parameter.
  private var statements: [(name: String, sql: String)] {
    [
      (
        Statement.claim,
        "INSERT INTO \(table) (network, id, claimed_at_ms, claim_token) VALUES ($1, $2, $3, $4) "
          + "ON CONFLICT (network, id) DO NOTHING"
      ),
      (Statement.tokenOf, "SELECT claim_token FROM \(table) WHERE network = $1 AND id = $2"),
      (Statement.claimedAt, "SELECT claimed_at_ms FROM \(table) WHERE network = $1 AND id = $2"),
      (Statement.count, "SELECT count(*) FROM \(table)"),
      (Statement.prune, "DELETE FROM \(table) WHERE claimed_at_ms < $1"),
    ]
  }

  private func claim(_ id: String, namespace: String) throws(ReplayGuardError) -> Bool {
    try Self.checkText(id)
    let now = String(wallClock())
    // Tells this claim's own row from another's if the claim has to be repeated on a new
    // connection (the first attempt may have committed before the connection was lost).
    let token = UUID().uuidString
    return try withConnection("claim") { (connection, isRepeat) throws(PostgresFailure) in
      let inserted =
        try connection.executePrepared(Statement.claim, [namespace, id, now, token]).affectedRows == 1
      guard !inserted, isRepeat else { return inserted }
      let owner = try connection.executePrepared(Statement.tokenOf, [namespace, id]).rows.first?.first ?? nil
      return owner == token
    }
  }

  /// Runs `body` on a pooled connection (opening one if needed). If the connection turns out to be
  /// lost, the idle ones are dropped too and `body` runs once more on a new connection, told so.
  private func withConnection<Result>(
    _ operation: String, _ body: (PostgresConnection, _ isRepeat: Bool) throws(PostgresFailure) -> Result
  ) throws(ReplayGuardError) -> Result {
    var isRepeat = false
    while true {
      let deadline = Date() + Double(statementTimeoutMilliseconds) / 1000
      guard let loan = pool.borrow(until: deadline) else {
        throw ReplayGuardError(
          "\(operation) failed on the replay guard at \(database): all \(pool.capacity) connections stayed "
            + "busy for \(statementTimeoutMilliseconds) ms; expected one to come free (raise maximumConnections?)"
        )
      }
      let connection: PostgresConnection
      do {
        switch loan {
        case .idle(let idle): connection = idle
        case .openNew: connection = try connect()
        }
      } catch {
        pool.drop(dropIdle: false)
        throw self.error(error, "connect (to \(operation))")
      }
      do {
        let result = try body(connection, isRepeat)
        pool.giveBack(connection)
        return result
      } catch {
        guard connection.isBroken || error.connectionLost else {
          pool.giveBack(connection)
          throw self.error(error, operation)
        }
        pool.drop(dropIdle: true)
        guard !isRepeat else { throw self.error(error, operation) }
        isRepeat = true
      }
    }
  }

  /// A new connection with the statement timeout set, the table and its index created if missing
  /// — under a transaction-scoped advisory lock, so two servers starting at once do it one after
  /// the other — and the statements prepared, which fails for a table of that name that is not a
  /// replay guard's. The DDL runs only when the table is missing: `CREATE INDEX` waits for every
  /// open transaction writing to the table, which would make connecting as slow as the slowest
  /// claim.
  private func connect() throws(PostgresFailure) -> PostgresConnection {
    let connection = try PostgresConnection(
      conninfo: conninfo, connectTimeoutSeconds: (Int(statementTimeoutMilliseconds) + 999) / 1000,
      tcpUserTimeoutMilliseconds: Int(statementTimeoutMilliseconds))
    try connection.execute("SET statement_timeout = \(statementTimeoutMilliseconds)")
    let exists = try connection.execute("SELECT to_regclass($1) IS NOT NULL", [table]).rows.first?.first
    if exists != "t" {
      let create = [
        "BEGIN",
        "SELECT pg_advisory_xact_lock(hashtext('mediationkit replay guard schema'))",
        """
        CREATE TABLE IF NOT EXISTS \(table) (
          network text NOT NULL,
          id text NOT NULL,
          claimed_at_ms bigint NOT NULL,
          claim_token text NOT NULL,
          PRIMARY KEY (network, id)
        )
        """,
        "CREATE INDEX IF NOT EXISTS \(table)_by_age ON \(table) (claimed_at_ms)",
        "COMMIT",
      ]
      for statement in create { try connection.execute(statement) }
    }
    for statement in statements { try connection.prepare(statement.name, statement.sql) }
    return connection
  }

  private func error(_ failure: PostgresFailure, _ action: String) -> ReplayGuardError {
    guard failure.isStorageFailure else {
      return ReplayGuardError(
        "\(action) failed on the replay guard at \(database): \(failure); expected the table \(table) to be "
          + "a replay guard's (network, id, claimed_at_ms, claim_token) or absent", isRetryable: false)
    }
    return ReplayGuardError("\(action) failed on the replay guard at \(database): \(failure)")
  }

  /// PostgreSQL text cannot hold a NUL byte; an id with one is refused rather than cut short.
  private static func checkText(_ id: String) throws(ReplayGuardError) {
    guard id.utf8.contains(0) else { return }
    throw ReplayGuardError(
      "the id \(id.debugDescription) contains a NUL byte, which a PostgreSQL text column cannot hold; "
        + "expected an id without one", isRetryable: false)
  }

  /// `url` as messages show it (host, port, database, user; never the password), or an error if
  /// libpq cannot read it.
  private static func describe(_ url: String) throws(ReplayGuardError) -> String {
    var message: UnsafeMutablePointer<CChar>?
    guard let options = PQconninfoParse(url, &message) else {
      let reason = message.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) }
      PQfreemem(message)
      throw ReplayGuardError(
        "the PostgreSQL URL is not valid (\(reason ?? "libpq cannot read it")); expected "
          + "postgres://user@host:port/database or key=value pairs", isRetryable: false)
    }
    defer { PQconninfoFree(options) }
    var fields: [String: String] = [:]
    var option = options
    while let keyword = option.pointee.keyword {
      if let value = option.pointee.val { fields[String(cString: keyword)] = String(cString: value) }
      option += 1
    }
    let host = fields["host"] ?? fields["hostaddr"] ?? "the default socket"
    let port = fields["port"].map { ":\($0)" } ?? ""
    let name = fields["dbname"] ?? fields["user"] ?? "the default database"
    let user = fields["user"].map { " as \($0)" } ?? ""
    return "postgres \(host)\(port)/\(name)\(user)"
  }
}

extension String {
  fileprivate var int64: Int64? { Int64(self) }
}
