import CSQLite3
import Foundation
import MediationKit
import Testing

@testable import RewardLedgerSQLite

/// A directory of its own under the system's temporary directory; `remove()` deletes it.
struct TemporaryDirectory {
  let path: String

  init() throws {
    path = NSTemporaryDirectory() + "ledger-test-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
  }

  func file(_ name: String) -> String { path + "/" + name }

  func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// A wall clock the test sets.
final class ManualClock: Sendable {
  private let milliseconds: Locked<Int64>

  init(_ start: Int64 = 1_800_000_000_000) { milliseconds = Locked(start) }

  var now: Int64 {
    get { milliseconds.get() }
    set { milliseconds.set(newValue) }
  }

  var read: @Sendable () -> Int64 { { self.milliseconds.get() } }
}

/// A ledger entry with the fields tests vary.
func entry(
  _ id: String, at recordedAt: Int64 = 1_000, zone: String = "level_complete", network: String = "max",
  type: String = "coins", amount: Int = 100, networkReward: NetworkReward? = nil, deliveries: Int = 1
) -> LedgerEntry {
  LedgerEntry(
    reward: Reward(
      type: type, amount: amount, transactionID: id, network: NetworkID(network), networkReward: networkReward
    ),
    zoneID: zone, recordedAtMilliseconds: recordedAt, deliveries: deliveries)
}

/// Runs SQL on `path` through a connection of its own, as another tool (or a newer MediationKit)
/// would, and returns the first column of each row as text.
@discardableResult
func rawSQL(_ path: String, _ sql: String) throws -> [String] {
  try RawSQLite(path).run(sql)
}

/// A SQLite connection of the test's own, kept open as long as the test holds it: another process's
/// view of a file (e.g. holding its write lock).
final class RawSQLite {
  private var handle: OpaquePointer?

  init(_ path: String) throws {
    guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
      sqlite3_close_v2(handle)
      throw LedgerError("test: cannot open \(path)")
    }
  }

  deinit { sqlite3_close_v2(handle) }

  /// Runs one statement and returns the first column of each row as text.
  @discardableResult
  func run(_ sql: String) throws -> [String] {
    var statement: OpaquePointer?
    defer { sqlite3_finalize(statement) }
    guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
      throw LedgerError("test: cannot prepare \(sql): \(String(cString: sqlite3_errmsg(handle)))")
    }
    var rows: [String] = []
    while true {
      switch sqlite3_step(statement) {
      case SQLITE_ROW: rows.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
      case SQLITE_DONE: return rows
      default: throw LedgerError("test: \(sql) failed: \(String(cString: sqlite3_errmsg(handle)))")
      }
    }
  }
}
