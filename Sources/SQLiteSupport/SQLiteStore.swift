import MediationKit

/// A store's open connection and its compiled statements, behind one lock: what the reward ledger
/// and the replay guard each keep, and the one place their SQLite failures become messages, thrown
/// as the store's own public error type (`Failure`).
///
/// The lock makes every bind-step-reset sequence, and the `changes` read after it, one unit, so an
/// instance is safe to use from any thread. Each statement holds the connection, so when the store
/// goes the statements are finalized first and the connection is closed last.
package final class SQLiteStore<Statements, Failure: Error>: Sendable {
  /// What the file is, for messages.
  package let kind: SQLiteStoreKind
  /// The file, as given (or `:memory:`).
  package let path: String
  private let state: Locked<State>
  private let failure: @Sendable (SQLiteStoreError) -> Failure

  private struct State {
    let connection: SQLiteConnection
    let statements: Statements
  }

  /// Opens the store at `path` (see ``SQLiteStoreKind/open(path:createIfMissing:busyTimeoutMilliseconds:)``)
  /// and compiles its statements with `prepare`; `failure` makes the store's error from a store error.
  package init(
    kind: SQLiteStoreKind, path: String, createIfMissing: Bool, busyTimeoutMilliseconds: Int32,
    failure: @escaping @Sendable (SQLiteStoreError) -> Failure,
    prepare: (SQLiteConnection) throws(SQLiteFailure) -> Statements
  ) throws(Failure) {
    self.kind = kind
    self.path = path
    self.failure = failure
    let connection: SQLiteConnection
    do {
      connection = try kind.open(
        path: path, createIfMissing: createIfMissing, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    } catch {
      throw failure(error)
    }
    do {
      state = Locked(State(connection: connection, statements: try prepare(connection)))
    } catch {
      throw failure(
        SQLiteStoreError(
          "\(path) does not have the \(kind.name)'s tables (prepare: \(error.message)); "
            + "expected a \(kind.name) of schema version \(kind.version)",
          isStorageFailure: error.isStorageFailure))
    }
  }

  /// Runs `body` under the lock; a SQLite failure names `operation`, SQLite's message and the file.
  @discardableResult
  package func locked<Result>(
    _ operation: String, _ body: (Statements) throws(SQLiteFailure) -> Result
  ) throws(Failure) -> Result {
    try withState(operation) { (state) throws(SQLiteFailure) in try body(state.statements) }
  }

  /// The connection's `PRAGMA` `name`, for tests.
  package func pragma(_ name: SQLitePragma) throws(Failure) -> String {
    try withState("read PRAGMA \(name.rawValue)") { (state) throws(SQLiteFailure) in
      try state.connection.pragma(name)
    }
  }

  private func withState<Result>(
    _ operation: String, _ body: (State) throws(SQLiteFailure) -> Result
  ) throws(Failure) -> Result {
    do {
      return try state.withLock { (state) throws(SQLiteFailure) in try body(state) }
    } catch {
      throw failure(kind.error(error, operation, path: path))
    }
  }
}
