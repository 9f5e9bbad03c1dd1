import Dispatch
import Foundation
import MediationKit
import Testing

@testable import RewardLedgerSQLite

/// Several connections opening one new file at once — as several processes would (SQLite locks
/// connections against each other exactly as it locks processes): every one of them must open it,
/// none may mistake a schema being created for another application's database.
@Suite("SQLite stores: many first opens of one new file at once")
struct ConcurrentCreationTests {
  static let rounds = 150
  static let openers = 12

  /// Opens `openers` stores on a fresh file at once, `rounds` times; returns every failure.
  static func failures(_ open: @escaping @Sendable (String) throws -> Void) throws -> [String] {
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

  @Test func everyReplayGuardOpensANewFileCreatedConcurrently() throws {
    let failures = try Self.failures { path in _ = try SQLiteReplayGuard(path: path) }
    #expect(failures == [])
  }

  @Test func everyLedgerOpensANewFileCreatedConcurrently() throws {
    let failures = try Self.failures { path in _ = try SQLiteRewardLedger(path: path) }
    #expect(failures == [])
  }
}
