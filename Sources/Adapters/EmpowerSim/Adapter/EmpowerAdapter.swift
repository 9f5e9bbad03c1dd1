import MediationKit
import MediationKitSimulation

/// MediationKit's adapter for Empower: drives an ``EMAManager`` and translates its zone statuses.
///
/// - `load` seeds the simulated dashboard for a placement the first time it sees it (zone id =
///   placement id, reward and base eCPM from the request, auto-reload off because the core owns
///   caching) — simulation wiring a real integration gets from the Empower dashboard — sets the
///   request's privacy signals on the manager's ``EMASettings`` (the vendor's privacy API), then
///   calls `loadRewardedAd(zoneId:delegate:)` through its simulation-wiring variant
///   ``EMAManager/loadRewardedAd(zoneId:delegate:simulation:)``, which carries the request's
///   auction id (it keys the load's draws; auction id 0 means none) and the token of a won bid.
/// - `bid` asks the simulated Empower server for a bid
///   (``EMAManager/requestBid(zoneId:auctionID:completion:)``): the price is the one a load of the
///   request would fill at; no demand or a child-directed user is "no bid" (``AdapterError/Kind/noFill``).
/// - `quote` (``SimulatedNetwork``) answers what a load of the request would do, without loading.
/// - `.ready` completes the load with a new single-use ``AdapterAd`` priced at the SDK's eCPM;
///   `.failed` completes it with an ``AdapterError`` whose kind maps the ``EMAError`` code.
/// - While an ad shows: `.shown` → ``AdapterSignal/displayed``, `.rewarded(type, amount)` →
///   ``AdapterSignal/rewarded(_:)``, `.closed` and `.skipped` → ``AdapterSignal/dismissed``,
///   clicks (``AdClickDelegate``) → ``AdapterSignal/clicked``, a refused show →
///   ``AdapterSignal/showFailed(_:)``.
///
/// The SDK keys everything by zone id and holds one ad per zone, so the adapter keeps one
/// ``ZoneRouter`` per zone, whose ``ZoneDelegate`` is the zone's delegate; each load is one
/// ``EmpowerAd`` object, its cancellation handle and then the ad. Loads of a zone that is already
/// loading join that load; loads of a zone that already holds an ad get that same ad, and
/// whichever of them is shown first consumes it: the others are then withdrawn at once
/// (``AdapterWithdrawal/Kind/invalidated``, through each load's
/// ``AdapterLoadRequest/sink``), so the core never keeps one ready to fail at its show.
/// A zone is destroyed once nothing needs it any more: no load pending, no show on screen, and
/// every ad it filled discarded by the core (shown or not), so a core that loads again as soon as
/// a show ends keeps the zone.
public final class EmpowerAdapter: SimulatedNetwork, ConsentReadBack {
  /// The network and versions this adapter drives.
  public let info: AdapterInfo
  /// The SDK instance the adapter drives (its own, not ``EMAManager/shared``).
  public let manager: EMAManager
  private let routers = Locked(RouterTable())

  /// Creates an adapter driving `manager`.
  ///
  /// - Parameter manager: The SDK instance; give each adapter its own. Its scheduler also times
  ///   the simulated start.
  public init(manager: EMAManager) {
    self.info = EmpowerNetwork.info
    self.manager = manager
  }

  /// Drops the loads still waiting on a zone, as the routers held only by this adapter would: a
  /// waiting load holds its ``EmpowerAd``, which holds the zone's router.
  deinit {
    for router in routers.withLock({ $0.all }) { router.abandonLoads() }
  }

  /// Starts the SDK: completes successfully after the profile's simulated init latency.
  public func start(
    _ request: AdapterStartRequest, completion: @escaping @Sendable (Result<Void, AdapterError>) -> Void
  ) {
    manager.scheduler.schedule(after: manager.profile.initLatency) { completion(.success(())) }
  }

  /// Loads the zone `request.placementID` and completes on its next `.ready` or `.failed`.
  ///
  /// - Returns: A handle that stops listening for this load, and destroys the zone when nothing
  ///   else needs it.
  ///
  /// With ``AdapterLoadRequest/bid``, the load fills at the bid's price after a short latency; a
  /// bad or already used token fails with ``AdapterError/Kind/invalidRequest``.
  public func load(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void
  ) -> Cancellable {
    let router = router(for: request)
    let ad = router.addLoad(completion, sink: request.sink)
    // Forwards the request's privacy signals through Empower's privacy API, and loads under them.
    manager.loadRewardedAd(
      slot: router.slot, delegate: router.delegate,
      simulation: EMASimulatedRequest(auctionID: Self.auctionKey(request), bidToken: request.bid?.token),
      privacy: request.privacy)
    return Cancellable { ad.cancel() }
  }

  /// Forwards changed privacy signals through Empower's privacy API at once.
  public func privacyDidChange(_ privacy: PrivacySettings) { manager.settings.privacy = privacy }

