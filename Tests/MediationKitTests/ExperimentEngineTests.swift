import Foundation
import MediationKit
import MediationKitTesting
import Testing

/// A zone whose experiment `e` has a `control` arm (the zone's own line item `a/a1`) and a
/// `treatment` arm serving `b/b1` with the hybrid strategy's auction timeout.
func experimentZone(overrides: [String: String] = [:], autoReload: Bool = false) -> ZoneConfig {
  var zone = zone([item("a", "a1", ecpm: 5)], autoReload: autoReload)
  zone.experiments = [
    ZoneConfig.Experiment(
      id: "e",
      arms: [
        .init(id: "control", weight: 1),
        .init(id: "treatment", weight: 1, lineItems: [item("b", "b1", ecpm: 9)], auctionTimeoutSeconds: 3),
      ], overrides: overrides)
  ]
  return zone
}

/// The first user id `user-N` the assignment puts in `arm` of `experimentZone()`'s experiment.
func user(in arm: String) -> String {
  let experiment = experimentZone().experiments[0]
  return (0...).lazy.map { "user-\($0)" }.first { experiment.arm(forUser: $0)?.id == arm }!
}

@Suite("Experiments: the engine uses the user's arm")
struct ExperimentEngineTests {
  static func harness(
    _ zone: ZoneConfig = experimentZone(), ledger: (any RewardLedger)? = nil,
    loadAfter: Duration = .seconds(1)
  ) throws -> LiveHarness {
    try LiveHarness(liveConfig(zone), ledger: ledger) { s in
      [
        ScriptedAdapter(id: "a", scheduler: s, loads: ["a1": [.fill(after: loadAfter)]]),
        ScriptedAdapter(id: "b", scheduler: s, loads: ["b1": [.fill(after: loadAfter)]]),
      ]
    }
  }

  func readyInfos(_ harness: LiveHarness) -> [AdInfo] {
    harness.recorder.events(zone: "z").compactMap { if case .ready(let info) = $0 { info } else { nil } }
  }

  @Test func aUserInTheTreatmentArmLoadsTheArmsLineItemsAndReportsTheArm() throws {
    let harness = try Self.harness()
    try harness.mediator.setUserID(user(in: "treatment"))
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    #expect(harness.adapters["a"]!.loadRequests.isEmpty)
    #expect(harness.adapters["b"]!.loadRequests.map(\.placementID) == ["b1"])
    #expect(readyInfos(harness).map(\.experimentArms) == [["e": "treatment"]])
  }

  @Test func aUserInTheControlArmLoadsTheZonesOwnLineItems() throws {
    let harness = try Self.harness()
    try harness.mediator.setUserID(user(in: "control"))
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    #expect(harness.adapters["a"]!.loadRequests.map(\.placementID) == ["a1"])
    #expect(harness.adapters["b"]!.loadRequests.isEmpty)
    #expect(readyInfos(harness).map(\.experimentArms) == [["e": "control"]])
  }

  /// Documented: without a user id the zone runs as configured and reports no arm.
  @Test func withoutAUserIDTheZoneRunsAsConfiguredWithNoArm() throws {
    let harness = try Self.harness()
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    #expect(harness.adapters["a"]!.loadRequests.map(\.placementID) == ["a1"])
    #expect(readyInfos(harness).map(\.experimentArms) == [[:]])
  }

  @Test func anOverridePutsAQAUserInTheArm() throws {
    let qa = user(in: "control")
    let harness = try Self.harness(experimentZone(overrides: [qa: "treatment"]))
    try harness.mediator.setUserID(qa)
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    #expect(harness.adapters["b"]!.loadRequests.map(\.placementID) == ["b1"])
    #expect(readyInfos(harness).map(\.experimentArms) == [["e": "treatment"]])
  }

  /// A zone without experiments reports no arm, whatever the user.
  @Test func aZoneWithoutExperimentsReportsNoArm() throws {
    let harness = try Self.harness(zone([item("a", "a1", ecpm: 5)]))
    try harness.mediator.setUserID(user(in: "treatment"))
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    #expect(readyInfos(harness).map(\.experimentArms) == [[:]])
  }

  @Test func aNewUserSwitchesTheNextLoadNotTheOneInFlight() throws {
    let harness = try Self.harness(loadAfter: .seconds(5))
    try harness.mediator.setUserID(user(in: "control"))
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.scheduler.advance(by: .seconds(1))
    try harness.mediator.setUserID(user(in: "treatment"))
    harness.settle()
    // The load in flight ends on the control's plan, and its ad stays showable.
    #expect(readyInfos(harness).map(\.network) == ["a"])
    #expect(readyInfos(harness).map(\.experimentArms) == [["e": "control"]])
    #expect(ad.isReady)
    try ad.show(from: HeadlessPresenter())
    harness.settle()
    #expect(!harness.diagnostics().contains { $0.kind == .adWithdrawn })
    ad.load()
    harness.settle()
    #expect(readyInfos(harness).map(\.network) == ["a", "b"])
    #expect(readyInfos(harness).last?.experimentArms == ["e": "treatment"])
    try harness.recorder.verifyContract()
  }

