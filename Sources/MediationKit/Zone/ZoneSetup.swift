/// Everything a zone derives from its configuration and the registered adapters, made once per
/// configuration change (``Mediator/apply(_:)``, a network registered or unregistered) and
/// swapped in one step: a load reads the zone's current setup when it starts and keeps that one
/// to its end, so a change never reaches a load half-way.
final class ZoneSetup: Sendable {
  let zone: ZoneConfig
  let planner: any LoadPlanner.Type
  /// The plan, its entries switched off by the configuration's kill switch marked
  /// (``LoadPlan/Entry/switchedOff``).
  let plan: LoadPlan
  /// Each plan entry's adapter (`nil` when its network is not registered), looked up once.
  let adapters: [(any RewardedAdapter)?]
  /// For each plan entry, whether its network reports impression revenue itself.
  let reportsRevenue: [Bool]
  /// The zone's timeouts as durations, converted from the configured seconds once.
  let budget: LoadBudget
  let adExpiry: Duration
  let rewardGrace: Duration
  /// The configuration's version, for the reasons given when a change withdraws an ad.
  let version: String?
  /// The learned eCPMs, when the zone learns them (``ZoneConfig/autoECPM``): carried over from
  /// the previous setup while the zone's plan and its learning settings stay the same, so an
  /// apply that leaves a zone's waterfall alone keeps what it learned.
  let learned: Locked<LearnedECPMs>?
  /// Every registered adapter when the setup was made, by network id.
  let networkAdapters: [NetworkID: any RewardedAdapter]
  /// The networks the configuration switched off everywhere.
  let disabledNetworks: Set<NetworkID>
  /// How many ads the zone keeps ready: its `queueDepth`, but no more than it has placements
  /// (network and placement id) to hold them, as a network keeps one ad per placement (a second
  /// load of a placement whose ad is ready answers with that same ad).
  let queueDepth: Int

  init(
    zone: ZoneConfig, in config: MediationConfig, adapters: [NetworkID: any RewardedAdapter], seed: UInt64,
    previous: ZoneSetup? = nil
  ) {
    self.zone = zone
    self.version = config.version
    networkAdapters = adapters
    disabledNetworks = Set(config.disabledNetworks)
    budget = LoadBudget(loadTimeout: zone.loadTimeout, auctionTimeout: zone.auctionTimeout)
    adExpiry = zone.adExpiry
    rewardGrace = zone.rewardGrace
    planner = LoadPlanners.planner(for: zone)
    let versionName = config.version.map { " '\($0)'" } ?? ""
    let disabled = Set(config.disabledNetworks)
    plan = planner.plan(for: zone).switchingOff { item in
      if disabled.contains(item.network) {
        return "network '\(item.network)' switched off by configuration\(versionName) (disabledNetworks)"
      }
      return item.disabled ? "line item switched off by configuration\(versionName) (disabled: true)" : nil
    }
    if zone.queueDepth > 1 {
      let placements = Set(
        zone.lineItems.map { PlacementKey(network: $0.network, placementID: $0.placementId) })
      queueDepth = max(1, min(zone.queueDepth, placements.count))
    } else {
      queueDepth = 1
    }
    self.adapters = plan.entries.map { adapters[$0.item.network] }
    reportsRevenue = self.adapters.map { $0?.info.capabilities.contains(.impressionRevenue) ?? false }
    if let previous, previous.zone.autoECPM == zone.autoECPM, previous.zone.strategy == zone.strategy,
      previous.plan.entries.map(\.item) == plan.entries.map(\.item), previous.plan.waterfall == plan.waterfall
    {
      learned = previous.learned
    } else {
      learned = ZoneController.learnedECPMs(zone: zone, plan: plan, seed: seed)
    }
  }

  /// Why `network` is switched off everywhere, if it is.
  private func switchedOff(_ network: NetworkID) -> String? {
    guard disabledNetworks.contains(network) else { return nil }
    let versionName = version.map { " '\($0)'" } ?? ""
    return "network '\(network)' switched off by configuration\(versionName) (disabledNetworks)"
  }

  /// Why an ad `adapter` loaded for `item` may no longer be shown under this setup: its line item
  /// is gone from the zone or switched off, or its network's adapter is gone or replaced; `nil`
  /// when it stays showable.
  func withdrawalReason(of item: (network: NetworkID, placementID: String), adapter: (any RewardedAdapter)?)
    -> String?
  {
    let versionName = version.map { "configuration '\($0)'" } ?? "the configuration"
    guard
      let entry = plan.entries.firstIndex(where: {
        $0.item.network == item.network && $0.item.placementId == item.placementID
      })
    else {
      return "line item \(item.network)/\(item.placementID) removed from zone '\(zone.id)' by \(versionName)"
    }
    if let off = plan.entries[entry].switchedOff { return off.reason }
    guard let current = adapters[entry], let adapter, current === adapter else {
      return "network '\(item.network)' was unregistered"
    }
    return nil
  }

  /// Why `entry`'s request, sent under `old`, must stop under this setup: its network switched off
  /// or unregistered (or registered again: a new adapter), or its line item switched off; `nil`
  /// when it may go on (a load in flight finishes on its own plan otherwise).
  func cancellation(of entry: Int, under old: ZoneSetup) -> String? {
    let item = old.plan.entries[entry].item
    if let off = switchedOff(item.network) { return off }
    if let adapter = old.adapters[entry], networkAdapters[item.network] !== adapter {
      return "network '\(item.network)' was unregistered"
    }
    let same = plan.entries.first {
      $0.item.network == item.network && $0.item.placementId == item.placementId
    }
    return same?.switchedOff?.reason
  }
}

/// A network's placement: what holds at most one ready ad.
struct PlacementKey: Hashable {
  let network: NetworkID
  let placementID: String
}
