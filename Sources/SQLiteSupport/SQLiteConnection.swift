#if canImport(SQLite3)
  import SQLite3
#else
  import CSQLite3
#endif

/// `SQLITE_TRANSIENT`, defined as sqlite3.h defines it (`((sqlite3_destructor_type)-1)`): it tells
/// `sqlite3_bind_text` to copy the bytes before it returns. Swift imports neither the macro (a cast)
/// from the Linux headers nor from the Apple SDK's `SQLite3` module, so both get it from here.
private var sqliteTransient: sqlite3_destructor_type {
  unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// One SQLite connection: open, prepare, and SQLite's errors with their messages.
///
/// Not thread-safe on its own: each store (`SQLiteRewardLedger`, `SQLiteReplayGuard`) keeps it,
/// with its statements, behind one lock, so a bind-step-reset sequence and the `changes` read after
/// it are never interleaved. Stores open it through ``SQLiteStoreKind/open(path:createIfMissing:busyTimeoutMilliseconds:)``.
package final class SQLiteConnection {
  /// The file as given (or `:memory:`), for messages.
  package let path: String
  private let handle: OpaquePointer

  /// Opens `path` with `flags` (`SQLITE_OPEN_*`).
  package init(path: String, flags: Int32) throws(SQLiteFailure) {
    self.path = path
    var handle: OpaquePointer?
    let code = sqlite3_open_v2(path, &handle, flags, nil)
    guard code == SQLITE_OK, let handle else {
      // Even a failed open usually returns a handle that carries the message; it must be closed.
      let message =
        handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
      sqlite3_close_v2(handle)
      throw SQLiteFailure(code: code, message: message)
    }
    self.handle = handle
    sqlite3_extended_result_codes(handle, 1)
  }

  /// Opens `path` read-write, creating it if missing, with none of a store's checks or settings:
  /// another tool's (or process's) view of a file, which tests use to hold a lock or to change a
  /// file behind a store's back.
  package convenience init(unchecked path: String) throws(SQLiteFailure) {
    try self.init(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
  }

  deinit {
    // Every statement holds its connection, so all of them are finalized by now.
    sqlite3_close_v2(handle)
  }

  /// Waits up to `milliseconds` for a lock another connection (or process) holds.
  package func setBusyTimeout(milliseconds: Int32) {
    sqlite3_busy_timeout(handle, milliseconds)
  }

  /// Whether the main database was opened read-only (SQLite silently does so for a file the
  /// process may not write).
  package var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

  /// Rows changed by the last INSERT, UPDATE or DELETE on this connection.
  package var changes: Int { Int(sqlite3_changes(handle)) }

  /// The connection's `PRAGMA` `name`, for tests.
  package func pragma(_ name: SQLitePragma) throws(SQLiteFailure) -> String {
    try execute("PRAGMA \(name.rawValue)").first ?? ""
  }

  /// Compiles one SQL statement. Values are never part of `sql`: they are bound to its `?N`
  /// parameters.
  package func prepare(_ sql: String) throws(SQLiteFailure) -> SQLiteStatement {
    var statement: OpaquePointer?
    let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
    guard code == SQLITE_OK, let statement else {
      sqlite3_finalize(statement)
      throw failure(code)
    }
    return SQLiteStatement(handle: statement, connection: self)
  }

  /// Runs one statement that takes no values (pragmas, schema) and returns its rows' first
  /// column as text.
  @discardableResult
  package func execute(_ sql: String) throws(SQLiteFailure) -> [String] {
    try prepare(sql).query([]) { $0.text(0) }
  }

  /// The connection's current error, for a call that returned `code`.
  package func failure(_ code: Int32) -> SQLiteFailure {
    SQLiteFailure(code: code, message: String(cString: sqlite3_errmsg(handle)))
  }
}

/// A SQLite result code with the connection's message (`sqlite3_errmsg`).
package struct SQLiteFailure: Error, CustomStringConvertible {
  package var code: Int32
  package var message: String

  /// The primary result code (the low byte of an extended one).
  package var primaryCode: Int32 { code & 0xff }

  /// Whether the storage failed rather than the file's content: a lock held past the busy
  /// timeout, a full disk, an I/O error, no memory, a file that could not be opened or written —
  /// what may work when tried again. False for a file that is not a database, is corrupt, or does
  /// not have what the statement needs (SQLite's generic error, a schema or constraint error).
  package var isStorageFailure: Bool {
    [
      SQLITE_BUSY, SQLITE_LOCKED, SQLITE_NOMEM, SQLITE_READONLY, SQLITE_INTERRUPT, SQLITE_IOERR,
      SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_PROTOCOL,
    ].contains(primaryCode)
  }

  /// Whether a constraint (e.g. a primary key) refused the statement.
  package var isConstraintViolation: Bool { primaryCode == SQLITE_CONSTRAINT }

  package var description: String { "\(message) (SQLite error \(code))" }

}

/// The settings ``SQLiteConnection/pragma(_:)`` reads: a fixed list, so no SQL is built from a
/// caller's text.
package enum SQLitePragma: String {
  case journalMode = "journal_mode"
  case synchronous
  case busyTimeout = "busy_timeout"
  case userVersion = "user_version"
}

/// A value bound to a statement parameter.
package enum SQLiteValue {
  case text(String)
  case integer(Int64)
  case real(Double)
  case null
}

/// One compiled statement, reused: each run resets it and binds fresh values.
package final class SQLiteStatement {
  private let handle: OpaquePointer
  // Strong: the connection outlives its statements, so it is closed after they are finalized.
  private let connection: SQLiteConnection

  fileprivate init(handle: OpaquePointer, connection: SQLiteConnection) {
    self.handle = handle
    self.connection = connection
  }

  deinit {
    sqlite3_finalize(handle)
  }

  /// Runs the statement with `values` bound to `?1`, `?2`, … and returns one value per row.
  package func query<Row>(_ values: [SQLiteValue], row: (SQLiteRow) -> Row) throws(SQLiteFailure) -> [Row] {
    try bind(values)
    defer { sqlite3_reset(handle) }
    var rows: [Row] = []
    while true {
      let code = sqlite3_step(handle)
      switch code {
      case SQLITE_ROW: rows.append(row(SQLiteRow(handle: handle)))
      case SQLITE_DONE: return rows
      default: throw connection.failure(code)
      }
    }
  }

  /// Runs a statement that returns no rows (INSERT, UPDATE, DELETE) and returns how many rows it
  /// changed.
  @discardableResult
  package func run(_ values: [SQLiteValue]) throws(SQLiteFailure) -> Int {
    _ = try query(values) { _ in () }
    return connection.changes
  }

  private func bind(_ values: [SQLiteValue]) throws(SQLiteFailure) {
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
    for (offset, value) in values.enumerated() {
      let index = Int32(offset + 1)
      let code: Int32
      switch value {
      case .text(let text):
        // Explicit length, so a text with a NUL inside is stored whole; the trailing 0 keeps the
        // pointer valid for the empty string.
        let bytes = Array(text.utf8) + [0]
        code = bytes.withUnsafeBufferPointer { buffer in
          buffer.withMemoryRebound(to: CChar.self) {
            sqlite3_bind_text(handle, index, $0.baseAddress, Int32(bytes.count - 1), sqliteTransient)
          }
        }
      case .integer(let integer): code = sqlite3_bind_int64(handle, index, integer)
      case .real(let real): code = sqlite3_bind_double(handle, index, real)
      case .null: code = sqlite3_bind_null(handle, index)
      }
      guard code == SQLITE_OK else { throw connection.failure(code) }
    }
  }
}

/// The current row of a running statement.
package struct SQLiteRow {
  fileprivate let handle: OpaquePointer

  /// Whether column `index` is NULL.
  package func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

  /// Column `index` as text (empty for NULL).
  package func text(_ index: Int32) -> String {
    guard let bytes = sqlite3_column_text(handle, index) else { return "" }
    let count = Int(sqlite3_column_bytes(handle, index))
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
  }

  /// Column `index` as a 64-bit integer.
  package func integer(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

  /// Column `index` as a double.
  package func real(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }
}
