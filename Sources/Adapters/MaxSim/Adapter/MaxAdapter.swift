import MediationKit
import MediationKitSimulation

/// AppLovin MAX in MediationKit: registration and info.
public enum MaxNetwork {
  /// The network id line items use: `"max"`.
  public static let id: NetworkID = "max"

  /// The adapter's network, versions and capabilities.
  public static let info = AdapterInfo(
    id: id, displayName: "AppLovin MAX", adapterVersion: "1.0.0", sdkVersion: ALSdk.version,
    adapterAPIVersion: SemanticVersion(2, 1, 0),
    supportedSDKVersions: SemanticVersion(13, 0)..<SemanticVersion(14, 0),
    capabilities: [.rewarded, .bidding, .impressionRevenue, .serverSideReward])

  /// A registration whose factory gives each mediator a ``MaxAdapter`` with its own ``ALSdk``
  /// instance on the mediator's scheduler and random stream.
  ///
  /// - Parameters:
  ///   - profile: How the simulated MAX network behaves.
  ///   - wallClockMilliseconds: The wall clock the simulated server stamps S2S callbacks with
  ///     (`{IMPRESSION_TIMESTAMP}`); the system's by default.
  ///   - serverCallbacks: Where the simulated server sends S2S callbacks; `nil` (the default)
  ///     only records them (``ALSdk/simulatedServerCallbacks``).
  /// - Returns: The registration to add to an ``AdapterRegistry``.
  public static func registration(
    profile: MaxBehaviorProfile = .default,
    wallClockMilliseconds: @escaping @Sendable () -> Int64 = MediatorOptions.systemWallClock,
    serverCallbacks: (any ServerCallbackSender)? = nil
  ) -> AdapterRegistry.Registration {
    AdapterRegistry.Registration(info: info) { environment in
      MaxAdapter(
        sdk: ALSdk(
          scheduler: environment.scheduler, random: environment.random, profile: profile,
          wallClockMilliseconds: wallClockMilliseconds, serverCallbacks: serverCallbacks))
    }
  }
}

/// Translates the (simulated) AppLovin MAX SDK into MediationKit's adapter protocol.
///
/// MAX keeps one shared `MARewardedAd` per ad unit, so the adapter keeps one router per ad
/// unit: it is that instance's delegate, answers every pending load of the ad unit when it
/// loads or fails, and routes display callbacks to the show of the `MAAd` they carry. It only
/// translates: duplicate and late callbacks are forwarded as they come.
///
/// The `MARewardedAd` holds one ad, the newest: loads of the ad unit answered with the same ad
/// share it, a show uses it up, and a load of another auction replaces it. Whenever the ad unit
/// no longer holds the ad a load got — another load's show used it, or a newer ad replaced it —
/// that load's ad is withdrawn at once (``AdapterWithdrawal/Kind/invalidated``, through its
/// ``AdapterLoadRequest/sink``), so the core never keeps one ready to fail at its show.
///
/// Each request's privacy signals go to the SDK through `ALPrivacySettings` (of this adapter's
/// own ``ALSdk`` instance), and its auction id, line item and reward through the simulation
/// wiring ``MARewardedAd/load(simulating:)``, so a load's outcome is a pure function of the seed,
/// the ad unit, the auction and the privacy signals, which ``quote(_:)`` predicts.
public final class MaxAdapter: SimulatedNetwork, ConsentReadBack {
  /// How long MediationKit may keep a loaded MAX ad (MAX reloads older ones itself).
  public static let adLifetime: Duration = .seconds(4 * 60 * 60)

  /// The network and versions this adapter drives (``MaxNetwork/info`` by default).
  public let info: AdapterInfo
  /// The SDK instance this adapter drives; ``MaxNetwork/registration(profile:)`` makes one per
  /// mediator, never the process default.
  public let sdk: ALSdk
  private let routers = Locked(Routers())

  /// The router of each ad unit, and the last one asked for. Performance: a zone has one MAX ad
  /// unit, so comparing its id costs less than hashing it on every load and bid.
  private struct Routers {
    var byAdUnit: [String: MaxAdUnitRouter] = [:]
    var last: (adUnitIdentifier: String, router: MaxAdUnitRouter)?
  }

  /// Creates an adapter driving `sdk`.
  public init(sdk: ALSdk, info: AdapterInfo = MaxNetwork.info) {
    self.sdk = sdk
    self.info = info
  }

