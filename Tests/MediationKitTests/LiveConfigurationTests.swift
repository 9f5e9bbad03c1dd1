import MediationKit
import MediationKitTesting
import Testing

/// A mediator on virtual time whose configuration and registry the test changes while it runs.
struct LiveHarness {
  let scheduler = VirtualScheduler()
  let registry = AdapterRegistry()
  let mediator: Mediator
  let recorder: EventRecorder
  let adapters: [NetworkID: ScriptedAdapter]

  /// Registers every adapter `makeAdapters` builds except those in `unregistered` (kept in
  /// ``adapters`` for the test to register later).
  init(
    _ config: MediationConfig, unregistered: Set<NetworkID> = [], ledger: (any RewardLedger)? = nil,
    options: MediatorOptions = MediatorOptions(),
    adapters makeAdapters: (VirtualScheduler) -> [ScriptedAdapter]
  ) throws {
    var adapters: [NetworkID: ScriptedAdapter] = [:]
    for adapter in makeAdapters(scheduler) {
      adapters[adapter.info.id] = adapter
      if !unregistered.contains(adapter.info.id) { try registry.register(adapter.registration) }
    }
    self.adapters = adapters
    mediator = try Mediator(
      config: config, registry: registry, scheduler: scheduler, options: options, ledger: ledger)
    recorder = EventRecorder(mediator)
  }

  func settle(_ duration: Duration = .seconds(60)) { scheduler.advance(by: duration) }

  /// The zone's events' names, diagnostics left out.
  func names(_ zone: String = "z") -> [String] { recorder.names(zone: zone).filter { $0 != "diagnostic" } }

  func diagnostics(_ zone: String = "z") -> [RewardedAdEvent.Diagnostic] {
    recorder.events(zone: zone).compactMap { if case .diagnostic(let note) = $0 { note } else { nil } }
  }

  /// The line items' fates of the zone's last `ready` or `failed`.
  func lastFates(_ zone: String = "z") -> [AdInfo.NetworkResponse] {
    for event in recorder.events(zone: zone).reversed() {
      switch event {
      case .ready(let info): return info.responses
      case .failed(let error): return error.waterfall
      default: continue
      }
    }
    return []
  }

  func readyNetworks(_ zone: String = "z") -> [NetworkID] {
    recorder.events(zone: zone).compactMap { if case .ready(let info) = $0 { info.network } else { nil } }
  }

  func rewards(_ zone: String = "z") -> [Reward] {
    recorder.events(zone: zone).compactMap { if case .rewarded(let reward) = $0 { reward } else { nil } }
  }
}

func liveConfig(_ zones: ZoneConfig..., version: String? = nil, disabled: [NetworkID] = []) -> MediationConfig
{
  MediationConfig(zones: zones, version: version, disabledNetworks: disabled)
}

/// Scripted networks whose one placement (`a` → `a1`) fills 1 s after each load.
func fillingInOneSecond(_ ids: NetworkID..., scheduler: VirtualScheduler) -> [ScriptedAdapter] {
  ids.map {
    ScriptedAdapter(id: $0, scheduler: scheduler, loads: ["\($0.rawValue)1": [.fill(after: .seconds(1))]])
  }
}

func switchedOff(_ item: ZoneConfig.LineItem) -> ZoneConfig.LineItem {
  var item = item
  item.disabled = true
  return item
}

