import Foundation
import MediationKit
import MediationKitTesting
import RewardLedgerSQLite
import StoreTestSupport
import Testing

/// The ledgers the contract runs against.
enum LedgerKind: String, CaseIterable, CustomTestStringConvertible {
  case inMemory = "InMemoryRewardLedger"
  case sqliteInMemory = "SQLiteRewardLedger(:memory:)"
  case sqliteFile = "SQLiteRewardLedger(file)"

  var testDescription: String { rawValue }

  /// A new, empty ledger, and its directory to remove afterwards (for a file).
  func make() throws -> (ledger: any RewardLedger, directory: TemporaryDirectory?) {
    switch self {
    case .inMemory: return (InMemoryRewardLedger(), nil)
    case .sqliteInMemory: return (try SQLiteRewardLedger.inMemory(), nil)
    case .sqliteFile:
      let directory = try TemporaryDirectory()
      return (try SQLiteRewardLedger(path: directory.file("rewards.sqlite")), directory)
    }
  }
}

/// ``RewardLedger``'s documented contract, the same for every implementation.
@Suite("RewardLedger contract")
struct RewardLedgerContractTests {
  @Test(arguments: LedgerKind.allCases)
  func recordedRewardsArePendingWithEveryField(kind: LedgerKind) throws {
    let (ledger, directory) = try kind.make()
    defer { directory?.remove() }
    #expect(try ledger.pending() == [])
    let first = entry(
      "tx-1", at: 1_000, zone: "daily_bonus", network: "google", type: "gems", amount: 5,
      networkReward: AdapterSignal.NetworkReward(type: "Gem", amount: 2.5), deliveries: 1)
    let second = entry("tx-2", at: 2_000)
    try ledger.record(first)
    try ledger.record(second)
    #expect(try ledger.pending() == [first, second])
  }

  @Test(arguments: LedgerKind.allCases)
  func acknowledgedRewardsAreNoLongerPendingAndASecondAcknowledgeIsFalse(kind: LedgerKind) throws {
    let (ledger, directory) = try kind.make()
    defer { directory?.remove() }
    try ledger.record(entry("tx-1", at: 1_000))
    try ledger.record(entry("tx-2", at: 2_000))
    #expect(try ledger.acknowledge(transactionID: "tx-1"))
    #expect(try ledger.pending().map(\.reward.transactionID) == ["tx-2"])
    #expect(try !ledger.acknowledge(transactionID: "tx-1"))
    #expect(try !ledger.acknowledge(transactionID: "never-recorded"))
    #expect(try ledger.pending().map(\.reward.transactionID) == ["tx-2"])
  }

  @Test(arguments: LedgerKind.allCases)
  func aTransactionIDIsRecordedOnceEvenAfterItsAcknowledgment(kind: LedgerKind) throws {
    let (ledger, directory) = try kind.make()
    defer { directory?.remove() }
    let original = entry("tx-1", at: 1_000, amount: 100)
    try ledger.record(original)
    let duplicate = try #require(throws: LedgerError.self) {
      try ledger.record(entry("tx-1", at: 5_000, amount: 999))
    }
    #expect(duplicate.message.contains("tx-1"))
    #expect(duplicate.message.contains("already"))
    #expect(try ledger.pending() == [original])  // the first one is untouched

    try ledger.acknowledge(transactionID: "tx-1")
    let afterAcknowledge = try #require(throws: LedgerError.self) { try ledger.record(original) }
    #expect(afterAcknowledge.message.contains("tx-1"))
    #expect(try ledger.pending() == [])
  }

  @Test(arguments: LedgerKind.allCases)
  func markRedeliveredCountsDeliveriesOfPendingRewardsOnly(kind: LedgerKind) throws {
    let (ledger, directory) = try kind.make()
    defer { directory?.remove() }
    try ledger.record(entry("tx-1", at: 1_000))
    try ledger.record(entry("tx-2", at: 2_000))
    try ledger.markRedelivered(transactionID: "tx-1")
    try ledger.markRedelivered(transactionID: "tx-1")
    try ledger.markRedelivered(transactionID: "unknown")  // harmless
    #expect(try ledger.pending().map(\.deliveries) == [3, 1])
    try ledger.acknowledge(transactionID: "tx-1")
    try ledger.markRedelivered(transactionID: "tx-1")  // acknowledged: not pending, not counted
    #expect(try ledger.pending().map(\.deliveries) == [1])
  }

  @Test(arguments: LedgerKind.allCases)
  func pendingIsOldestFirstThenByTransactionID(kind: LedgerKind) throws {
    let (ledger, directory) = try kind.make()
    defer { directory?.remove() }
    for (id, time) in [("d", 300), ("c", 100), ("a", 200), ("b", 100), ("e", -5)] {
      try ledger.record(entry(id, at: Int64(time)))
    }
    #expect(try ledger.pending().map(\.reward.transactionID) == ["e", "b", "c", "a", "d"])
    try ledger.acknowledge(transactionID: "b")
    #expect(try ledger.pending().map(\.reward.transactionID) == ["e", "c", "a", "d"])
  }

  @Test(arguments: LedgerKind.allCases)
  func idsAndNamesAreStoredExactlyAsGiven(kind: LedgerKind) throws {
    let (ledger, directory) = try kind.make()
    defer { directory?.remove() }
    let tricky = [
      entry("x'); DROP TABLE rewards; --", at: 1), entry("", at: 2), entry("nul\u{0}inside", at: 3),
      entry("zöne-🎁", at: 4, zone: "zöne 🎁", network: "", type: "", amount: -1),
      entry(
        "big", at: Int64.max, amount: Int.max,
        networkReward: AdapterSignal.NetworkReward(type: "", amount: -0.125)),
    ]
    for item in tricky { try ledger.record(item) }
    #expect(try ledger.pending() == tricky)
    #expect(try ledger.acknowledge(transactionID: "x'); DROP TABLE rewards; --"))
    #expect(try ledger.pending().count == tricky.count - 1)
  }
}
