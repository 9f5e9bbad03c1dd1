/// The mediation engine: one configuration, one set of adapters, one clock.
///
/// Create one per app (or per test), then get a ``RewardedAd`` per zone. The mediator makes an
/// adapter for every network in the registry, starts them, and runs each zone's waterfall.
/// ```swift
/// let mediator = try Mediator(config: config, registry: registry, scheduler: DispatchScheduler.main)
/// let ad = try mediator.rewardedAd(zone: "level_complete")
/// ad.load()
/// ```
public final class Mediator: Sendable {
  /// The configuration in use: the one given at `init`, then the last one ``apply(_:)`` accepted.
  public var config: MediationConfig { state.withLock { $0.config } }
  /// The registered adapters' info, sorted by network id; it follows the registry's changes.
  public var networks: [AdapterInfo] { context.adapterInfos.values.sorted { $0.id < $1.id } }
  let context: EngineContext

  /// A change made one at a time, in order (see ``TurnQueue``): zones see configurations, network
  /// changes and user changes in the order they came, and adapters see privacy changes in order.
  private enum Change {
    case apply(MediationConfig)
    case network(NetworkID, note: String)
    case user
    case privacy
  }

  /// What the lock guards.
  private struct State {
    var config: MediationConfig
    /// Every zone any configuration of this mediator named, removed ones included: a removed
    /// zone's show on screen finishes (its timers and signals hold the zone weakly), its
    /// ``RewardedAd`` handles fail clearly, and the zone is reused if a configuration brings it back.
    var zones: [String: ZoneController]
    var changes = TurnQueue<Change>()
    /// The privacy signals the adapters were last told of.
    var privacyTold = PrivacySettings()
    /// The registry's observation: it makes and starts adapters registered later.
    var registryObservation: Cancellable?
  }

  private let state: Locked<State>
  private let random: SeededRandom

  /// Creates a mediator and starts its adapters.
  ///
  /// - Parameters:
  ///   - config: The zones. Line items whose network is not in `registry` are skipped (and say so
  ///     in ``AdInfo/responses``), so a registry subset runs any configuration. Line items switched
  ///     off by the configuration (``MediationConfig/disabledNetworks``, ``ZoneConfig/LineItem/disabled``) are
  ///     never asked and end ``AdInfo/NetworkResponse/State/disabled``.
  ///   - registry: The adapters to use; each is made once for this mediator. The mediator follows
  ///     the registry's later changes (``AdapterRegistry/register(_:)``,
  ///     ``AdapterRegistry/unregister(_:)``).
  ///   - scheduler: The clock and executor for every delay and event.
  ///   - options: Display timeout and random seed.
  ///   - ledger: Where rewards are recorded before the app is told (see ``RewardLedger``); `nil`
  ///     delivers each reward once, with nothing to redeliver after a crash. Rewards still pending
  ///     from an earlier run are redelivered, marked ``Reward/isRedelivery``, on the scheduler's
  ///     executor once it yields: subscribe before yielding the executor. The initializer does not
  ///     touch the ledger: it is read on ``MediatorOptions/ledgerQueue``, and a ledger that cannot
  ///     be read gives every zone a ``RewardedAdEvent/Diagnostic/Kind/ledgerReadFailed`` diagnostic.
  /// - Throws: ``MediationError`` `invalidConfiguration` listing the problems in `config`, or naming
  ///   a network in ``MediatorOptions/networkStarts`` that is not registered.
  public init(
    config: MediationConfig, registry: AdapterRegistry, scheduler: any Scheduler,
    options: MediatorOptions = MediatorOptions(), ledger: (any RewardLedger)? = nil
  ) throws(MediationError) {
    try Self.check(config)
    let registrations = registry.all
    let registered = Set(registrations.map(\.info.id))
    if let unknown = options.networkStarts.keys.sorted().first(where: { !registered.contains($0) }) {
      throw MediationError(
        .invalidConfiguration,
        "MediatorOptions.networkStarts names '\(unknown)', which is not registered; registered: "
          + registered.sorted().map(\.rawValue).joined(separator: ", "))
    }
    let random = SeededRandom(seed: options.seed)
    self.random = random
    var adapters: [NetworkID: (adapter: any RewardedAdapter, info: AdapterInfo)] = [:]
    for registration in registrations {
      let adapter = Self.makeAdapter(registration, scheduler: scheduler, random: random)
      adapters[registration.info.id] = (adapter, adapter.info)
    }
    let context = EngineContext(scheduler: scheduler, options: options, adapters: adapters, ledger: ledger)
    self.context = context
    self.state = Locked(
      State(
        config: config,
        zones: Dictionary(
          uniqueKeysWithValues: config.zones.map {
            ($0.id, ZoneController(zone: $0, in: config, context: context))
          })))
    context.setZoneIDs(config.zones.map(\.id))
    updateRecording(for: config, zones: zoneControllers)
    context.startAdapters(placements: Self.placements(of: config))
    if ledger != nil {
      let zoneIDs = config.zones.map(\.id)
      scheduler.schedule(after: .zero) { [context] in context.redeliverPendingRewards(zoneIDs: zoneIDs) }
    }
    let observation = registry.observe { [weak self] change in self?.registryChanged(change) }
    state.withLock { $0.registryObservation = observation }
  }

