import Dispatch
import Foundation
import MediationKit
import SQLiteSupport

// What the tests of the SQLite stores (the reward ledger, the replay guards) share: a library
// target only test targets depend on, so no test helper is written twice.

/// A directory of its own under the system's temporary directory; `remove()` deletes it.
public struct TemporaryDirectory: Sendable {
  public let path: String

  public init() throws {
    path = NSTemporaryDirectory() + "store-test-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
  }

  public func file(_ name: String) -> String { path + "/" + name }

  public func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// A wall clock the test sets.
public final class ManualClock: Sendable {
  private let milliseconds: Locked<Int64>

  public init(_ start: Int64 = 1_800_000_000_000) { milliseconds = Locked(start) }

  public var now: Int64 {
    get { milliseconds.get() }
    set { milliseconds.set(newValue) }
  }

  public var read: @Sendable () -> Int64 { { self.milliseconds.get() } }
}

/// Runs SQL on `path` through a connection of its own, as another tool (or a newer MediationKit)
/// would, and returns the first column of each row as text.
@discardableResult
public func rawSQL(_ path: String, _ sql: String) throws -> [String] {
  try SQLiteConnection(unchecked: path).execute(sql)
}

/// Several connections opening one new file at once — as several processes would (SQLite locks
/// connections against each other exactly as it locks processes): opens `openers` stores with
/// `open` on a fresh file at once, `rounds` times, and returns every failure. Every one of them
/// must open it; none may mistake a schema being created for another application's database.
public func failuresOfConcurrentFirstOpens(
  rounds: Int = 150, openers: Int = 12, _ open: @escaping @Sendable (String) throws -> Void
) throws -> [String] {
  let failures = Locked<[String]>([])
  for round in 0..<rounds {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("store-\(round).sqlite")
    DispatchQueue.concurrentPerform(iterations: openers) { _ in
      do {
        try open(path)
      } catch {
        failures.withLock { $0.append("\(error)") }
      }
    }
  }
  return failures.withLock { $0 }
}

/// Runs `body` while another connection to `path` holds SQLite's write lock (`BEGIN IMMEDIATE`),
/// as another process writing to the file would, and releases the lock after it (a throwing `body`
/// leaves it to the connection's close).
public func whileAnotherWriterHoldsTheLock<Result>(on path: String, _ body: () throws -> Result) throws
  -> Result
{
  let other = try SQLiteConnection(unchecked: path)
  try other.execute("BEGIN IMMEDIATE")
  let result = try withExtendedLifetime(other) { try body() }
  try other.execute("ROLLBACK")
  return result
}
