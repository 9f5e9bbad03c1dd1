import MediationKit
import RewardCallbacks
import SQLiteSupport

/// A ``ReplayGuard`` in a SQLite file: the reward-callback ids a publisher's server accepted are
/// remembered across restarts and shared by every process that opens the file, so a replayed MAX
/// event id or Google transaction id is refused however long ago, and by whichever process, the
/// original was accepted (until it is pruned, see below).
///
/// ## Claims
/// A claim is one atomic statement, `INSERT … ON CONFLICT (network, id) DO NOTHING`, whose
/// changed-row count says whether this call recorded the id: of any number of threads or processes
/// claiming one id at once, exactly one gets `true`. Ids are kept per network (`max`, `google`),
/// so one network's id never blocks another's. When ``claim(_:network:)`` returns `true` the row
/// is committed and synced to disk: the file is in WAL mode with `synchronous=FULL`, like
/// `SQLiteRewardLedger`, so an id accepted is still known after a killed process or, as far as
/// SQLite and the file system can promise, a power loss.
///
/// ## Group commit
/// A sync to disk takes milliseconds, so one transaction per claim would cap a server at a few
/// hundred claims a second. Claims from concurrent callers on one instance are therefore committed
/// together: a caller alone commits at once; callers arriving while a commit is syncing queue, and
/// the next transaction carries all of them (one sync), each caller told its own claim's outcome
/// after that transaction commits. The promise above is unchanged — `true` is returned only once
/// the claim is committed and synced. If the transaction fails, every claim in it fails
/// (``ReplayGuardError``, nothing recorded). Share one instance among a server's request threads
/// to benefit: separate instances (or processes) commit separately.
///
/// ## Failures
/// When SQLite fails (a lock held longer than the busy timeout, a full disk, an I/O error),
/// ``claim(_:network:)`` throws ``ReplayGuardError`` and records nothing: the verifiers then
/// reject the callback with ``CallbackRejection/Reason/storageFailure`` (not `replayed`), and the
/// network's retry is accepted once the storage works again. The protocol's ``claim(_:)``, which
/// cannot throw, fails closed: it returns `false` (as for a replay). Opening the guard fails the
/// same way: a lock held past the busy timeout, a full disk or an I/O error while opening, creating
/// or migrating it throws a ``ReplayGuardError`` whose `isRetryable` is true (a server answers 5xx
/// and the network retries); only a file that is not a replay guard and never will be (see *Its
/// own file*), or a path that cannot be one, throws one whose `isRetryable` is false.
///
/// ## Retention
/// Each row keeps the wall-clock time of its claim; ``pruneClaims(olderThanMilliseconds:)``
/// deletes the old ones so the file does not grow for ever (a row is under 150 bytes). The networks'
/// own re-sends end within minutes — AppLovin retries a failed MAX callback up to three times, the
/// last about 60 s after the first, and a callback may be delayed by a few minutes; Google does not
/// document SSV retries — so an id can go once it is well past that window:
/// ``minimumRetentionMilliseconds`` (a day) is the least this type prunes at. But a *captured*
/// callback URL stays valid for ever (a MAX event token has no expiry, nor does a Google
/// signature), so a pruned id replayed later would be accepted again. Prune only ids older than the
/// age past which your server refuses a callback by its signed time (Google's `timestamp`, MAX's
/// `{IMPRESSION_TIMESTAMP}` in a template that has `{EVENT_TOKEN_ALL}`); a server that does not
/// check that should keep the ids (or prune at a horizon, e.g. 90 days, where it accepts the risk).
///
/// ## Its own file
/// The guard keeps a file of its own rather than a table in a reward ledger's: the ledger lives
/// with the app, the guard on the publisher's server, and the file's schema version
/// (`PRAGMA user_version`) belongs to one store. A reward ledger opened as a guard (or a guard as
/// a ledger) is refused unchanged, as are a file that is not a SQLite database, another
/// application's database and a guard with a newer schema version. Two instances, in one process
/// or in two, can share a guard file; WAL needs the `-wal` and `-shm` files next to it, so the
/// directory must be writable and on a local file system. Safe to use from any thread.
public final class SQLiteReplayGuard: ReplayGuard {
  /// How long an operation waits, by default, for a lock another connection holds before it fails.
  public static let defaultBusyTimeoutMilliseconds: Int32 = 5_000