@Suite("Live configuration: apply on a running mediator")
struct LiveConfigurationTests {
  @Test func anAuctionInFlightFinishesOnItsPlanAndTheNextLoadUsesTheNewOne() throws {
    let harness = try LiveHarness(liveConfig(zone([item("a", "a1", ecpm: 5)]))) { s in
      [
        ScriptedAdapter(id: "a", scheduler: s, loads: ["a1": [.fill(after: .seconds(5))]]),
        ScriptedAdapter(id: "b", scheduler: s, loads: ["b1": [.fill(after: .seconds(1))]]),
      ]
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.scheduler.advance(by: .seconds(1))
    try harness.mediator.apply(
      liveConfig(zone([item("b", "b1", ecpm: 9), item("a", "a1", ecpm: 5)]), version: "v2"))
    harness.settle()
    // The load started on [a1] and ends on it, though b1 now comes first.
    #expect(harness.readyNetworks() == ["a"])
    #expect(harness.lastFates().map(\.placementID) == ["a1"])
    #expect(harness.adapters["b"]!.loadRequests.isEmpty)
    try ad.show(from: HeadlessPresenter())
    harness.settle()
    ad.load()
    harness.settle()
    #expect(harness.readyNetworks() == ["a", "b"])
    #expect(harness.lastFates().map(\.placementID) == ["b1", "a1"])
    #expect(harness.mediator.config.version == "v2")
    let note = harness.diagnostics().first { $0.kind == .configurationApplied }
    #expect(note?.message == "configuration 'v2': line items added: b/b1")
    try harness.recorder.verifyContract()
  }

  @Test func aWaterfallInFlightGoesOnInItsOwnOrderAfterAnApply() throws {
    let harness = try LiveHarness(liveConfig(zone([item("a", "a1", ecpm: 9), item("b", "b1", ecpm: 5)]))) {
      s in
      [
        ScriptedAdapter(id: "a", scheduler: s, loads: ["a1": [.fail(after: .seconds(2), noFill)]]),
        ScriptedAdapter(id: "b", scheduler: s, loads: ["b1": [.fill(after: .seconds(1))]]),
        ScriptedAdapter(id: "c", scheduler: s, loads: ["c1": [.fill(after: .seconds(1))]]),
      ]
    }
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.scheduler.advance(by: .seconds(1))
    try harness.mediator.apply(
      liveConfig(zone([item("c", "c1", ecpm: 20), item("a", "a1", ecpm: 10), item("b", "b1", ecpm: 5)])))
    harness.settle()
    #expect(harness.adapters["a"]!.loadRequests.count == 1)
    #expect(harness.adapters["b"]!.loadRequests.map(\.placementID) == ["b1"])
    #expect(harness.adapters["c"]!.loadRequests.isEmpty)
    #expect(harness.lastFates().map(\.state) == [.failed, .loaded])
  }

  @Test func aFillForALineItemRemovedDuringItsLoadIsWithdrawnAndReloaded() throws {
    let harness = try LiveHarness(liveConfig(zone([item("a", "a1", ecpm: 5)], autoReload: true))) { s in
      [
        ScriptedAdapter(id: "a", scheduler: s, loads: ["a1": [.fill(after: .seconds(5))]]),
        ScriptedAdapter(id: "b", scheduler: s, loads: ["b1": [.fill(after: .seconds(1))]]),
      ]
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.scheduler.advance(by: .seconds(1))
    try harness.mediator.apply(liveConfig(zone([item("b", "b1", ecpm: 9)], autoReload: true), version: "v2"))
    harness.settle()
    // The load finishes on its plan (a1 fills), but its line item is gone: withdrawn, reloaded on b1.
    #expect(harness.names() == ["loading", "ready", "expired", "loading", "ready"])
    #expect(harness.readyNetworks() == ["a", "b"])
    #expect(
      harness.diagnostics().map(\.message).contains(
        "the ready ad was withdrawn (configuration_changed: line item a/a1 removed from zone 'z' by "
          + "configuration 'v2'); discarded"))
    #expect(ad.isReady)
  }

  @Test func aShowInProgressFinishesOnItsSessionAndGrantsTheRewardOnce() throws {
    let ledger = InMemoryRewardLedger()
    let harness = try LiveHarness(liveConfig(zone([item("a", "a1", ecpm: 5)])), ledger: ledger) { s in
      [ScriptedAdapter(id: "a", scheduler: s, loads: ["a1": [.fill(after: .seconds(1))]])]
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    try ad.show(from: HeadlessPresenter())
    harness.scheduler.advance(by: .seconds(10))
    // Mid-show: the line item goes, the zone's settings (its reward too) change, then the network
    // goes off.
    var changed = zone([item("a", "a2", ecpm: 5)], grace: 1)
    changed.reward.amount = 500
    try harness.mediator.apply(liveConfig(changed, version: "v2"))
    try harness.mediator.apply(
      liveConfig(changed, version: "v3", disabled: ["a"]))
    harness.settle()
    #expect(harness.names() == ["loading", "ready", "shown", "revenue_paid", "rewarded", "closed"])
    #expect(harness.rewards().count == 1)
    #expect(harness.rewards().first?.amount == 100, "the reward in force when the show started")
    #expect(try ledger.pending().map(\.reward.transactionID) == harness.rewards().map(\.transactionID))
    try harness.recorder.verifyContract()
  }

  @Test func aReadyAdWhoseLineItemDisappearsIsExpiredWithTheReasonAndReloaded() throws {
    let harness = try LiveHarness(
      liveConfig(zone([item("a", "a1", ecpm: 9), item("b", "b1", ecpm: 5)], autoReload: true))
    ) { s in
      fillingInOneSecond("a", "b", scheduler: s)
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    #expect(harness.readyNetworks() == ["a"])
    try harness.mediator.apply(
      liveConfig(zone([item("b", "b1", ecpm: 5)], autoReload: true), version: "2026-12-01.3"))
    #expect(!ad.isReady, "the withdrawn ad is not ready the moment apply returns")
    #expect(throws: MediationError.self) { try ad.show(from: HeadlessPresenter()) }
    harness.settle()
    #expect(harness.names() == ["loading", "ready", "expired", "loading", "ready"])
    #expect(harness.readyNetworks() == ["a", "b"])
    #expect(harness.adapters["a"]!.discardedAds == 1)
    let withdrawn = harness.diagnostics().first { $0.kind == .adWithdrawn }
    #expect(
      withdrawn?.message
        == "the ready ad was withdrawn (configuration_changed: line item a/a1 removed from zone 'z' by "
        + "configuration '2026-12-01.3'); discarded")
    #expect(ad.isReady)
  }

  @Test func aReadyAdWhoseLineItemStaysIsStillShowable() throws {
    let harness = try LiveHarness(liveConfig(zone([item("a", "a1", ecpm: 9)]))) { s in
      fillingInOneSecond("a", "c", scheduler: s)
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    var changed = item("a", "a1", ecpm: 12)
    changed.timeoutSeconds = 4
    try harness.mediator.apply(liveConfig(zone([changed, item("c", "c1", ecpm: 1)]), version: "v2"))
    harness.settle()
    #expect(ad.isReady)
    try ad.show(from: HeadlessPresenter())
    harness.settle()
    #expect(harness.names() == ["loading", "ready", "shown", "revenue_paid", "rewarded", "closed"])
    let note = harness.diagnostics().first { $0.kind == .configurationApplied }
    #expect(note?.message == "configuration 'v2': line items added: c/c1; line items changed: a/a1")
    try harness.recorder.verifyContract()
  }

  @Test func anUnchangedZoneGetsNoDiagnosticAndKeepsItsAd() throws {
    let harness = try LiveHarness(
      liveConfig(zone([item("a", "a1", ecpm: 9)]), zone([item("a", "y1", ecpm: 1)], id: "y"))
    ) { s in
      [ScriptedAdapter(id: "a", scheduler: s, loads: ["a1": [.fill(after: .seconds(1))]])]
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    try harness.mediator.apply(liveConfig(zone([item("a", "a1", ecpm: 9)]), version: "v2"))
    harness.settle()
    #expect(harness.diagnostics().isEmpty)
    #expect(harness.diagnostics("y").map(\.message) == ["zone 'y' was removed by configuration 'v2'"])
    #expect(ad.isReady)
  }

  @Test func aZoneAddedRemovedAndAddedAgainKeepsItsHandleWorking() throws {
    let z = zone([item("a", "a1", ecpm: 9)])
    let y = zone([item("a", "y1", ecpm: 9)], id: "y")
    let harness = try LiveHarness(liveConfig(z)) { s in
      [
        ScriptedAdapter(
          id: "a", scheduler: s,
          loads: ["a1": [.fill(after: .seconds(1))], "y1": [.fill(after: .seconds(1))]])
      ]
    }
    #expect(throws: MediationError.self) { try harness.mediator.rewardedAd(zone: "y") }
    try harness.mediator.apply(liveConfig(z, y, version: "v2"))
    let ad = try harness.mediator.rewardedAd(zone: "y")
    ad.load()
    harness.settle()
    #expect(ad.isReady)
    #expect(harness.diagnostics("y").first?.message == "configuration 'v2': zone added with 1 line item")

    try harness.mediator.apply(liveConfig(z, version: "v3"))
    #expect(!ad.isReady)
    let refusal = #expect(throws: MediationError.self) { try ad.show(from: HeadlessPresenter()) }
    #expect(refusal?.code == .unknownZone)
    #expect(refusal?.message == "zone 'y' was removed by configuration 'v3'; unknown zone 'y'; known: z")
    ad.load()
    harness.settle()
    let failure = harness.recorder.events(zone: "y").last
    guard case .failed(let error) = failure else {
      Issue.record("expected the load of a removed zone to fail, got \(String(describing: failure))")
      return
    }
    #expect(error.code == .unknownZone)
    #expect(
      error.message
        == "zone 'y' was removed by configuration 'v3'; its ads cannot load or show until a configuration "
        + "brings it back; unknown zone 'y'; known: z")
    #expect(throws: MediationError.self) { try harness.mediator.rewardedAd(zone: "y") }
    #expect(harness.names("y") == ["loading", "ready", "expired", "failed"])

    try harness.mediator.apply(liveConfig(z, y, version: "v4"))
    ad.load()
    harness.settle()
    #expect(ad.isReady)
    try ad.show(from: HeadlessPresenter())
    harness.settle()
    #expect(harness.rewards("y").count == 1)
    try harness.recorder.verifyContract()
  }

  @Test func removingAZoneCancelsItsLoadWithAFailure() throws {
    let harness = try LiveHarness(
      liveConfig(zone([item("a", "a1", ecpm: 9)]), zone([item("a", "y1", ecpm: 9)], id: "y"))
    ) { s in
      [ScriptedAdapter(id: "a", scheduler: s, loads: ["a1": [.never], "y1": [.fill(after: .seconds(5))]])]
    }
    let ad = try harness.mediator.rewardedAd(zone: "y")
    ad.load()
    harness.scheduler.advance(by: .seconds(1))
    try harness.mediator.apply(liveConfig(zone([item("a", "a1", ecpm: 9)]), version: "v2"))
    harness.settle()
    #expect(harness.names("y") == ["loading", "failed"])
    #expect(harness.adapters["a"]!.cancelledLoads == 1)
    #expect(!ad.isReady)
  }

  @Test func aRemovedZonesShowFinishesWithItsRewardRecordedOnce() throws {
    let ledger = InMemoryRewardLedger()
    let z = zone([item("a", "a1", ecpm: 9)])
    let harness = try LiveHarness(liveConfig(z, zone([item("a", "y1", ecpm: 9)], id: "y")), ledger: ledger) {
      s in
      [
        ScriptedAdapter(
          id: "a", scheduler: s,
          loads: ["a1": [.fill(after: .seconds(1))], "y1": [.fill(after: .seconds(1))]])
      ]
    }
    let ad = try harness.mediator.rewardedAd(zone: "y")
    ad.load()
    harness.settle()
    try ad.show(from: HeadlessPresenter())
    harness.scheduler.advance(by: .seconds(5))
    try harness.mediator.apply(liveConfig(z, version: "v2"))
    harness.settle()
    #expect(harness.names("y") == ["loading", "ready", "shown", "revenue_paid", "rewarded", "closed"])
    let pending = try ledger.pending()
    #expect(pending.count == 1)
    #expect(pending.first?.zoneID == "y")
    harness.mediator.acknowledgeReward(transactionID: pending[0].reward.transactionID)
    #expect(try ledger.pending().isEmpty)
    try harness.recorder.verifyContract()
  }

  @Test func anInvalidConfigurationIsRefusedWithItsPathsAndChangesNothing() throws {
    let original = liveConfig(zone([item("a", "a1", ecpm: 9)]), version: "v1")
    let harness = try LiveHarness(original) { s in
      [ScriptedAdapter(id: "a", scheduler: s, loads: ["a1": [.fill(after: .seconds(1))]])]
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    let eventsBefore = harness.recorder.events.count
    var bad = zone([item("a", "a1", ecpm: 9)], id: "y")
    bad.reward.amount = 0
    var badItem = item("a", "a2", ecpm: 1)
    badItem.timeoutSeconds = -1
    let error = #expect(throws: MediationError.self) {
      try harness.mediator.apply(liveConfig(bad, zone([badItem]), version: "v2", disabled: ["a"]))
    }
    #expect(error?.code == .invalidConfiguration)
    #expect(
      error?.message.contains("zones[0].reward.amount: must be an integer between 1 and 1000000000, found 0")
        == true,
      "\(String(describing: error))")
    #expect(
      error?.message.contains("zones[1].lineItems[0].timeoutSeconds") == true, "\(String(describing: error))")
    harness.settle()
    #expect(harness.mediator.config == original)
    #expect(harness.recorder.events.count == eventsBefore)
    #expect(ad.isReady)
    #expect(throws: MediationError.self) { try harness.mediator.rewardedAd(zone: "y") }
  }
}

@Suite("Live configuration: kill switch and a live registry")
struct KillSwitchTests {
  @Test func theKillSwitchInTheInitialConfigurationSkipsWithTheReason() throws {
    let harness = try LiveHarness(
      liveConfig(
        zone([item("a", "a1", ecpm: 9), switchedOff(item("b", "b1", ecpm: 7)), item("c", "c1", ecpm: 5)]),
        version: "v1", disabled: ["a"])
    ) { s in
      fillingInOneSecond("a", "b", "c", scheduler: s)
    }
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    #expect(harness.adapters["a"]!.loadRequests.isEmpty)
    #expect(harness.adapters["b"]!.loadRequests.isEmpty)
    let fates = harness.lastFates()
    #expect(fates.map(\.state) == [.disabled, .disabled, .loaded])
    #expect(fates[0].error == "network 'a' switched off by configuration 'v1' (disabledNetworks)")
    #expect(fates[1].error == "line item switched off by configuration 'v1' (disabled: true)")
  }