  /// Initializes the SDK, warming up the request's ad units.
  public func start(
    _ request: AdapterStartRequest, completion: @escaping @Sendable (Result<Void, AdapterError>) -> Void
  ) {
    let configuration = ALSdkInitializationConfiguration(sdkKey: "mediationkit-sim") { builder in
      builder.mediationProvider = "mediationkit"
      builder.adUnitIdentifiers = request.placementIDs
    }
    sdk.initialize(with: configuration) { _ in completion(.success(())) }
  }

  /// Loads the ad unit `request.placementID` through its shared `MARewardedAd`.
  public func load(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void
  ) -> Cancellable {
    forwardPrivacy(request.privacy)
    return router(for: request.placementID).load(request, completion: completion)
  }

  /// Asks MAX for a bid: after a seeded bid latency (``MaxBehaviorProfile/bidLatencyMedian``),
  /// the price a load of this auction fills at and a single-use token, or a `.noFill` error
  /// when it would not fill or the user is child-directed (then at once). A load whose request
  /// carries the bid fills at its price; a bad, expired or reused token fails with
  /// `.invalidRequest`.
  public func bid(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterBid, AdapterError>) -> Void
  ) -> Cancellable {
    forwardPrivacy(request.privacy)
    return router(for: request.placementID).rewardedAd.requestBid(
      auctionID: request.auctionID, lineItemECPM: request.ecpm
    ) { result in
      switch result {
      case .bid(let price, let token):
        completion(.success(AdapterBid(price: price, token: token)))
      case .noBid(let error):
        completion(.failure(AdapterError(.noFill, vendorCode: error.code.rawValue, message: error.message)))
      }
    }
  }

  /// What a ``load(_:completion:)`` of `request` would do — whether it fills and at what eCPM —
  /// computed from the same keyed draws, without side effects. `ecpm` is 0 when it would not
  /// fill. A request's ``AdapterLoadRequest/bid`` plays no part: MAX only bids what it would fill.
  public func quote(_ request: AdapterLoadRequest) -> SimulatedQuote {
    let market = sdk.market(
      adUnitIdentifier: request.placementID, auctionID: request.auctionID, lineItemECPM: request.ecpm,
      privacy: MaxPrivacy(request.privacy))
    return SimulatedQuote(fills: market.fills, ecpm: market.fills ? market.ecpm : 0)
  }

  /// Forwards changed privacy signals to the SDK at once.
  public func privacyDidChange(_ privacy: PrivacySettings) { forwardPrivacy(privacy) }

  /// The consent strings the SDK instance holds, read back from its privacy settings.
  public var consentInSDK: IABConsent { sdk.privacySettings.current.consentStrings }

  /// Sets the SDK instance's privacy signals to `privacy`'s through the vendor's
  /// `ALPrivacySettings` API (GDPR consent, CCPA do-not-sell, age-restricted user) and the IAB
  /// strings (which the real SDK reads from the CMP's keys). Nothing is written when they already
  /// match, the usual case.
  private func forwardPrivacy(_ privacy: PrivacySettings) {
    let wanted = MaxPrivacy(privacy)
    let settings = sdk.privacySettings
    guard settings.current != wanted else { return }
    if let hasUserConsent = wanted.hasUserConsent { settings.setHasUserConsent(hasUserConsent) }
    if let doNotSell = wanted.doNotSell { settings.setDoNotSell(doNotSell) }
    settings.setIsAgeRestrictedUser(wanted.isAgeRestrictedUser)
    // The vendor API cannot unset a signal ("not asked"); the simulation can.
    if settings.current != wanted { settings.replace(with: wanted) }
  }

  /// Internal sizes, for tests that check nothing grows with the number of cycles: ad-unit
  /// routers, and over all of them the loads waiting for the SDK, the shows kept for late
  /// callbacks and the ads the core holds unshown.
  var bookkeeping: (routers: Int, pendingLoads: Int, shows: Int, heldAds: Int) {
    let all = routers.withLock { Array($0.byAdUnit.values) }
    return all.reduce(into: (all.count, 0, 0, 0)) { sum, router in
      let counts = router.bookkeeping
      sum.1 += counts.pendingLoads
      sum.2 += counts.shows
      sum.3 += counts.heldAds
    }
  }

  private func router(for adUnitIdentifier: String) -> MaxAdUnitRouter {
    let (router, isNew) = routers.withLock { routers -> (MaxAdUnitRouter, Bool) in
      if let last = routers.last, last.adUnitIdentifier == adUnitIdentifier { return (last.router, false) }
      if let existing = routers.byAdUnit[adUnitIdentifier] {
        routers.last = (adUnitIdentifier, existing)
        return (existing, false)
      }
      let made = MaxAdUnitRouter(
        rewardedAd: MARewardedAd.shared(withAdUnitIdentifier: adUnitIdentifier, sdk: sdk))
      routers.byAdUnit[adUnitIdentifier] = made
      routers.last = (adUnitIdentifier, made)
      return (made, true)
    }
    if isNew { router.attach() }
    return router
  }

  /// The adapter error for a MAX load failure: `204` → no fill, `-1001` → timeout, …; the MAX
  /// code is kept as `vendorCode`.
  public static func loadError(_ error: MAError) -> AdapterError {
    let kind: AdapterError.Kind =
      switch error.code {
      case .noFill: .noFill
      case .networkTimeout: .timeout
      case .networkError, .noNetwork: .networkError
      case .invalidAdUnitIdentifier, .simulatedInvalidBidToken: .invalidRequest
      case .unspecified, .adLoadFailed, .adDisplayFailed, .fullscreenAdAlreadyShowing, .fullscreenAdNotReady,
        .fullscreenAdInvalidViewController:
        .internalError
      }
    return AdapterError(kind, vendorCode: error.code.rawValue, message: error.message)
  }

  /// The adapter error for a MAX display failure: `-23` → another ad showing, `-24` → not ready,
  /// …; the MAX code is kept as `vendorCode`.
  public static func displayError(_ error: MAError) -> AdapterError {
    let kind: AdapterError.Kind =
      switch error.code {
      case .fullscreenAdAlreadyShowing: .anotherAdShowing
      case .fullscreenAdNotReady: .notReady
      case .fullscreenAdInvalidViewController: .invalidRequest
      case .unspecified, .noFill, .adLoadFailed, .adDisplayFailed, .networkError, .networkTimeout, .noNetwork,
        .invalidAdUnitIdentifier, .simulatedInvalidBidToken:
        .internalError
      }
    return AdapterError(kind, vendorCode: error.code.rawValue, message: error.message)
  }

  /// MediationKit's precision for a MAX `revenuePrecision` string (`"undefined"` counts as
  /// estimated).
  public static func precision(_ revenuePrecision: String) -> AdapterSignal.RevenuePrecision {
    switch revenuePrecision {
    case "exact": .exact
    case "publisher_defined": .publisherDefined
    default: .estimated
    }
  }
}