  /// The consent strings the manager's ``EMASettings`` hold.
  public var consentInSDK: IABConsent { manager.settings.iabConsent }

  /// Asks Empower for a bid on `request`: after the profile's bid latency, the price a load of the
  /// request would fill at, or ``AdapterError/Kind/noFill`` for no bid.
  ///
  /// - Returns: A handle that withdraws the request; the completion is then never called.
  public func bid(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterBid, AdapterError>) -> Void
  ) -> Cancellable {
    _ = router(for: request)
    manager.settings.privacy = request.privacy  // Empower's privacy API, all three signals at once
    return manager.requestBid(zoneId: request.placementID, auctionID: Self.auctionKey(request)) { result in
      switch result {
      case .success(let bid): completion(.success(AdapterBid(price: bid.price, token: bid.token)))
      case .failure(let error): completion(.failure(ZoneRouter.adapterError(error)))
      }
    }
  }

  /// What a load of `request` would do — whether it fills and at what eCPM — without loading,
  /// drawing or configuring anything.
  ///
  /// Exact for a placement that is neither loading nor holding an unshown ad (a load would join or
  /// re-report those). A request with ``AdapterLoadRequest/bid`` quotes the auction's own draw,
  /// which is the bid's price when the bid was made under the same privacy signals.
  public func quote(_ request: AdapterLoadRequest) -> SimulatedQuote {
    let outcome = manager.outcome(
      zoneId: request.placementID, auctionID: Self.auctionKey(request), privacy: request.privacy
    ) { Self.dashboardEntry(for: request) }
    switch outcome {
    case .success(let ecpm): return SimulatedQuote(fills: true, ecpm: ecpm)
    case .failure: return SimulatedQuote(fills: false, ecpm: 0)
    }
  }

  // MARK: Helpers

  /// The key of the request's draws: its auction id, or `nil` (the zone's load count) for the
  /// default auction id 0.
  private static func auctionKey(_ request: AdapterLoadRequest) -> UInt64? {
    request.auctionID == 0 ? nil : request.auctionID
  }

  /// The dashboard entry the adapter configures for a placement it has not seen. The SDK takes a
  /// whole reward amount: the request's is rounded, and one no `Int` holds is clamped, not a trap.
  static func dashboardEntry(for request: AdapterLoadRequest) -> EmpowerZoneSettings {
    EmpowerZoneSettings(
      zoneId: request.placementID, rewardType: request.reward.type,
      rewardAmount: Int(roundingClamped: request.reward.amount), baseECPM: request.ecpm, autoReload: false)
  }

  /// The router of the request's placement, made the first time the adapter sees the placement.
  ///
  /// A new router configures the placement's dashboard entry (simulation wiring) before anyone
  /// can use it; the SDK never drops a dashboard entry, so loads through an existing router need
  /// not check it again.
  private func router(for request: AdapterLoadRequest) -> ZoneRouter {
    let zoneId = request.placementID
    if let router = routers.withLock({ $0.router(zoneId) }) { return router }
    let slot = manager.slot(zoneId)
    manager.configureZoneIfAbsent(slot: slot) { Self.dashboardEntry(for: request) }
    return routers.withLock { routers in
      // Another thread may have made it meanwhile.
      routers.router(zoneId) ?? routers.add(ZoneRouter(zoneId: zoneId, slot: slot, manager: manager))
    }
  }

  /// How many placements have a status router, and the loads and ads they track, for
  /// tests that check nothing grows with the number of cycles.
  var routerBookkeeping: (routers: Int, pendingLoads: Int, heldAds: Int) {
    let routers = routers.withLock { $0.all }
    let counts = routers.map(\.counts)
    return (routers.count, counts.reduce(0) { $0 + $1.loads }, counts.reduce(0) { $0 + $1.heldAds })
  }
}

/// The adapter's status routers by placement (zone) id.
///
/// The placement a load asks for is looked up first against the placement of the previous
/// lookup: a zone loads the same placement over and over, and comparing two equal strings is far
/// cheaper than hashing one. Any other placement goes through the dictionary.
struct RouterTable {
  private var byZoneId: [String: ZoneRouter] = [:]
  /// The router the last lookup found.
  private var recent: ZoneRouter?

  /// Every router.
  var all: [ZoneRouter] { Array(byZoneId.values) }

  /// The router of `zoneId`, if there is one.
  mutating func router(_ zoneId: String) -> ZoneRouter? {
    if let recent, recent.zoneId == zoneId { return recent }
    guard let found = byZoneId[zoneId] else { return nil }
    recent = found
    return found
  }

  /// Adds `router` for its placement; returns it.
  mutating func add(_ router: ZoneRouter) -> ZoneRouter {
    byZoneId[router.zoneId] = router
    recent = router
    return router
  }
}