  deinit { state.withLock { $0.registryObservation }?.cancel() }

  /// Throws `invalidConfiguration` with every path-precise problem of `config`.
  private static func check(_ config: MediationConfig) throws(MediationError) {
    let issues = config.validate()
    guard issues.isEmpty else {
      throw MediationError(.invalidConfiguration, issues.map(\.description).joined(separator: "; "))
    }
  }

  private static func makeAdapter(
    _ registration: AdapterRegistry.Registration, scheduler: any Scheduler, random: SeededRandom
  ) -> any RewardedAdapter {
    registration.makeAdapter(
      AdapterEnvironment(scheduler: scheduler, random: random.derived(registration.info.id.rawValue)))
  }

  /// Each network's placements in `config`, for its `start`.
  private static func placements(of config: MediationConfig) -> [NetworkID: [String]] {
    var placements: [NetworkID: [String]] = [:]
    for item in config.zones.flatMap(\.lineItems) {
      placements[item.network, default: []].append(item.placementId)
    }
    return placements
  }

  // MARK: Live configuration

  /// Applies a new configuration to the running mediator, zone by zone, without making anything
  /// again: adapters, their start-up and the app's ``RewardedAd`` handles carry over.
  ///
  /// - A load already running finishes on the plan it started with; the zone's next load uses the
  ///   new one. Each zone switches in one step.
  /// - A ready ad stays showable unless its line item is gone from its zone or switched off
  ///   (``ZoneConfig/LineItem/disabled``, ``MediationConfig/disabledNetworks``): then it is withdrawn — an
  ///   ``RewardedAdEvent/Diagnostic/Kind/adWithdrawn`` diagnostic saying why, then `expired` — and, with
  ///   auto-reload, loaded again as after any withdrawal.
  /// - Requests already sent to a network now switched off are cancelled; its line items end
  ///   ``AdInfo/NetworkResponse/State/disabled`` with the reason.
  /// - A zone the new configuration adds gets handles as usual. A zone it removes has its ready ad
  ///   withdrawn and its load cancelled; its handles' loads fail with ``MediationError/Code/unknownZone``
  ///   naming the zone and shows throw it, until a configuration brings the zone back.
  /// - A show on screen finishes on its own session: its reward is delivered once, through the
  ///   ledger as usual.
  ///
  /// Every zone whose plan changed (and every removed zone) gets a
  /// ``RewardedAdEvent/Diagnostic/Kind/configurationApplied`` diagnostic naming the configuration's
  /// ``MediationConfig/version`` and what changed. Safe to call from any thread; the work is a
  /// swap per zone, and the events are published on the scheduler's executor. Changes (an apply,
  /// a network registered or unregistered, a user id) are made one at a time, in the order they
  /// come: a call made while another thread is making one queues its change, which that thread
  /// makes next, and returns.
  ///
  /// - Throws: ``MediationError`` `invalidConfiguration` listing every problem of `config`, path
  ///   by path; the mediator then keeps running on its current configuration, unchanged.
  public func apply(_ config: MediationConfig) throws(MediationError) {
    try Self.check(config)
    make(.apply(config))
  }

  /// Makes `change` now, then any change other threads queued meanwhile; or, when another thread
  /// is making changes, queues it for that thread to make next. No lock is held while a change is
  /// made: zones and adapters are called from here.
  private func make(_ change: Change) {
    guard state.withLock({ $0.changes.startOrQueue(change) }) else { return }
    perform(change)
    while let change = state.withLock({ $0.changes.next() }) { perform(change) }
  }

