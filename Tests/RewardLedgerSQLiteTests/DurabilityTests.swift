import Foundation
import MediationKit
import StoreTestSupport
import Testing

@testable import RewardLedgerSQLite

@Suite("SQLiteRewardLedger on disk")
struct DurabilityTests {
  @Test func aReopenedLedgerHasEveryRewardWithTheSameFields() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("rewards.sqlite")
    let clock = ManualClock(1_800_000_000_000)
    let kept = entry(
      "tx-kept", at: 1_700_000_000_123, zone: "daily_bonus", network: "google", type: "gems", amount: 7,
      networkReward: AdapterSignal.NetworkReward(type: "Gem", amount: 7.5))
    let credited = entry("tx-credited", at: 1_700_000_000_456)
    do {
      let ledger = try SQLiteRewardLedger(path: path, wallClockMilliseconds: clock.read)
      try ledger.record(kept)
      try ledger.record(credited)
      try ledger.markRedelivered(transactionID: "tx-kept")
      try ledger.acknowledge(transactionID: "tx-credited")
    }  // the ledger is gone: statements finalized, connection closed

    let reopened = try SQLiteRewardLedger(path: path, createIfMissing: false)
    var expected = kept
    expected.deliveries = 2
    #expect(try reopened.pending() == [expected])
    #expect(
      try reopened.entries(includeAcknowledged: true) == [
        LedgerRecord(entry: kept.with(deliveries: 2)),
        LedgerRecord(entry: credited, acknowledgedAtMilliseconds: 1_800_000_000_000),
      ])
    #expect(try !reopened.acknowledge(transactionID: "tx-credited"))
    #expect(throws: LedgerError.self) { try reopened.record(credited) }
  }

  @Test func theFileIsInWALModeWithFullSynchronousCommits() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("rewards.sqlite")
    do {
      let ledger = try SQLiteRewardLedger(path: path)
      try ledger.record(entry("tx-1"))
      #expect(try ledger.pragma(.journalMode) == "wal")
      #expect(try ledger.pragma(.synchronous) == "2")  // FULL
      #expect(try ledger.pragma(.busyTimeout) == "\(SQLiteRewardLedger.busyTimeoutMilliseconds)")
      #expect(try ledger.pragma(.userVersion) == "2")
      #expect(FileManager.default.fileExists(atPath: path + "-wal"))
      #expect(try rawSQL(path, "PRAGMA journal_mode") == ["wal"])  // as another process sees it
    }
    // WAL is persistent: the header's read and write format versions (bytes 18 and 19) are 2.
    let header = try #require(FileManager.default.contents(atPath: path)).prefix(20)
    #expect(Array(header.prefix(16)) == Array("SQLite format 3\0".utf8))
    #expect(header[18] == 2 && header[19] == 2)
  }

  @Test func twoLedgersOnOneFileSeeEachOthersWrites() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("rewards.sqlite")
    let app = try SQLiteRewardLedger(path: path)
    let tool = try SQLiteRewardLedger(path: path)
    try app.record(entry("tx-1", at: 1))
    #expect(try tool.pending().map(\.reward.transactionID) == ["tx-1"])
    try tool.record(entry("tx-2", at: 2))
    #expect(try app.pending().map(\.reward.transactionID) == ["tx-1", "tx-2"])
    #expect(try tool.acknowledge(transactionID: "tx-1"))
    #expect(try !app.acknowledge(transactionID: "tx-1"))
    #expect(throws: LedgerError.self) { try app.record(entry("tx-2", at: 3)) }
    try app.markRedelivered(transactionID: "tx-2")
    #expect(try tool.pending() == [entry("tx-2", at: 2, deliveries: 2)])
  }

  @Test func aNewFileIsCreatedOnlyWhenAsked() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("new.sqlite")
    let error = try #require(throws: LedgerError.self) {
      _ = try SQLiteRewardLedger(path: path, createIfMissing: false)
    }
    #expect(error.message == "no ledger at \(path); expected an existing reward ledger file")
    #expect(!FileManager.default.fileExists(atPath: path))
    _ = try SQLiteRewardLedger(path: path)
    #expect(FileManager.default.fileExists(atPath: path))
    #expect(try SQLiteRewardLedger(path: path, createIfMissing: false).pending() == [])
  }
}

extension LedgerEntry {
  func with(deliveries: Int) -> LedgerEntry {
    var copy = self
    copy.deliveries = deliveries
    return copy
  }
}