/// The delegate of one ad unit's shared `MARewardedAd`: routes its callbacks to the loads and
/// shows of that ad unit.
final class MaxAdUnitRouter: MARewardedAdDelegate, MAAdRevenueDelegate, Sendable {
  typealias LoadCompletion = @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void

  private struct ShowRoute {
    let ad: MAAd
    let signals: AdapterSignal.Sink
    var awaitingStart = true
    var failed = false
  }

  private struct PendingLoad {
    let ticket: UInt64
    let auctionID: UInt64
    let completion: LoadCompletion
    let sink: AdapterSignal.Sink
  }

  /// A load's ad handed to the core and neither shown, withdrawn nor discarded.
  private struct HeldAd {
    let ticket: UInt64
    let ad: MAAd
    let sink: AdapterSignal.Sink
  }

  private struct State {
    var nextTicket: UInt64 = 0
    /// Loads waiting for the SDK, answered by the callback of their auction's load.
    var pendingLoads: [PendingLoad] = []
    /// The ad of the latest `didLoad`: the one the `MARewardedAd` holds, unless already shown.
    var loadedAd: MAAd?
    /// Recent shows, newest last; kept after dismissal so late callbacks still reach their show.
    var shows: [ShowRoute] = []
    /// The ads the core holds unshown (a handful: at most a few per zone on this ad unit).
    var held: [HeldAd] = []
  }

  /// How many finished shows keep their route for late callbacks.
  private static let showHistory = 16

  let rewardedAd: MARewardedAd
  private let state = Locked(State())

  init(rewardedAd: MARewardedAd) {
    self.rewardedAd = rewardedAd
  }

  func attach() {
    rewardedAd.delegate = self
    rewardedAd.revenueDelegate = self
  }