  @Test func theKillSwitchInBiddingSkipsTheBidder() throws {
    let harness = try LiveHarness(
      liveConfig(zone([bidder("a", "a1"), item("c", "c1", ecpm: 5)], strategy: .hybrid), disabled: ["a"])
    ) { s in
      [
        ScriptedAdapter(
          id: "a", scheduler: s, loads: ["a1": [.fill(after: .seconds(1))]],
          bids: ["a1": [.bid(after: .seconds(1), price: 30)]]),
        ScriptedAdapter(id: "c", scheduler: s, loads: ["c1": [.fill(after: .seconds(1))]]),
      ]
    }
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    #expect(harness.adapters["a"]!.bidRequests.isEmpty)
    #expect(harness.lastFates().map(\.state) == [.disabled, .loaded])
    #expect(
      harness.lastFates().first?.error == "network 'a' switched off by configuration (disabledNetworks)")
  }

  @Test func theKillSwitchOnApplyCancelsTheLoadAndTheWaterfallGoesOn() throws {
    let z = zone([item("a", "a1", ecpm: 9), item("b", "b1", ecpm: 5)])
    let harness = try LiveHarness(liveConfig(z)) { s in
      [
        ScriptedAdapter(id: "a", scheduler: s, loads: ["a1": [.fill(after: .seconds(5))]]),
        ScriptedAdapter(id: "b", scheduler: s, loads: ["b1": [.fill(after: .seconds(1))]]),
      ]
    }
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.scheduler.advance(by: .seconds(2))
    try harness.mediator.apply(liveConfig(z, version: "v2", disabled: ["a"]))
    harness.settle()
    #expect(harness.adapters["a"]!.cancelledLoads == 1)
    #expect(harness.readyNetworks() == ["b"])
    let fates = harness.lastFates()
    #expect(fates.map(\.state) == [.disabled, .loaded])
    #expect(fates[0].error == "network 'a' switched off by configuration 'v2' (disabledNetworks)")
    #expect(fates[0].latency == .seconds(2))
    // Ready at 2 s (the switch) + 1 s (b's load).
    #expect(harness.recorder.events.first { $0.event.name == "ready" }?.time == .seconds(3))
  }

