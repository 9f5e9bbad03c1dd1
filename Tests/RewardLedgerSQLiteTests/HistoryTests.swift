import Foundation
import MediationKit
import RewardLedgerSQLite
import StoreTestSupport
import Testing

@Suite("SQLiteRewardLedger history: entries and pruning")
struct HistoryTests {
  @Test func entriesListPendingOrEverythingWithAcknowledgmentTimes() throws {
    let clock = ManualClock(50_000)
    let ledger = try SQLiteRewardLedger.inMemory(wallClockMilliseconds: clock.read)
    try ledger.record(entry("a", at: 1))
    try ledger.record(entry("b", at: 2))
    try ledger.acknowledge(transactionID: "a")
    #expect(try ledger.entries(includeAcknowledged: false) == [LedgerRecord(entry: entry("b", at: 2))])
    #expect(
      try ledger.entries(includeAcknowledged: true) == [
        LedgerRecord(entry: entry("a", at: 1), acknowledgedAtMilliseconds: 50_000),
        LedgerRecord(entry: entry("b", at: 2)),
      ])
    #expect(try ledger.entry(transactionID: "a")?.isAcknowledged == true)
    #expect(try ledger.entry(transactionID: "b")?.isAcknowledged == false)
    #expect(try ledger.entry(transactionID: "zzz") == nil)
  }

  @Test func pruningDeletesOnlyOldAcknowledgedRewards() throws {
    let clock = ManualClock(1_000)
    let ledger = try SQLiteRewardLedger.inMemory(wallClockMilliseconds: clock.read)
    try ledger.record(entry("old-ack", at: 0))
    try ledger.record(entry("old-pending", at: 0))
    try ledger.record(entry("new-ack", at: 0))
    try ledger.acknowledge(transactionID: "old-ack")  // at 1000
    clock.now = 5_000
    try ledger.acknowledge(transactionID: "new-ack")  // at 5000
    clock.now = 10_000
    // Older than 6000 ms: acknowledged before 4000.
    #expect(try ledger.pruneAcknowledged(olderThanMilliseconds: 6_000) == 1)
    #expect(
      try ledger.entries(includeAcknowledged: true).map(\.entry.reward.transactionID) == [
        "new-ack", "old-pending",
      ])
    #expect(try ledger.pruneAcknowledged(olderThanMilliseconds: 6_000) == 0)
    // A pruned id is forgotten: recording it again is accepted.
    try ledger.record(entry("old-ack", at: 10_000))
    #expect(try ledger.pending().map(\.reward.transactionID) == ["old-pending", "old-ack"])
    // Age 0: every acknowledgment before now; pending rewards stay however old.
    #expect(try ledger.pruneAcknowledged(olderThanMilliseconds: 0) == 1)
    #expect(try ledger.entries(includeAcknowledged: true).count == 2)
  }

  @Test func aNegativeAgeIsRefused() throws {
    let ledger = try SQLiteRewardLedger.inMemory()
    #expect(throws: LedgerError("pruneAcknowledged: an age of -1 ms; expected 0 or more milliseconds")) {
      try ledger.pruneAcknowledged(olderThanMilliseconds: -1)
    }
    #expect(try ledger.pruneAcknowledged(olderThanMilliseconds: .max) == 0)
  }
}