  @Test func aReadyAdFromThePreviousArmStaysShowableAfterAUserChange() throws {
    let harness = try Self.harness()
    try harness.mediator.setUserID(user(in: "treatment"))
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    try harness.mediator.setUserID(user(in: "control"))
    try harness.mediator.setUserID(nil)
    harness.settle()
    #expect(ad.isReady)
    try ad.show(from: HeadlessPresenter())
    harness.settle()
    #expect(harness.names().contains("shown"))
    #expect(!harness.names().contains("expired"))
  }

  /// An apply removing a line item from every arm still withdraws the ad it made.
  @Test func anApplyRemovingTheArmsLineItemWithdrawsItsAd() throws {
    let harness = try Self.harness()
    try harness.mediator.setUserID(user(in: "treatment"))
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    var changed = experimentZone()
    changed.experiments[0].arms[1].lineItems = [item("a", "a1", ecpm: 7)]
    try harness.mediator.apply(liveConfig(changed, version: "v2"))
    harness.settle()
    #expect(!ad.isReady)
    #expect(harness.diagnostics().contains { $0.kind == .adWithdrawn && $0.message.contains("b/b1 removed") })
  }

  @Test func everyEventOfALoadAndItsAdCarriesTheArm() throws {
    // Treatment serves b/b1: the first load fills, the show completes; the second load fails.
    let harness = try LiveHarness(liveConfig(experimentZone())) { s in
      [
        ScriptedAdapter(id: "a", scheduler: s, loads: [:]),
        ScriptedAdapter(
          id: "b", scheduler: s,
          loads: ["b1": [.fill(after: .seconds(1)), .fail(after: .seconds(1), noFill)]]),
      ]
    }
    try harness.mediator.setUserID(user(in: "treatment"))
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    try ad.show(from: HeadlessPresenter())
    harness.settle()
    ad.load()
    harness.settle()
    let events = harness.recorder.events.filter { $0.zoneID == "z" && $0.event.name != "diagnostic" }
    #expect(
      Set(events.map(\.event.name)).isSuperset(of: [
        "loading", "ready", "shown", "revenue_paid", "rewarded", "closed", "failed",
      ]))
    for event in events {
      #expect(event.experimentArms == ["e": "treatment"], "\(event.event.name) carries no arm")
    }
    // Without a user id there is no arm, on any event.
    try harness.mediator.setUserID(nil)
    ad.load()
    harness.settle()
    #expect(harness.recorder.events.last { $0.event.name == "loading" }?.experimentArms == [:])
  }

  @Test func revenueRewardAndLedgerEntryCarryTheArm() throws {
    let ledger = InMemoryRewardLedger()
    let harness = try Self.harness(ledger: ledger)
    try harness.mediator.setUserID(user(in: "treatment"))
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    try ad.show(from: HeadlessPresenter())
    harness.settle()
    let events = harness.recorder.events(zone: "z")
    let shown = events.compactMap { if case .shown(let info) = $0 { info } else { nil } }
    let revenue = events.compactMap { if case .revenuePaid(let revenue) = $0 { revenue } else { nil } }
    #expect(shown.map(\.experimentArms) == [["e": "treatment"]])
    #expect(revenue.map(\.experimentArms) == [["e": "treatment"]])
    #expect(harness.rewards().map(\.experimentArms) == [["e": "treatment"]])
    #expect(try ledger.pending().map(\.reward.experimentArms) == [["e": "treatment"]])
  }

  /// A ledger entry written before arms existed (no `experimentArms`) reads as no arm; one with
  /// arms round-trips.
  @Test func ledgerEntriesRoundTripTheArmsAndOldOnesReadAsNone() throws {
    let old = #"""
      {"reward": {"type": "coins", "amount": 5, "transactionID": "t1", "network": "max", "isRedelivery": false},
       "zoneID": "z", "recordedAtMilliseconds": 7, "deliveries": 1}
      """#
    let decoded = try JSONDecoder().decode(LedgerEntry.self, from: Data(old.utf8))
    #expect(decoded.reward.experimentArms.isEmpty)
    let written = try JSONEncoder().encode(decoded)
    #expect(!String(decoding: written, as: UTF8.self).contains("experimentArms"))
    var entry = decoded
    entry.reward.experimentArms = ["e": "treatment", "f": "x"]
    #expect(try JSONDecoder().decode(LedgerEntry.self, from: JSONEncoder().encode(entry)) == entry)
  }

  @Test func anArmNamingANetworkThatIsNotRegisteredIsAClearValidationError() throws {
    var bad = experimentZone()
    bad.experiments[0].arms[1].lineItems = [item("unity", "u1", ecpm: 9)]
    let json = try JSONEncoder().encode(liveConfig(bad))
    #expect {
      try MediationConfig.load(json, source: "t", knownNetworks: ["a", "b"])
    } throws: { error in
      "\(error)".contains("zones[0].experiments[0].arms[1].lineItems[0].network: unknown network 'unity'")
    }
  }
}