  func load(_ request: AdapterLoadRequest, completion: @escaping LoadCompletion) -> Cancellable {
    let ticket = state.withLock { state in
      let ticket = state.nextTicket
      state.nextTicket += 1
      state.pendingLoads.append(
        PendingLoad(
          ticket: ticket, auctionID: request.auctionID, completion: completion,
          sink: request.sink))
      return ticket
    }
    let amount = request.reward.amount.rounded()
    rewardedAd.load(
      simulating: MASimulatedLoad(
        auctionID: request.auctionID, lineItemECPM: request.ecpm,
        rewardAmount: amount.isFinite && abs(amount) < 1e15 ? Int(amount) : nil,
        rewardLabel: request.reward.type, bidToken: request.bid?.token,
        serverCallback: request.serverCallback.map {
          MASimulatedServerCallbackSettings(urlTemplate: $0.url, eventKey: $0.eventKey ?? "")
        }))
    // Weak: a handle the core keeps does not keep the router alive.
    return Cancellable { [weak self] in self?.cancelLoad(ticket) }
  }

  /// Forgets the pending load `ticket`: the core gave up on it.
  fileprivate func cancelLoad(_ ticket: UInt64) {
    state.withLock { state in state.pendingLoads.removeAll { $0.ticket == ticket } }
  }

  func show(
    _ ad: MAAd, ticket: UInt64, request: AdapterShowRequest, presenter: any AdPresenting,
    signals: AdapterSignal.Sink
  ) {
    let replaced = state.withLock { state -> Bool in
      state.held.removeAll { $0.ticket == ticket }
      if let loaded = state.loadedAd, loaded !== ad { return true }
      state.shows.append(ShowRoute(ad: ad, signals: signals))
      if state.shows.count > Self.showHistory {
        state.shows.removeFirst(state.shows.count - Self.showHistory)
      }
      return false
    }
    if replaced {
      // The shared MARewardedAd now holds a newer ad; showing would display that one instead.
      signals.send(
        .showFailed(
          AdapterError(
            .notReady, vendorCode: MAErrorCode.fullscreenAdNotReady.rawValue,
            message: "MAX ad unit \(ad.adUnitIdentifier) no longer holds this ad")))
      return
    }
    // The user id goes to the SDK as the vendor's `ALSdk.userIdentifier` (for S2S callbacks).
    if let sdk = rewardedAd.sdkInstance, sdk.userIdentifier != request.userID {
      sdk.userIdentifier = request.userID
    }
    rewardedAd.show(forPlacement: request.zoneID, customData: request.customData, viewController: presenter)
    // A show that started took the ad unit's one ad: the other loads that got it are withdrawn.
    withdrawGone(
      because: "MAX ad unit \(ad.adUnitIdentifier) holds one ad, and a show of another load of it used it")
  }

  /// The core released the ad of load `ticket` (shown or not).
  fileprivate func release(_ ticket: UInt64) {
    state.withLock { state in state.held.removeAll { $0.ticket == ticket } }
  }

  /// Withdraws every held ad the ad unit no longer holds: all of them when it is not ready, else
  /// those of another ad than the latest loaded. Decided under the router's lock, so a `didLoad`
  /// on another thread is either seen whole or not at all.
  private func withdrawGone(because message: String) {
    let gone = state.withLock { state -> [AdapterSignal.Sink] in
      guard !state.held.isEmpty else { return [] }
      let current = rewardedAd.isReady ? state.loadedAd : nil
      var gone: [AdapterSignal.Sink] = []
      state.held.removeAll { held in
        guard held.ad !== current else { return false }
        gone.append(held.sink)
        return true
      }
      return gone
    }
    for sink in gone { sink.withdraw(AdapterWithdrawal(.invalidated, message: message)) }
  }

  /// The show `ad`'s callbacks belong to: the latest show of that ad that did not fail; a
  /// placeholder ad (a `-24` failure) goes to the latest show not yet started.
  private func signals(for ad: MAAd, starting: Bool = false, failing: Bool = false) -> AdapterSignal.Sink? {
    state.withLock { state in
      let index =
        state.shows.lastIndex { $0.ad === ad && !$0.failed }
        ?? state.shows.lastIndex { $0.awaitingStart }
      guard let index else { return nil }
      if starting { state.shows[index].awaitingStart = false }
      if failing { state.shows[index].failed = true }
      return state.shows[index].signals
    }
  }

  // MARK: MAAdDelegate