  private func perform(_ change: Change) {
    switch change {
    case .apply(let config): applyNow(config)
    case .network(let network, let note): reconfigureZones(naming: network, note: note)
    case .user: resolveArmsAgain()
    case .privacy: tellAdaptersOfPrivacy()
    }
  }

  private func applyNow(_ config: MediationConfig) {
    var (old, zones) = state.withLock { ($0.config, $0.zones) }
    let version = config.version.map { "'\($0)'" } ?? "(no version)"
    let plan = LiveChange(from: old, to: config)
    context.updatePlacements(Self.placements(of: config))
    for zone in config.zones {
      let summary = plan.summary(ofZone: zone.id)
      if let controller = zones[zone.id] {
        controller.reconfigure(zone, in: config, change: summary.map { "configuration \(version): \($0)" })
      } else {
        zones[zone.id] = ZoneController(zone: zone, in: config, context: context)
        if let summary { context.announce(zone.id, "configuration \(version): \(summary)") }
      }
    }
    for id in plan.removedZones {
      zones[id]?.retire(reason: "zone '\(id)' was removed by configuration \(version)")
    }
    state.withLock {
      $0.config = config
      $0.zones = zones
    }
    updateRecording(for: config, zones: Array(zones.values))
    context.setZoneIDs(config.zones.map(\.id))
  }

  /// Follows the registry: makes and starts a network registered later, or drops one
  /// unregistered, then has every zone rebuild its plan (the zones that name the network say so).
  ///
  /// The network's adapter is made, started or dropped before the zones are reconfigured.
  private func registryChanged(_ change: AdapterRegistry.Change) {
    let network: NetworkID
    let note: String
    switch change {
    case .registered(let registration):
      network = registration.info.id
      let adapter = Self.makeAdapter(registration, scheduler: context.scheduler, random: random)
      let start = context.addNetwork(network, adapter: adapter, info: adapter.info)
      start()
      note = "network '\(network)' registered"
    case .unregistered(let id):
      network = id
      let refuseWaiting = context.removeNetwork(id, reason: "network '\(id)' was unregistered")
      refuseWaiting()
      note = "network '\(id)' unregistered"
    }
    make(.network(network, note: note))
  }

  /// Has every zone rebuild its plan after `network` was registered or unregistered; the zones
  /// that name it publish `note`.
  private func reconfigureZones(naming network: NetworkID, note: String) {
    let (config, zones) = state.withLock { ($0.config, $0.zones) }
    for zone in config.zones {
      let namesNetwork = zone.lineItems.contains { $0.network == network }
      zones[zone.id]?.reconfigure(zone, in: config, change: namesNetwork ? note : nil)
    }
  }

  /// The scheduler every delay and event of this mediator goes through, for MediationKit's own
  /// tools and tests; an app keeps the one it passed to `init`.
  package var engineScheduler: any Scheduler { context.scheduler }

  /// The facade for one zone.
  /// - Throws: ``MediationError`` `unknownZone`, listing the known zones.
  public func rewardedAd(zone id: String) throws(MediationError) -> RewardedAd {
    let (controller, config) = state.withLock { live in
      (live.config.zones.contains { $0.id == id } ? live.zones[id] : nil, live.config)
    }
    guard let controller else {
      throw MediationError.unknownZone(id, known: config.zones.map(\.id))
    }
    return RewardedAd(controller: controller, hub: context.hub)
  }

  /// Observes every zone's events, in order, on the scheduler's executor.
  ///
  /// - Returns: A handle that stops the observation.
  @discardableResult
  public func observeEvents(_ handler: @escaping @Sendable (Mediator.ZoneEvent) -> Void) -> Cancellable {
    context.hub.subscribe(handler)
  }

  /// Each adapter's start-up status, by network id. All adapters start in parallel when the
  /// mediator is created, each within ``MediatorOptions/startTimeout``.
  public var adapterStatuses: [Mediator.AdapterStatus] { context.adapterStatuses }

  /// The user's privacy signals, forwarded to every adapter with each request. A change also
  /// reaches every adapter at once, through ``RewardedAdapter/privacyDidChange(_:)``, before the
  /// setter returns; it applies to loads that start after it. (While another thread is telling
  /// the adapters of its change, that thread tells them of this one right after, so every adapter
  /// sees the changes in order and ends on the latest.)
  public var privacy: PrivacySettings {
    get { context.privacy }
    set { updatePrivacy { $0 = newValue } }
  }

