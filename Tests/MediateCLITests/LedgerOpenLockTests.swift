import Foundation
import MediationKit
import RewardLedgerSQLite
import SQLiteSupport
import Testing

@testable import MediateCLI

/// A `--ledger` another process keeps write-locked while `mediate` opens it is a storage failure:
/// exit 74 (try again later) with a message naming the file, not 65 (not a ledger); nothing is
/// recorded, and once the lock is gone the same command works on the unchanged file.
@Suite("mediate --ledger: a ledger locked at open")
struct LedgerOpenLockTests {
  /// The cycle (which records rewards, creating the ledger if needed) and `rewards` (which reads).
  static let commands: [[String]] = [
    ["--zone", "level_complete", "--networks", "empower", "--ledger"], ["rewards", "--ledger"],
  ]

  @Test(arguments: commands)
  func aLedgerWriteLockedByAnotherHolderExits74NamingTheFile(command: [String]) throws {
    try RunLedgerTests.withLedgerPath { path in
      do { _ = try SQLiteRewardLedger(path: path) }  // a ledger, closed again
      let other = try SQLiteConnection(unchecked: path)
      try other.execute("BEGIN IMMEDIATE")  // another writer holds the write lock past the timeout
      // The busy timeout shortened from the ledger's 5 s, as OpenLockTests does.
      let locked = CommandContext.$ledgerBusyTimeoutMilliseconds.withValue(20) { mediate(command + [path]) }
      try other.execute("ROLLBACK")
      #expect(locked.code == 74, "\(locked.err)")
      #expect(locked.out.isEmpty, "nothing ran before the ledger opened")
      #expect(locked.err.count == 1)
      let message = try #require(locked.err.first)
      #expect(message.hasPrefix("Error: cannot open the reward ledger \(path) ("), "\(message)")
      #expect(message.contains("database is locked"), "\(message)")
      #expect(message.contains("nothing was read or recorded"), "\(message)")
      #expect(
        try SQLiteRewardLedger(path: path, createIfMissing: false).entries(includeAcknowledged: true).isEmpty)
      // Once the lock is gone, the same command opens the same file.
      let free = CommandContext.$ledgerBusyTimeoutMilliseconds.withValue(20) { mediate(command + [path]) }
      #expect(free.code == 0, "\(free.err)")
    }
  }
}