  /// Takes the pending loads of `auctionID` (all of them, in the usual case of one auction).
  private static func takeLoads(of auctionID: UInt64?, from state: inout State) -> [PendingLoad] {
    var taken: [PendingLoad] = []
    if state.pendingLoads.allSatisfy({ $0.auctionID == auctionID }) {
      swap(&taken, &state.pendingLoads)
      return taken
    }
    var kept: [PendingLoad] = []
    for load in state.pendingLoads {
      if load.auctionID == auctionID { taken.append(load) } else { kept.append(load) }
    }
    state.pendingLoads = kept
    return taken
  }

  /// Internal sizes, for tests that check nothing grows with the number of cycles.
  var bookkeeping: (pendingLoads: Int, shows: Int, heldAds: Int) {
    state.withLock { ($0.pendingLoads.count, $0.shows.count, $0.held.count) }
  }

  func didLoad(_ ad: MAAd) {
    let (waiting, replaced) = state.withLock { state in
      let replaced = state.loadedAd.map { $0 !== ad } ?? false
      state.loadedAd = ad
      let waiting = Self.takeLoads(of: ad.simulatedAuctionID, from: &state)
      for load in waiting {
        state.held.append(HeldAd(ticket: load.ticket, ad: ad, sink: load.sink))
      }
      return (waiting, replaced)
    }
    if replaced {
      withdrawGone(
        because:
          "MAX ad unit \(ad.adUnitIdentifier) replaced this ad with a newer one (a load of another auction)")
    }
    let ecpm = ad.ecpm > 0 ? ad.ecpm : nil
    for load in waiting {
      let adapterAd = MaxAdapterAd(ad: ad, ticket: load.ticket, router: self)
      load.completion(.success(AdapterLoadedAd(ad: adapterAd, ecpm: ecpm, lifetime: MaxAdapter.adLifetime)))
    }
  }

  func didFailToLoadAd(forAdUnitIdentifier adUnitIdentifier: String, withError error: MAError) {
    let waiting = state.withLock { Self.takeLoads(of: error.simulatedAuctionID, from: &$0) }
    guard !waiting.isEmpty else { return }
    let adapterError = MaxAdapter.loadError(error)
    for load in waiting { load.completion(.failure(adapterError)) }
  }

  func didDisplay(_ ad: MAAd) { signals(for: ad, starting: true)?.send(.displayed) }

  func didClick(_ ad: MAAd) { signals(for: ad)?.send(.clicked) }

  func didHide(_ ad: MAAd) { signals(for: ad, starting: true)?.send(.dismissed) }

  func didFail(toDisplay ad: MAAd, withError error: MAError) {
    signals(for: ad, starting: true, failing: true)?.send(.showFailed(MaxAdapter.displayError(error)))
  }

  // MARK: MARewardedAdDelegate

  func didRewardUser(for ad: MAAd, with reward: MAReward) {
    signals(for: ad)?.send(
      .rewarded(AdapterSignal.NetworkReward(type: reward.label, amount: Double(reward.amount))))
  }

  // MARK: MAAdRevenueDelegate

  func didPayRevenue(for ad: MAAd) {
    signals(for: ad)?.send(
      .revenuePaid(
        AdapterSignal.ImpressionRevenue(usd: ad.revenue, precision: MaxAdapter.precision(ad.revenuePrecision))
      ))
  }
}

/// One loaded MAX ad, handed to the core. Single-use: the core shows it at most once.
final class MaxAdapterAd: AdapterAd {
  let ad: MAAd
  /// The load that got it.
  private let ticket: UInt64
  private let router: MaxAdUnitRouter

  init(ad: MAAd, ticket: UInt64, router: MaxAdUnitRouter) {
    self.ad = ad
    self.ticket = ticket
    self.router = router
  }

  func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {
    router.show(ad, ticket: ticket, request: request, presenter: presenter, signals: signals)
  }

  /// Forgets the ad's sink; the shared `MARewardedAd` keeps an unshown ad for the ad
  /// unit's next load.
  func discard() { router.release(ticket) }
}

extension MaxPrivacy {
  /// MediationKit's signals in AppLovin's terms (child-directed is an age-restricted user).
  init(_ privacy: PrivacySettings) {
    self.init(
      hasUserConsent: privacy.hasUserConsent, doNotSell: privacy.doNotSell,
      isAgeRestrictedUser: privacy.isChildDirected, consentStrings: privacy.iab)
  }
}