  /// The least age ``pruneClaims(olderThanMilliseconds:)`` accepts: one day, the networks' retry
  /// window (minutes) with a wide margin. A smaller age is refused as a likely mistake (seconds
  /// given for milliseconds) that would let the networks' own re-sends through.
  public static let minimumRetentionMilliseconds: Int64 = ReplayGuardRetention.minimumMilliseconds

  /// The file, as given to ``init(path:createIfMissing:busyTimeoutMilliseconds:wallClockMilliseconds:)``
  /// (or `:memory:`).
  public let path: String

  private let wallClock: @Sendable () -> Int64
  private let store: SQLiteStore<Statements, ReplayGuardError>
  private let claims: GroupCommit<Claim, Result<Bool, ReplayGuardError>>

  /// One claim: the namespace (`max`, `google`, or `''`), the id and the wall-clock time.
  private struct Claim {
    let namespace: String
    let id: String
    let now: Int64
  }

  /// The guard's compiled statements.
  private struct Statements {
    let begin: SQLiteStatement
    let commit: SQLiteStatement
    let rollback: SQLiteStatement
    let claim: SQLiteStatement
    let claimedAt: SQLiteStatement
    let count: SQLiteStatement
    let prune: SQLiteStatement
  }

  /// Opens the replay guard at `path`, creating the file and its schema if needed.
  ///
  /// - Parameters:
  ///   - path: The database file. Its directory must exist and be writable (for the WAL files).
  ///   - createIfMissing: Whether to create a new guard when there is no file.
  ///   - busyTimeoutMilliseconds: How long a claim waits for another connection's lock before it
  ///     fails (default ``defaultBusyTimeoutMilliseconds``).
  ///   - wallClockMilliseconds: The clock that stamps claims and measures
  ///     ``pruneClaims(olderThanMilliseconds:)``'s age (injected in tests).
  /// - Throws: ``ReplayGuardError`` naming the path, what is wrong and what was expected: an empty
  ///   path, a directory, a missing directory or file, a file that is not writable, not a SQLite
  ///   database or not a replay guard (e.g. a reward ledger), a guard with a newer schema version,
  ///   a file system without WAL support.
  public init(
    path: String, createIfMissing: Bool = true,
    busyTimeoutMilliseconds: Int32 = SQLiteReplayGuard.defaultBusyTimeoutMilliseconds,
    wallClockMilliseconds: @escaping @Sendable () -> Int64 = MediatorOptions.systemWallClock
  ) throws(ReplayGuardError) {
    self.path = path
    self.wallClock = wallClockMilliseconds
    store = try SQLiteStore(
      kind: ReplayGuardSchema.kind, path: path, createIfMissing: createIfMissing,
      busyTimeoutMilliseconds: busyTimeoutMilliseconds,
      failure: { ReplayGuardError($0.message, isRetryable: $0.isStorageFailure) }
    ) { (connection) throws(SQLiteFailure) in
      Statements(
        begin: try connection.prepare("BEGIN IMMEDIATE"),
        commit: try connection.prepare("COMMIT"),
        rollback: try connection.prepare("ROLLBACK"),
        claim: try connection.prepare(ReplayGuardSchema.claim),
        claimedAt: try connection.prepare(ReplayGuardSchema.claimedAt),
        count: try connection.prepare(ReplayGuardSchema.count),
        prune: try connection.prepare(ReplayGuardSchema.prune))
    }
    claims = GroupCommit { [store] batch in Self.commit(batch, in: store) }
  }

  /// A guard in memory (`:memory:`): the SQL layer without a file, for tests.
  public static func inMemory(
    wallClockMilliseconds: @escaping @Sendable () -> Int64 = MediatorOptions.systemWallClock
  ) throws(ReplayGuardError) -> SQLiteReplayGuard {
    try SQLiteReplayGuard(path: ":memory:", wallClockMilliseconds: wallClockMilliseconds)
  }

