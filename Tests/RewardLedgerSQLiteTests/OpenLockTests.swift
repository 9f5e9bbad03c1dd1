import Foundation
import MediationKit
import SQLiteSupport
import StoreTestSupport
import Testing

@testable import RewardLedgerSQLite

/// A ledger another process keeps write-locked while it opens is a storage failure (it may work
/// when tried again), not a file that is not a ledger.
@Suite("SQLiteRewardLedger: a lock at open")
struct OpenLockTests {
  @Test func aWriteLockHeldPastTheBusyTimeoutWhileOpeningIsAStorageFailure() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("ledger.sqlite")
    do { _ = try SQLiteRewardLedger(path: path) }
    // Another writer holds the write lock past the timeout.
    let error = try whileAnotherWriterHoldsTheLock(on: path) {
      try #require(throws: LedgerError.self) {
        _ = try SQLiteRewardLedger(
          path: path, createIfMissing: false, busyTimeoutMilliseconds: 20, wallClockMilliseconds: { 0 })
      }
    }
    #expect(error.isStorageFailure)
    #expect(error.message.contains("database is locked"))
    // Once the lock is gone the same file opens, unchanged.
    let ledger = try SQLiteRewardLedger(
      path: path, createIfMissing: false, busyTimeoutMilliseconds: 20, wallClockMilliseconds: { 0 })
    #expect(try ledger.pending().isEmpty)
  }

  @Test func aFileThatIsNotALedgerIsNotAStorageFailure() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("not-a-ledger.sqlite")
    try Data("this is not a database, just text long enough to be read as a header".utf8)
      .write(to: URL(fileURLWithPath: path))
    let error = try #require(throws: LedgerError.self) { _ = try SQLiteRewardLedger(path: path) }
    #expect(!error.isStorageFailure)
  }
}
