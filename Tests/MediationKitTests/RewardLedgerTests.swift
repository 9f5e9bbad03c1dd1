import MediationKit
import MediationKitTesting
import Testing

/// A ledger over an ``InMemoryRewardLedger`` that runs a hook before each operation, to make the
/// storage fail or stall.
final class HookedLedger: RewardLedger {
  enum Operation { case record, pending, markRedelivered, acknowledge }

  let inner = InMemoryRewardLedger()
  private let hook: @Sendable (Operation) throws(LedgerError) -> Void

  init(_ hook: @escaping @Sendable (Operation) throws(LedgerError) -> Void) { self.hook = hook }

  func record(_ entry: LedgerEntry) throws(LedgerError) {
    try hook(.record)
    try inner.record(entry)
  }
  func pending() throws(LedgerError) -> [LedgerEntry] {
    try hook(.pending)
    return try inner.pending()
  }
  func markRedelivered(transactionID: String) throws(LedgerError) {
    try hook(.markRedelivered)
    try inner.markRedelivered(transactionID: transactionID)
  }
  func acknowledge(transactionID: String) throws(LedgerError) -> Bool {
    try hook(.acknowledge)
    return try inner.acknowledge(transactionID: transactionID)
  }
}

/// A ledger whose storage fails, to pin what the mediator does then.
private func failingLedger(failRecord: Bool = false, failPending: Bool = false) -> HookedLedger {
  HookedLedger { (operation) throws(LedgerError) in
    if failRecord, operation == .record { throw LedgerError("record: disk I/O error (/tmp/full.sqlite)") }
    if failPending, operation == .pending { throw LedgerError("pending: file is not a database (/tmp/x)") }
  }
}

@Suite("Reward ledger: recorded before the app is told, redelivered until acknowledged")
struct RewardLedgerTests {
  static let presenter = HeadlessPresenter()
  static let clock: @Sendable () -> Int64 = { 1_764_000_000_000 }