  // MARK: ReplayGuard

  /// Records `id` in `network`'s namespace, stamped with the wall clock, and returns true if this
  /// call recorded it (committed and synced when it returns); false if it was already there.
  ///
  /// - Throws: ``ReplayGuardError`` when SQLite fails; nothing was recorded.
  public func claim(_ id: String, network: CallbackNetwork) throws(ReplayGuardError) -> Bool {
    try claim(id, namespace: network.rawValue)
  }

  /// Records `id` in the unnamed namespace (apart from every network's) and returns true the first
  /// time; false after, and false when SQLite fails (fail closed: use ``claim(_:network:)`` to
  /// tell a storage failure from a replay).
  public func claim(_ id: String) -> Bool {
    (try? claim(id, namespace: "")) ?? false
  }

  // MARK: Tools

  /// When `id` was claimed in `network`'s namespace, in milliseconds since 1970 by the wall clock;
  /// `nil` if it was not (or was pruned).
  public func claimedAtMilliseconds(_ id: String, network: CallbackNetwork) throws(ReplayGuardError)
    -> Int64?
  {
    try store.locked("read the claim of \(network.rawValue) id \(id)") { (statements) throws(SQLiteFailure) in
      try statements.claimedAt.query([.text(network.rawValue), .text(id)]) { $0.integer(0) }.first
    }
  }

  /// How many ids the guard holds, over every namespace.
  public func count() throws(ReplayGuardError) -> Int {
    try store.locked("count the claims") { (statements) throws(SQLiteFailure) in
      Int(try statements.count.query([]) { $0.integer(0) }.first ?? 0)
    }
  }

  /// Deletes the ids claimed more than `olderThanMilliseconds` ago (by the wall clock), so the file
  /// does not grow for ever. A pruned id is forgotten: a callback carrying it is accepted again, so
  /// read the type's *Retention* section before choosing the age.
  ///
  /// - Returns: How many ids were deleted.
  /// - Throws: ``ReplayGuardError`` for an age under ``minimumRetentionMilliseconds``, or if SQLite
  ///   fails.
  @discardableResult
  public func pruneClaims(olderThanMilliseconds age: Int64) throws(ReplayGuardError) -> Int {
    let cutoff = try ReplayGuardRetention.cutoff(now: wallClock(), age: age)
    return try store.locked("prune the claims") { (statements) throws(SQLiteFailure) in
      try statements.prune.run([.integer(cutoff)])
    }
  }

  // MARK: Internals

  /// The connection's `PRAGMA` `name` (e.g. `journal_mode`, `synchronous`), for tests.
  func pragma(_ name: SQLitePragma) throws(ReplayGuardError) -> String {
    try store.pragma(name)
  }

  private func claim(_ id: String, namespace: String) throws(ReplayGuardError) -> Bool {
    try claims.submit(Claim(namespace: namespace, id: id, now: wallClock())).get()
  }

  /// Claims `batch` in one transaction (one sync to disk): each claim's own outcome — true if it
  /// recorded its id, false if the id was there (or claimed earlier in the batch). If anything
  /// fails, the transaction is rolled back and every claim of the batch fails: nothing is recorded.
  private static func commit(
    _ batch: [Claim], in store: SQLiteStore<Statements, ReplayGuardError>
  ) -> [Result<Bool, ReplayGuardError>] {
    do throws(ReplayGuardError) {
      let claimed = try store.locked("claim") { (statements) throws(SQLiteFailure) -> [Bool] in
        try statements.begin.run([])
        do throws(SQLiteFailure) {
          var claimed: [Bool] = []
          for claim in batch {
            claimed.append(
              try statements.claim.run([.text(claim.namespace), .text(claim.id), .integer(claim.now)]) == 1)
          }
          try statements.commit.run([])
          return claimed
        } catch {
          _ = try? statements.rollback.run([])
          throw error
        }
      }
      return claimed.map { Result.success($0) }
    } catch {
      return batch.map { _ in .failure(error) }
    }
  }
}
