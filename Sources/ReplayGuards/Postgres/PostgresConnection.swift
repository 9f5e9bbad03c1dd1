import CLibPQ
import Foundation

/// One libpq connection: connect, run a statement (plain or prepared), and PostgreSQL's errors
/// with their SQLSTATE. Every value is sent as a parameter (`$1`, `$2`, …), never inside the SQL.
///
/// Not thread-safe on its own, and every call blocks the calling thread for a round trip to the
/// server: ``PostgresReplayGuard`` lends each connection to one caller at a time.
package final class PostgresConnection {
  private let handle: OpaquePointer

  /// Connects with `conninfo` (a `postgres://` URL or `key=value` pairs), giving up after
  /// `connectTimeoutSeconds` (libpq's `connect_timeout`; at least 2) and, over TCP, when the server
  /// stops acknowledging for `tcpUserTimeoutMilliseconds`.
  package init(conninfo: String, connectTimeoutSeconds: Int, tcpUserTimeoutMilliseconds: Int)
    throws(PostgresFailure)
  {
    let keywords = ["dbname", "connect_timeout", "tcp_user_timeout", "application_name"]
    let values = [
      conninfo, "\(max(2, connectTimeoutSeconds))", "\(tcpUserTimeoutMilliseconds)", "mediationkit",
    ]
    // expand_dbname = 1: `dbname` may be a whole URL or conninfo string; the keywords after it
    // override what it says about them.
    let connection = withCStrings(keywords) { keywords in
      withCStrings(values) { values in PQconnectdbParams(keywords, values, 1) }
    }
    guard let connection else {
      throw PostgresFailure(
        sqlState: nil, message: "libpq could not allocate a connection", connectionLost: true)
    }
    guard PQstatus(connection) == CONNECTION_OK else {
      let message = Self.trimmed(PQerrorMessage(connection))
      PQfinish(connection)
      throw PostgresFailure(sqlState: nil, message: message, connectionLost: true)
    }
    // libpq prints the server's notices (e.g. "relation … already exists, skipping" from the
    // schema's CREATE … IF NOT EXISTS) to stderr by default; a library must not write to its
    // host's stderr, and errors reach the caller as PostgresFailure anyway.
    PQsetNoticeProcessor(connection, { _, _ in }, nil)
    handle = connection
  }

  deinit { PQfinish(handle) }

  /// Whether the connection is gone (the server restarted, the network failed): it must be
  /// replaced, not reused.
  package var isBroken: Bool { PQstatus(handle) != CONNECTION_OK }

  /// Runs `sql` with `parameters` bound to `$1`, `$2`, … (as text).
  @discardableResult
  package func execute(_ sql: String, _ parameters: [String] = []) throws(PostgresFailure) -> PostgresResult {
    try result(
      withCStrings(parameters) { values in
        PQexecParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0)
      })
  }

  /// Compiles `sql` once as the statement `name` of this connection.
  package func prepare(_ name: String, _ sql: String) throws(PostgresFailure) {
    try result(PQprepare(handle, name, sql, 0, nil))
  }

  /// Runs the prepared statement `name` with `parameters` bound to `$1`, `$2`, … (as text).
  package func executePrepared(_ name: String, _ parameters: [String]) throws(PostgresFailure)
    -> PostgresResult
  {
    try result(
      withCStrings(parameters) { values in
        PQexecPrepared(handle, name, Int32(parameters.count), values, nil, nil, 0)
      })
  }

  /// The rows (text, or nil for NULL) and affected-row count of `result`, or its error; clears it.
  @discardableResult
  private func result(_ result: OpaquePointer?) throws(PostgresFailure) -> PostgresResult {
    guard let result else {
      throw PostgresFailure(
        sqlState: nil, message: Self.trimmed(PQerrorMessage(handle)), connectionLost: isBroken)
    }
    defer { PQclear(result) }
    let status = PQresultStatus(result)
    guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
      let state = PQresultErrorField(result, clibpq_diag_sqlstate()).map { String(cString: $0) }
      throw PostgresFailure(
        sqlState: state, message: Self.trimmed(PQresultErrorMessage(result)), connectionLost: isBroken)
    }
    var rows: [[String?]] = []
    for row in 0..<PQntuples(result) {
      rows.append(
        (0..<PQnfields(result)).map { column in
          PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
        })
    }
    let affected = PQcmdTuples(result).map { Int(String(cString: $0)) ?? 0 } ?? 0
    return PostgresResult(rows: rows, affectedRows: affected)
  }

  /// libpq's message on one line (it spreads some over several, with tabs).
  private static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
    guard let message else { return "no message" }
    return String(cString: message).split(whereSeparator: \.isWhitespace).joined(separator: " ")
  }
}

/// What a statement returned.
package struct PostgresResult {
  /// Each row's columns as text; nil for NULL.
  package let rows: [[String?]]
  /// Rows inserted, updated or deleted (`PQcmdTuples`).
  package let affectedRows: Int
}

/// A PostgreSQL failure: the server's SQLSTATE (nil when no answer came: the connection failed)
/// and message.
package struct PostgresFailure: Error, CustomStringConvertible {
  package let sqlState: String?
  package let message: String
  /// Whether the connection is gone after this failure.
  package let connectionLost: Bool

  /// Whether the database is the problem rather than what was asked of it, so the same request
  /// may work later: no connection, or the server answered with connection exception (08),
  /// insufficient resources (53), operator intervention — a statement timeout, a shutdown (57),
  /// system error (58), lock not available (55P03), or a deadlock or serialization failure (40).
  /// Not: a syntax or undefined-object error (42), a data exception (22), bad credentials (28).
  package var isStorageFailure: Bool {
    guard let sqlState, !connectionLost else { return true }
    return ["08", "53", "57", "58", "40"].contains(String(sqlState.prefix(2))) || sqlState == "55P03"
  }

  package var description: String { sqlState.map { "\(message) (SQLSTATE \($0))" } ?? message }
}

/// Calls `body` with `strings` as a NUL-terminated C array of C strings, valid during the call.
private func withCStrings<Result>(
  _ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> Result
) -> Result {
  let copies = strings.map { strdup($0) }
  defer { copies.forEach { free($0) } }
  let pointers = copies.map { UnsafePointer($0) } + [nil]
  return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