  @Test func theKillSwitchOnApplyWithdrawsTheReadyAdAndReloads() throws {
    let z = zone([item("a", "a1", ecpm: 9), item("b", "b1", ecpm: 5)], autoReload: true)
    let harness = try LiveHarness(liveConfig(z)) { s in
      fillingInOneSecond("a", "b", scheduler: s)
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    var off = z
    off.lineItems[0].disabled = true
    try harness.mediator.apply(liveConfig(off, version: "v2"))
    harness.settle()
    #expect(harness.names() == ["loading", "ready", "expired", "loading", "ready"])
    #expect(harness.readyNetworks() == ["a", "b"])
    #expect(harness.lastFates().map(\.state) == [.disabled, .loaded])
    #expect(
      harness.diagnostics().map(\.message).contains(
        "the ready ad was withdrawn (configuration_changed: line item switched off by configuration 'v2' "
          + "(disabled: true)); discarded"))
    #expect(
      harness.diagnostics().first { $0.kind == .configurationApplied }?.message
        == "configuration 'v2': line items switched off: a/a1")
    // Switched on again: used by the next load.
    try ad.show(from: HeadlessPresenter())
    try harness.mediator.apply(liveConfig(z, version: "v3"))
    harness.settle()
    #expect(harness.readyNetworks() == ["a", "b", "a"])
  }

  @Test func aNetworkRegisteredLaterIsStartedThenUsed() throws {
    let z = zone([item("a", "a1", ecpm: 9), item("b", "b1", ecpm: 5)])
    let harness = try LiveHarness(liveConfig(z), unregistered: ["a"]) { s in
      [
        ScriptedAdapter(
          id: "a", scheduler: s, loads: ["a1": [.fill(after: .seconds(1))]],
          start: .succeed(after: .seconds(3))),
        ScriptedAdapter(id: "b", scheduler: s, loads: ["b1": [.fill(after: .seconds(1))]]),
      ]
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    #expect(harness.lastFates().map(\.state) == [.skipped, .loaded])
    #expect(harness.lastFates().first?.error == "no adapter registered for 'a'")
    try ad.show(from: HeadlessPresenter())
    harness.settle()

    try harness.registry.register(harness.adapters["a"]!.registration)
    #expect(harness.mediator.adapterStatuses.map(\.network) == ["a", "b"])
    #expect(harness.mediator.adapterStatuses.first?.state == .initializing)
    #expect(harness.mediator.networks.map(\.id) == ["a", "b"])
    harness.scheduler.advance(by: .seconds(1))
    ad.load()
    harness.scheduler.advance(by: .seconds(1))
    #expect(
      harness.adapters["a"]!.loadRequests.isEmpty, "a load reached the network before its start completed")
    harness.settle()
    #expect(harness.mediator.adapterStatuses.first?.state == .ready)
    #expect(harness.readyNetworks() == ["b", "a"])
    #expect(harness.lastFates().map(\.state) == [.loaded, .notAttempted])
    #expect(harness.diagnostics().map(\.message).contains("network 'a' registered"))
  }

  @Test func aNetworkUnregisteredHasItsLoadsCancelledAndIsSkipped() throws {
    let z = zone([item("a", "a1", ecpm: 9), item("b", "b1", ecpm: 5)])
    let harness = try LiveHarness(liveConfig(z)) { s in
      [
        ScriptedAdapter(id: "a", scheduler: s, loads: ["a1": [.fill(after: .seconds(5))]]),
        ScriptedAdapter(id: "b", scheduler: s, loads: ["b1": [.fill(after: .seconds(1))]]),
      ]
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.scheduler.advance(by: .seconds(2))
    try harness.registry.unregister("a")
    harness.settle()
    #expect(harness.adapters["a"]!.cancelledLoads == 1)
    #expect(harness.readyNetworks() == ["b"])
    #expect(harness.lastFates().map(\.state) == [.disabled, .loaded])
    #expect(harness.lastFates().first?.error == "network 'a' was unregistered")
    try ad.show(from: HeadlessPresenter())
    harness.settle()
    ad.load()
    harness.settle()
    #expect(harness.lastFates().map(\.state) == [.skipped, .loaded])
    #expect(harness.mediator.networks.map(\.id) == ["b"])
    #expect(harness.adapters["a"]!.loadRequests.count == 1)
    #expect(throws: MediationError.self) { try harness.registry.unregister("a") }
  }

  @Test func aNetworkUnregisteredHasItsReadyAdWithdrawn() throws {
    let z = zone([item("a", "a1", ecpm: 9), item("b", "b1", ecpm: 5)], autoReload: true)
    let harness = try LiveHarness(liveConfig(z)) { s in
      fillingInOneSecond("a", "b", scheduler: s)
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    try harness.registry.unregister("a")
    #expect(!ad.isReady)
    harness.settle()
    #expect(harness.names() == ["loading", "ready", "expired", "loading", "ready"])
    #expect(harness.readyNetworks() == ["a", "b"])
    #expect(harness.adapters["a"]!.discardedAds == 1)
  }
}
