/// Everything a zone derives from its configuration and the registered adapters, made once per
/// configuration change (``Mediator/apply(_:)``, a network registered or unregistered) and
/// swapped in one step: a load reads the zone's current setup when it starts and keeps that one
/// to its end, so a change never reaches a load half-way.
///
/// A zone with experiments is set up as the variant of the current user's arms (resolved once
/// here, not per load): ``zone`` is the variant, ``base`` the zone as configured, and
/// ``experimentArms`` what every ad this setup loads reports.
final class ZoneSetup: Sendable {
  /// The zone as this setup's loads use it: the configured zone with the user's arms applied.
  let zone: ZoneConfig
  /// The zone as configured, before any arm: a user change resolves the arms again from it.
  let base: ZoneConfig
  /// The user the arms were resolved for (`nil`: no user id, so no arm).
  let userID: String?
  /// Experiment id → arm id of the user's arms; empty without experiments or without a user id.
  let experimentArms: [String: String]
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
  /// The learned eCPMs a zone starts from on this setup, when it learns them
  /// (``ZoneConfig/autoECPM``; bidding has no waterfall to order). Its exploration draws from the
  /// engine's seed, keyed by the zone. The zone keeps what it learned instead while
  /// ``keepsLearnedECPMs(of:)``.
  let initialLearnedECPMs: LearnedECPMs?
  /// Every registered adapter when the setup was made, by network id.
  let networkAdapters: [NetworkID: any RewardedAdapter]
  /// Their infos, as the mediator read them when it made each adapter.
  let networkInfos: [NetworkID: AdapterInfo]
  /// The networks the configuration switched off everywhere.
  let disabledNetworks: Set<NetworkID>
  /// How many ads the zone keeps ready: its `queueDepth`, but no more than it has placements
  /// (network and placement id) to hold them, as a network keeps one ad per placement (a second
  /// load of a placement whose ad is ready answers with that same ad).
  let queueDepth: Int

  /// - Parameters:
  ///   - zone: The zone as configured; with experiments and a `userID`, the setup uses the
  ///     user's variant (``ZoneConfig/variant(forUser:)``). Without a user id it uses the zone
  ///     as configured and reports no arm.
  ///   - infos: Each adapter's info, as the mediator read it when it made the adapter: a setup is
  ///     made while configuration changes are serialized, and never calls adapter code itself.
  convenience init(
    zone base: ZoneConfig, in config: MediationConfig, userID: String? = nil,
    adapters: [NetworkID: any RewardedAdapter], infos: [NetworkID: AdapterInfo], seed: UInt64
  ) {
    let (zone, arms) =
      if let userID, !base.experiments.isEmpty { base.variant(forUser: userID) } else { (base, [:]) }
    self.init(
      variant: zone, of: base, userID: userID, experimentArms: arms, version: config.version,
      disabledNetworks: Set(config.disabledNetworks), adapters: adapters, infos: infos, seed: seed)
  }

  /// The setup of `zone`, the variant of `base` for the user's `experimentArms` (a replay makes
  /// one from a recording, which keeps the variant and the arms but not the user).
  init(
    variant zone: ZoneConfig, of base: ZoneConfig, userID: String?, experimentArms: [String: String],
    version: String?, disabledNetworks: Set<NetworkID>, adapters: [NetworkID: any RewardedAdapter],
    infos: [NetworkID: AdapterInfo], seed: UInt64
  ) {
    self.zone = zone
    self.base = base
    self.userID = userID
    self.experimentArms = experimentArms
    self.version = version
    networkAdapters = adapters
    networkInfos = infos
    self.disabledNetworks = disabledNetworks
    budget = LoadBudget(loadTimeout: zone.loadTimeout, auctionTimeout: zone.auctionTimeout)
    adExpiry = zone.adExpiry
    rewardGrace = zone.rewardGrace
    planner = LoadPlanners.planner(for: zone)
    let versionName = version.map { " '\($0)'" } ?? ""
    plan = planner.plan(for: zone).switchingOff { item in
      if disabledNetworks.contains(item.network) {
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
    reportsRevenue = plan.entries.map {
      infos[$0.item.network]?.capabilities.contains(.impressionRevenue) ?? false
    }
    if zone.autoECPM, zone.strategy != .bidding {
      let random = SeededRandom(seed: seed).derived("autoECPM").derived(zone.id)
      initialLearnedECPMs = LearnedECPMs(plan: plan, random: random)
    } else {
      initialLearnedECPMs = nil
    }
  }

  /// Whether a zone swapping this setup in for `previous` keeps the eCPMs it learned: while its
  /// plan and its learning settings stay the same, so an apply that leaves a zone's waterfall
  /// alone keeps what it learned.
  func keepsLearnedECPMs(of previous: ZoneSetup) -> Bool {
    previous === self
      || (previous.zone.autoECPM == zone.autoECPM && previous.zone.strategy == zone.strategy
        && previous.plan.entries.map(\.item) == plan.entries.map(\.item)
        && previous.plan.waterfall == plan.waterfall)
  }

  /// Why `network` is switched off everywhere, if it is.
  private func switchedOff(_ network: NetworkID) -> String? {
    guard disabledNetworks.contains(network) else { return nil }
    let versionName = version.map { " '\($0)'" } ?? ""
    return "network '\(network)' switched off by configuration\(versionName) (disabledNetworks)"
  }

  /// Why an ad `adapter` loaded for `item` may no longer be shown under this setup: its line item
  /// is gone from the zone (from the configured zone and every arm of its experiments) or switched
  /// off, or its network's adapter is gone or replaced; `nil` when it stays showable.
  func withdrawalReason(of item: (network: NetworkID, placementID: String), adapter: (any RewardedAdapter)?)
    -> String?
  {
    let versionName = version.map { "configuration '\($0)'" } ?? "the configuration"
    guard
      let entry = plan.entries.firstIndex(where: {
        $0.item.network == item.network && $0.item.placementId == item.placementID
      })
    else {
      guard let other = otherArmsLineItem(item) else {
        return
          "line item \(item.network)/\(item.placementID) removed from zone '\(zone.id)' by \(versionName)"
      }
      // Still in the zone, in an arm other than the user's: the ad was loaded before the user
      // (or the user's arm) changed, and stays showable unless switched off.
      if let off = switchedOff(item.network) { return off }
      if other.disabled {
        return "line item switched off by configuration\(version.map { " '\($0)'" } ?? "") (disabled: true)"
      }
      guard let current = networkAdapters[item.network], let adapter, current === adapter else {
        return "network '\(item.network)' was unregistered"
      }
      return nil
    }
    if let off = plan.entries[entry].switchedOff { return off.reason }
    guard let current = adapters[entry], let adapter, current === adapter else {
      return "network '\(item.network)' was unregistered"
    }
    return nil
  }

  /// The line item `item` names in the configured zone or any arm of its experiments, when the
  /// user's variant does not use it.
  private func otherArmsLineItem(_ item: (network: NetworkID, placementID: String)) -> ZoneConfig.LineItem? {
    func named(_ candidate: ZoneConfig.LineItem) -> Bool {
      candidate.network == item.network && candidate.placementId == item.placementID
    }
    if let own = base.lineItems.first(where: named) { return own }
    for experiment in base.experiments {
      for arm in experiment.arms {
        if let found = arm.lineItems?.first(where: named) { return found }
      }
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