  /// One run of the app: a mediator on `ledger`, one completed show unless `show` is false.
  static func run(
    ledger: any RewardLedger, seed: UInt64 = 1, show: Bool = true, settle: Bool = true
  ) throws -> Harness {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 10)])],
      scripts: ["a": ["a1": [.fill(after: .milliseconds(200))]]],
      options: MediatorOptions(seed: seed, wallClockMilliseconds: clock), ledger: ledger)
    if show {
      let ad = try harness.mediator.rewardedAd(zone: "z")
      ad.load()
      harness.settle()
      try ad.show(from: presenter)
    }
    if settle { harness.settle() }
    return harness
  }

  static func rewards(_ harness: Harness) -> [Reward] {
    harness.recorder.events.compactMap { if case .rewarded(let reward) = $0.event { reward } else { nil } }
  }

  @Test func theRewardIsRecordedBeforeTheAppIsTold() throws {
    let ledger = InMemoryRewardLedger()
    let harness = try Self.run(ledger: ledger, show: false)
    let pendingWhenTold = Locked<[[String]]>([])
    harness.mediator.observeEvents { event in
      guard case .rewarded = event.event else { return }
      let ids = (try? ledger.pending().map(\.reward.transactionID)) ?? []
      pendingWhenTold.withLock { $0.append(ids) }
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    try ad.show(from: Self.presenter)
    harness.settle()
    let reward = try #require(Self.rewards(harness).first)
    #expect(pendingWhenTold.withLock { $0 } == [[reward.transactionID]])
    let entry = try #require(try ledger.pending().first)
    #expect(entry.zoneID == "z")
    #expect(entry.reward == reward)
    #expect(entry.recordedAtMilliseconds == 1_764_000_000_000)
    #expect(entry.deliveries == 1)
    #expect(!reward.isRedelivery)
  }

  @Test func anUnacknowledgedRewardIsRedeliveredOnTheNextStartUntilAcknowledged() async throws {
    let ledger = InMemoryRewardLedger()
    let first = try Self.run(ledger: ledger)
    let original = try #require(Self.rewards(first).first)

    // Second start: delivered again, once, marked; no new show needed.
    let second = try Self.run(ledger: ledger, seed: 2, show: false)
    let redelivered = Self.rewards(second)
    #expect(redelivered.count == 1)
    #expect(redelivered.first?.transactionID == original.transactionID)
    #expect(redelivered.first?.isRedelivery == true)
    #expect(second.recorder.events.first?.zoneID == "z")
    #expect(try ledger.pending().first?.deliveries == 2)
    try RewardContract.verify(second.recorder.events)

    // Acknowledged: never again.
    #expect(try await second.mediator.acknowledgeReward(transactionID: original.transactionID))
    #expect(try await !second.mediator.acknowledgeReward(transactionID: original.transactionID))
    let third = try Self.run(ledger: ledger, seed: 3, show: false)
    #expect(Self.rewards(third).isEmpty)
    #expect(try ledger.pending().isEmpty)
  }

  @Test func transactionIDsAreUniqueAcrossRunsWithOneSeedUnlessSeededIDsAreAsked() throws {
    func id(_ source: MediatorOptions.TransactionIDSource) throws -> String {
      let harness = try Harness(
        zones: [zone([item("a", "a1", ecpm: 10)])],
        scripts: ["a": ["a1": [.fill(after: .milliseconds(200))]]],
        options: MediatorOptions(seed: 7, transactionIDs: source))
      let ad = try harness.mediator.rewardedAd(zone: "z")
      ad.load()
      harness.settle()
      try ad.show(from: Self.presenter)
      harness.settle()
      return try #require(Self.rewards(harness).first?.transactionID)
    }
    #expect(MediatorOptions().transactionIDs == .systemRandom)
    #expect(try id(.systemRandom) != id(.systemRandom))
    #expect(try id(.seeded) == id(.seeded))
  }

  @Test func pendingRewardsListWhatIsNotAcknowledgedYet() async throws {
    let ledger = InMemoryRewardLedger()
    let harness = try Self.run(ledger: ledger)
    let reward = try #require(Self.rewards(harness).first)
    #expect(try await harness.mediator.pendingRewards().map(\.reward.transactionID) == [reward.transactionID])
    try await harness.mediator.acknowledgeReward(transactionID: reward.transactionID)
    #expect(try await harness.mediator.pendingRewards().isEmpty)
    let unledgered = try Harness(
      zones: [zone([item("a", "a1", ecpm: 10)])], scripts: ["a": ["a1": [.fill(after: .milliseconds(200))]]])
    #expect(try await unledgered.mediator.pendingRewards().isEmpty)
  }

  @Test func theFacadeAcknowledgesTheRewardItDelivered() async throws {
    let ledger = InMemoryRewardLedger()
    let harness = try Self.run(ledger: ledger)
    let reward = try #require(Self.rewards(harness).first)
    let ad = try harness.mediator.rewardedAd(zone: "z")
    #expect(try await ad.acknowledge(reward))
    #expect(try ledger.pending().isEmpty)
    #expect(try await !ad.acknowledge(reward))
  }

  @Test func redeliveryWaitsForTheExecutorSoSubscribersAttachedAtStartSeeIt() throws {
    let ledger = InMemoryRewardLedger()
    _ = try Self.run(ledger: ledger)
    let second = try Self.run(ledger: ledger, seed: 2, show: false, settle: false)
    #expect(Self.rewards(second).isEmpty)
    second.scheduler.advance(by: .zero)
    #expect(Self.rewards(second).count == 1)
  }

  @Test func aRewardAcknowledgedBeforeTheStartUpRedeliveryIsNotRedelivered() async throws {
    let ledger = InMemoryRewardLedger()
    let original = try #require(Self.rewards(try Self.run(ledger: ledger)).first)
    let second = try Self.run(ledger: ledger, seed: 2, show: false, settle: false)
    // The app credits what is pending itself before the executor yields, and acknowledges it.
    let pending = try await second.mediator.pendingRewards()
    #expect(pending.map(\.reward.transactionID) == [original.transactionID])
    #expect(try await second.mediator.acknowledgeReward(transactionID: original.transactionID))
    second.settle()
    #expect(Self.rewards(second).isEmpty)
  }

  @Test func aRewardTheLedgerCannotRecordIsStillDeliveredWithADiagnostic() throws {
    let ledger = failingLedger(failRecord: true)
    let harness = try Self.run(ledger: ledger)
    let names = harness.names()
    let diagnostic = try #require(names.firstIndex(of: "diagnostic"))
    #expect(names[diagnostic + 1] == "rewarded")
    guard case .diagnostic(let note) = harness.recorder.events(zone: "z")[diagnostic] else {
      Issue.record("expected a diagnostic")
      return
    }
    #expect(note.kind == .ledgerWriteFailed)
    #expect(note.message.contains("disk I/O error"))
    #expect(Self.rewards(harness).count == 1)
  }

  @Test func aLedgerThatCannotBeReadAtStartTellsEveryZoneWhyAndTheMediatorRuns() throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 10)]), zone([item("a", "a1", ecpm: 10)], id: "y")],
      scripts: ["a": ["a1": [.fill(after: .milliseconds(200))]]],
      options: MediatorOptions(seed: 1, wallClockMilliseconds: Self.clock),
      ledger: failingLedger(failPending: true))
    harness.settle()
    for zoneID in ["z", "y"] {
      let events = harness.recorder.events(zone: zoneID)
      #expect(events.count == 1)
      guard case .diagnostic(let note) = events.first else {
        Issue.record("zone \(zoneID): expected a diagnostic, got \(events)")
        continue
      }
      #expect(note.kind == .ledgerReadFailed)
      #expect(note.message.contains("file is not a database (/tmp/x)"))
      #expect(note.message.contains("pendingRewards()"))
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    try ad.show(from: Self.presenter)
    harness.settle()
    #expect(Self.rewards(harness).count == 1)
  }

  @Test func withoutALedgerThereIsNothingToAcknowledge() async throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 10)])], scripts: ["a": ["a1": [.fill(after: .milliseconds(200))]]])
    #expect(try await !harness.mediator.acknowledgeReward(transactionID: "nope"))
  }

  @Test func theInMemoryLedgerRefusesADuplicateTransactionID() throws {
    let ledger = InMemoryRewardLedger()
    let entry = LedgerEntry(
      reward: Reward(type: "coins", amount: 1, transactionID: "t1", network: "a"), zoneID: "z",
      recordedAtMilliseconds: 1)
    try ledger.record(entry)
    #expect(throws: LedgerError.self) { try ledger.record(entry) }
    #expect(try ledger.acknowledge(transactionID: "t1"))
    #expect(throws: LedgerError.self) { try ledger.record(entry) }
  }

  @Test func theContractRejectsARedeliveryInsideAShow() {
    let reward = Reward(type: "coins", amount: 1, transactionID: "t", network: "a", isRedelivery: true)
    let info = AdInfo(zoneID: "z", network: "a", placementID: "p", ecpm: 1, responses: [], latency: .zero)
    #expect(throws: RewardContractViolation.self) {
      try RewardContract.verify([.shown(info), .rewarded(reward), .closed])
    }
    #expect(throws: Never.self) { try RewardContract.verify([.rewarded(reward)]) }
  }
}