  /// Changes the privacy signals in one step (so two threads changing different fields lose
  /// neither change) and, if they changed, tells every adapter at once, in network-id order.
  ///
  /// `change` may run more than once: again on the newer signals when another thread changed
  /// them meanwhile.
  public func updatePrivacy(_ change: (inout PrivacySettings) -> Void) {
    guard context.updatePrivacy(change) else { return }
    make(.privacy)
  }

  /// Tells every adapter, in network-id order, of the privacy signals now in use, unless they
  /// were told of them last.
  private func tellAdaptersOfPrivacy() {
    let privacy = context.privacy
    let changed = state.withLock { state -> Bool in
      guard state.privacyTold != privacy else { return false }
      state.privacyTold = privacy
      return true
    }
    guard changed else { return }
    for (_, adapter) in context.adapters.sorted(by: { $0.key < $1.key }) {
      adapter.privacyDidChange(privacy)
    }
  }

  /// The longest ``userID`` accepted, in UTF-16 code units (AppLovin's documented limit for its
  /// user identifier; the callback verifiers reject longer ones).
  public static let maxUserIDLength = 8192

  /// The app's id for the current user, forwarded to every adapter with each show
  /// (``AdapterShowRequest/userID``) so networks pass it to their server-side reward callbacks
  /// (MAX's `{USER_ID}`, Google's `user_id`). `nil` until ``setUserID(_:)``.
  public var userID: String? { context.userID }

  /// Sets the app's id for the current user (like MAX's `ALSdk.userIdentifier`). Set it once,
  /// before the first show; a change applies to shows that start after it.
  ///
  /// It also picks the user's arms of the zones' experiments (``ZoneConfig/experiments``): each
  /// zone's next load uses the arms' line items, strategy and auction timeout, and every ad it
  /// loads reports them (``AdInfo/experimentArms``). The assignment is a pure function of the user
  /// id, the same in every launch and process. Without a user id (before this call, or after
  /// `nil`) a zone runs as configured, without its experiments' overrides, and reports no arm.
  /// A change of user is applied like a configuration: a load in flight finishes on the plan it
  /// started with, and a ready ad from the previous arm stays showable.
  ///
  /// - Parameter userID: The id, at most ``maxUserIDLength`` UTF-16 code units; `nil` to clear it.
  /// - Throws: ``MediationError`` `invalidUserID` when the id is too long; the previous id is kept.
  public func setUserID(_ userID: String?) throws(MediationError) {
    if let userID, userID.utf16.count > Self.maxUserIDLength {
      throw MediationError(
        .invalidUserID,
        "user id is \(userID.utf16.count) UTF-16 code units long; at most \(Self.maxUserIDLength) are allowed"
      )
    }
    context.userID = userID
    make(.user)
  }

  /// Has every zone with experiments resolve its arms for the user now set.
  private func resolveArmsAgain() {
    let (config, zones) = state.withLock { ($0.config, $0.zones) }
    for zone in config.zones where !zone.experiments.isEmpty { zones[zone.id]?.userChanged(in: config) }
    updateRecording(for: config, zones: Array(zones.values))
  }

  /// The adapter this mediator made for `network`, if it is registered, for MediationKit's own
  /// test kit, tools and tests that inspect an adapter or its SDK. The engine alone calls its
  /// methods.
  package func madeAdapter(for network: NetworkID) -> (any RewardedAdapter)? { context.adapters[network] }

  /// The id of the auction started last: 1, 2, 3… in the order loads start (0 before the first),
  /// for the simulator, which reads it when a zone publishes `loading` (before any ``AdInfo``).
  package var latestAuctionID: UInt64 { context.lastAuctionID }

  /// Every zone the mediator runs, in the configuration's order (removed zones last, by id).
  var zoneControllers: [ZoneController] {
    state.withLock { state in
      let order = state.config.zones.map(\.id)
      return order.compactMap { state.zones[$0] }
        + state.zones.keys.filter { !order.contains($0) }.sorted().compactMap { state.zones[$0] }
    }
  }

  /// Whether any zone's ad is on screen.
  public var isAnyAdShowing: Bool { context.screenHolder != nil }
}
