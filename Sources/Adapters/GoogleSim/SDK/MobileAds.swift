import Dispatch
import Foundation
import MediationKit
import MediationKitSimulation
import RewardCallbacks
import RewardCrypto

/// The Google Mobile Ads SDK: initialization, plus the simulated ad server behind every load.
///
/// The guide's code uses the process-wide ``shared``. Everything else — the
/// ``GoogleAdapter``, tests, the simulator — makes its own instance with ``init(scheduler:random:profile:)``
/// and loads through it with ``RewardedAd/load(with:request:mobileAds:completionHandler:)``,
/// so two instances never see each other's state. Tests that run guide code install a
/// virtual-time instance as the shared one with ``installShared(_:)``.
public final class MobileAds: Sendable {
  /// The class name under which the Google SDK reports its own initialization status.
  public static let sdkAdapterClassName = "GADMobileAds"
  /// The simulated SDK's version string: the Google Mobile Ads SDK version whose Swift API it
  /// follows (12 and later; the v11 names remain as deprecated aliases).
  public static let sdkVersion = "13.0.0-sim"

  /// The scheduler every delay goes through: latencies, the presentation timeline and expiry.
  public let scheduler: any Scheduler
  /// The behaviour this instance simulates.
  public let profile: GoogleBehaviorProfile

  private enum StartPhase {
    case idle
    case starting
    case started(InitializationStatus)
  }

  private struct State {
    /// The sequential stream: initialization and the user's behaviour during presentations.
    var random: SeededRandom
    var startPhase = StartPhase.idle
    var adUnits: [String: GADSimulatedAdUnit] = [:]
    /// Per ad unit, how many loads and bids came without an auction id.
    var unkeyedRequestCounts: [String: UInt64] = [:]
    var rewardCallbacks: BoundedHistory<RewardCallbackRecord>
    var rewardCallbackCount = 0
    var redeemedBids = RedeemedBids()
  }

  /// The roots of the keyed streams: one request's draws come from `root.derived(adUnitID, key)`.
  private let keyedMarket: SeededRandom
  private let unkeyedMarket: SeededRandom
  private let bidTiming: SeededRandom
  private let bidLoadTiming: SeededRandom
  private let bidTokenKey: SeededRandom
  private let defaultAdUnit: GADSimulatedAdUnit

  /// Settings applied to every request of this instance (privacy tags).
  public let requestConfiguration = RequestConfiguration()
  /// The CMP's consent strings, and whether they rule out personalized ads.
  private let consent = Locked((strings: IABConsent(), nonPersonalized: false))

  private let state: Locked<State>
  private let startHandlers = Locked<[GADInitializationCompletionHandler]>([])
  /// The wall clock (milliseconds since 1970) SSV callbacks are stamped with.
  let wallClockMilliseconds: @Sendable () -> Int64
  /// Where the simulated ad server sends SSV callbacks; `nil`: it only records them.
  private let serverCallbackSender: (any ServerCallbackSender)?
  /// The stream the SSV signing key is derived from, and the key once derived.
  private let ssvKeySource: SeededRandom
  private let ssvKey = Locked<(key: P256SigningKey, id: UInt64)?>(nil)

  /// Creates an isolated SDK instance.
  ///
  /// - Parameters:
  ///   - scheduler: The clock and executor for every delay and callback.
  ///   - random: The seed of every behavioural draw: each load's market outcome comes from a
  ///     stream derived from it and keyed by the ad unit and auction id; initialization and the
  ///     user's behaviour during presentations come from the stream itself, in order.
  ///   - profile: How the simulated network behaves.
  ///   - wallClockMilliseconds: The wall clock SSV callbacks' `timestamp` comes from; the system's
  ///     by default.
  ///   - serverCallbacks: Where the simulated ad server sends SSV callbacks for ad units with a
  ///     callback URL; `nil` (the default) only records them in ``simulatedRewardCallbacks``.
  public init(
    scheduler: any Scheduler, random: SeededRandom, profile: GoogleBehaviorProfile = .default,
    wallClockMilliseconds: @escaping @Sendable () -> Int64 = MediatorOptions.systemWallClock,
    serverCallbacks: (any ServerCallbackSender)? = nil
  ) {
    self.scheduler = scheduler
    self.profile = profile
    self.wallClockMilliseconds = wallClockMilliseconds
    self.serverCallbackSender = serverCallbacks
    self.ssvKeySource = random.derived("GADMobileAds.ssvKey")
    self.state = Locked(
      State(random: random, rewardCallbacks: BoundedHistory(limit: profile.rewardCallbackHistoryLimit)))
    self.keyedMarket = random.derived("GADMobileAds.market")
    self.unkeyedMarket = random.derived("GADMobileAds.market.unkeyed")
    self.bidTiming = random.derived("GADMobileAds.bid")
    self.bidLoadTiming = random.derived("GADMobileAds.bidLoad")
    self.bidTokenKey = random.derived("GADMobileAds.bidToken")
    self.defaultAdUnit = GADSimulatedAdUnit(
      ecpm: profile.defaultECPM, rewardType: profile.defaultRewardType,
      rewardAmount: profile.defaultRewardAmount)
  }

  // MARK: Shared instance

  private static let sharedStorage = Locked<MobileAds?>(nil)

  /// The process-wide instance the guide's code uses.
  ///
  /// Unless a test installed another with ``installShared(_:)``, it runs on wall-clock time
  /// (a ``DispatchScheduler``) with a fixed seed and the default profile.
  public static var shared: MobileAds {
    sharedStorage.withLock { instance in
      if let instance { return instance }
      let created = MobileAds(
        scheduler: DispatchScheduler(queue: DispatchQueue(label: "GoogleSim.GADMobileAds")),
        random: SeededRandom(seed: 0x4741_444D), profile: .default)
      instance = created
      return created
    }
  }

  /// Makes `instance` the one ``shared`` returns. Thread-safe; for tests that run
  /// guide code on virtual time.
  ///
  /// - Parameter instance: The new shared instance, or `nil` to go back to the lazily made
  ///   wall-clock default.
  /// - Returns: The instance that was shared before, so the caller can restore it.
  @discardableResult
  public static func installShared(_ instance: MobileAds?) -> MobileAds? {
    sharedStorage.withLock { current in
      let previous = current
      current = instance
      return previous
    }
  }

  // MARK: Initialization

  /// Starts the Google Mobile Ads SDK and its mediation adapters.
  ///
  /// Calls `completionHandler` once every adapter finished initializing or
  /// ``GoogleBehaviorProfile/initTimeout`` passed, whichever is first. Calling it again after
  /// the start completed reports the same status.
  /// - Parameter completionHandler: Called on the scheduler with the initialization status.
  public func start(completionHandler: GADInitializationCompletionHandler? = nil) {
    enum Action {
      case reportNow(InitializationStatus)
      case wait
      case begin(delay: Duration, status: InitializationStatus)
    }
    let action = state.withLock { state -> Action in
      switch state.startPhase {
      case .started(let status): return .reportNow(status)
      case .starting: return .wait
      case .idle:
        state.startPhase = .starting
        let (delay, status) = Self.drawInitialization(profile: profile, random: &state.random)
        return .begin(delay: delay, status: status)
      }
    }
    switch action {
    case .reportNow(let status):
      let box = Locked(completionHandler)
      scheduler.execute { box.get()?(status) }
    case .wait:
      if let completionHandler { startHandlers.withLock { $0.append(completionHandler) } }
    case .begin(let delay, let status):
      if let completionHandler { startHandlers.withLock { $0.append(completionHandler) } }
      scheduler.schedule(after: delay) { [self] in
        state.withLock { $0.startPhase = .started(status) }
        for handler in startHandlers.exchange([]) { handler(status) }
      }
    }
  }

  /// Starts the Google Mobile Ads SDK and its mediation adapters: the `async` form of
  /// ``start(completionHandler:)``.
  ///
  /// Returns once the scheduler ran the start's completion; under a `VirtualScheduler`, something
  /// must drive the scheduler meanwhile.
  /// - Returns: The initialization status.
  @discardableResult
  public func start() async -> InitializationStatus {
    await withCheckedContinuation { continuation in
      start { status in continuation.resume(returning: status) }
    }
  }

  /// The current initialization status: every adapter `.notReady` until the start completes.
  public var initializationStatus: InitializationStatus {
    let phase = state.withLock { $0.startPhase }
    if case .started(let status) = phase { return status }
    var statuses: [String: AdapterStatus] = [:]
    for name in [Self.sdkAdapterClassName] + profile.mediationAdapterClassNames {
      statuses[name] = AdapterStatus(state: .notReady, description: "Not started.", latency: 0)
    }
    return InitializationStatus(adapterStatusesByClassName: statuses)
  }

  private static func drawInitialization(
    profile: GoogleBehaviorProfile, random: inout SeededRandom
  ) -> (Duration, InitializationStatus) {
    let timeout = profile.initTimeout.seconds
    var statuses: [String: AdapterStatus] = [:]
    var slowest = 0.0
    let entries =
      [(Self.sdkAdapterClassName, profile.initLatencyMedian, profile.sdkReadyRate)]
      + profile.mediationAdapterClassNames.map {
        ($0, profile.mediationInitLatencyMedian, profile.mediationAdapterReadyRate)
      }
    for (name, median, readyRate) in entries {
      let latency = random.logNormal(median: median.seconds, sigma: 0.5)
      let ready = random.chance(readyRate)
      if latency >= timeout {
        statuses[name] = AdapterStatus(state: .notReady, description: "Timeout.", latency: timeout)
        slowest = timeout
      } else if ready {
        statuses[name] = AdapterStatus(state: .ready, description: "Ready.", latency: latency)
        slowest = max(slowest, latency)
      } else {
        statuses[name] = AdapterStatus(
          state: .notReady, description: "Adapter failed to initialize.", latency: latency)
        slowest = max(slowest, latency)
      }
    }
    let delay = Duration.milliseconds(roundingSeconds: slowest)
    return (delay, InitializationStatus(adapterStatusesByClassName: statuses))
  }

  // MARK: Simulated ad server

  /// Configures the simulated ad server's line item for `adUnitID` (what the AdMob console
  /// holds for a real ad unit). Ad units never configured use the profile's defaults.
  ///
  /// - Parameters:
  ///   - adUnit: The line item's eCPM and reward.
  ///   - adUnitID: The ad unit it applies to.
  public func setSimulatedAdUnit(_ adUnit: GADSimulatedAdUnit, forAdUnitID adUnitID: String) {
    state.withLock { $0.adUnits[adUnitID] = adUnit }
  }

  /// The most recent server-side verification callbacks the simulated ad server sent, oldest
  /// first: one per rewarded impression (the server de-duplicates what the client may report
  /// twice). Keeps at most ``GoogleBehaviorProfile/rewardCallbackHistoryLimit`` of them.
  public var simulatedRewardCallbacks: [GADSimulatedRewardCallback] {
    state.withLock { $0.rewardCallbacks.elements }.map(\.callback)
  }

  /// How many server-side verification callbacks the simulated ad server sent in all.
  public var simulatedRewardCallbackCount: Int {
    state.withLock { $0.rewardCallbackCount }
  }

  struct ServedAd: Sendable {
    var priceECPM: Double
    var adUnit: GADSimulatedAdUnit
    /// Where the response identifier is drawn from, when someone reads it.
    var identifierSource: SeededRandom
  }

  struct LoadPlan: Sendable {
    var delay: Duration
    var outcome: Result<ServedAd, GADSimulatedFailure>
  }

  /// One request's market outcome: a price or a failure, and the load latency.
  struct MarketDraw {
    var outcome: Result<Double, GADSimulatedFailure>
    var delay: Duration
    var rest: SeededRandom
  }

  /// Draws a request's market outcome from the stream keyed by `adUnitID` and `key`: a pure
  /// function of the seed, the ad unit, the key, the line item's eCPM and the privacy signals.
  func drawMarket(
    adUnitID: String, key: UInt64, keyed: Bool, ecpm: Double, privacy: GADPrivacySignals
  ) -> MarketDraw {
    let p = profile
    var random = (keyed ? keyedMarket : unkeyedMarket).derived(adUnitID, key)
    let errorDraw = random.nextUnit()
    let fillDraw = random.nextUnit()
    let latency = random.logNormal(median: p.loadLatencyMedian.seconds, sigma: p.loadLatencySigma)
    let noise = random.logNormal(median: 1, sigma: p.priceSigma)
    let delay = Duration.milliseconds(roundingSeconds: latency)
    if errorDraw < p.timeoutRate {
      return MarketDraw(outcome: .failure(.timeout), delay: p.timeoutLatency, rest: random)
    }
    if errorDraw < p.timeoutRate + p.networkErrorRate {
      return MarketDraw(outcome: .failure(.networkError), delay: delay, rest: random)
    }
    var fillRate = p.fillRate
    var price = ecpm * noise
    if privacy.nonPersonalized {
      fillRate *= p.nonPersonalizedFillFactor
      price *= p.nonPersonalizedPriceFactor
    }
    if privacy.restrictedDataProcessing { price *= p.restrictedDataProcessingPriceFactor }
    if privacy.childDirected {
      fillRate *= p.childDirectedFillFactor
      price *= p.childDirectedPriceFactor
    }
    guard fillDraw < fillRate else {
      return MarketDraw(outcome: .failure(.noFill), delay: delay, rest: random)
    }
    return MarketDraw(outcome: .success(price), delay: delay, rest: random)
  }

  /// The line item for `adUnitID`: the one passed with the load, else the configured one, else
  /// the profile's default.
  private func resolveAdUnit(_ adUnitID: String, given: GADSimulatedAdUnit?) -> GADSimulatedAdUnit {
    if let given { return given }
    return state.withLock { $0.adUnits[adUnitID] } ?? defaultAdUnit
  }

  /// The key of a load or bid: its auction id, or the next per-ad-unit count for requests
  /// without one (the guide's code).
  private func requestKey(_ adUnitID: String, auctionID: UInt64?) -> (key: UInt64, keyed: Bool) {
    if let auctionID { return (auctionID, true) }
    let count = state.withLock { state -> UInt64 in
      let count = state.unkeyedRequestCounts[adUnitID, default: 0]
      state.unkeyedRequestCounts[adUnitID] = count &+ 1
      return count
    }
    return (count, false)
  }

  /// The privacy signals of a request on this instance: the request's extras plus the instance's
  /// request configuration and the CMP's TC string (no TCF purpose 1 consent where GDPR applies:
  /// non-personalized, as `npa=1`).
  func privacySignals(of request: Request?) -> (adString: String?, privacy: GADPrivacySignals) {
    var snapshot = request?.snapshot ?? (adString: nil, privacy: GADPrivacySignals())
    snapshot.privacy.childDirected = requestConfiguration.isChildDirected
    if consent.withLock({ $0.nonPersonalized }) { snapshot.privacy.nonPersonalized = true }
    return snapshot
  }

  /// Simulation wiring: the IAB consent strings a consent-management platform stored. The real
  /// SDK reads them from the app's `UserDefaults` (`IABTCF_TCString`, `IABGPP_HDR_GppString`, …);
  /// the simulated one, which has no process-wide state, is given them by the adapter.
  public var simulatedConsentStrings: IABConsent {
    get { consent.withLock { $0.strings } }
    set {
      let nonPersonalized = newValue.tcfPurposeOneConsent == false
      consent.withLock { $0 = (newValue, nonPersonalized) }
    }
  }

  /// Decides one load's outcome and latency. The market outcome is drawn from the stream keyed by
  /// the ad unit and the request's auction id; a load of a bid's ad string redeems the bid.
  func planLoad(adUnitID: String, request: Request?, options: GADSimulatedLoadOptions) -> LoadPlan {
    if adUnitID.isEmpty { return LoadPlan(delay: .milliseconds(10), outcome: .failure(.emptyAdUnitID)) }
    let (adString, privacy) = privacySignals(of: request)
    let adUnit = resolveAdUnit(adUnitID, given: options.adUnit)
    if let adString {
      return redeemBid(adString, adUnitID: adUnitID, adUnit: adUnit)
    }
    let (key, keyed) = requestKey(adUnitID, auctionID: options.auctionID)
    let draw = drawMarket(adUnitID: adUnitID, key: key, keyed: keyed, ecpm: adUnit.ecpm, privacy: privacy)
    return LoadPlan(
      delay: draw.delay,
      outcome: draw.outcome.map { ServedAd(priceECPM: $0, adUnit: adUnit, identifierSource: draw.rest) })
  }

  /// What a load of `adUnitID` keyed by `auctionID` would answer, without side effects: the
  /// simulator's oracle. With an ad string, whether that bid can still be loaded, at its price.
  func quote(
    adUnitID: String, adUnit: GADSimulatedAdUnit?, auctionID: UInt64, privacy: GADPrivacySignals,
    adString: String?
  ) -> (fills: Bool, price: Double) {
    if adUnitID.isEmpty { return (false, 0) }
    if let adString {
      guard let bid = validBid(adString, adUnitID: adUnitID),
        !state.withLock({ $0.redeemedBids.contains(bid.mac) })
      else { return (false, 0) }
      return (true, bid.price)
    }
    let ecpm = resolveAdUnit(adUnitID, given: adUnit).ecpm
    switch drawMarket(adUnitID: adUnitID, key: auctionID, keyed: true, ecpm: ecpm, privacy: privacy).outcome {
    case .success(let price): return (true, price)
    case .failure: return (false, 0)
    }
  }

  // MARK: Bidding (simulation wiring)

  /// Asks the simulated ad server for a bid on one impression of `adUnitID` (simulation wiring:
  /// the real SDK bids server-to-server through the publisher's mediation platform).
  ///
  /// The bid is the price a load of the same auction would fill at (see
  /// ``GADSimulatedLoadOptions/auctionID``); there is no bid when that load would not fill or when
  /// the request is child-directed. Load the bid by setting its ``GADSimulatedBid/adString`` as
  /// the ``Request/adString`` of a load of the same ad unit, within
  /// ``GoogleBehaviorProfile/bidLifetime``; each bid loads once.
  /// - Parameters:
  ///   - adUnitID: The ad unit to bid for.
  ///   - request: The request's extras (privacy parameters).
  ///   - options: The auction id and line item.
  ///   - completionHandler: Called once, on the scheduler after the bid latency, with the bid or
  ///     an `NSError` in ``RequestError/errorDomain`` (``RequestError/Code/noFill`` for no bid).
  /// - Returns: A handle that withdraws the bid request: the handler is then never called.
  @discardableResult
  public func requestSimulatedBid(
    forAdUnitID adUnitID: String, request: Request?, options: GADSimulatedLoadOptions = .init(),
    completionHandler: @escaping (GADSimulatedBid?, (any Error)?) -> Void
  ) -> Cancellable {
    let handler = Locked<((GADSimulatedBid?, (any Error)?) -> Void)?>(completionHandler)
    return bid(adUnitID: adUnitID, request: request, options: options) { result in
      guard let completionHandler = handler.exchange(nil) else { return }
      switch result {
      case .success(let bid): completionHandler(bid, nil)
      case .failure(let failure): completionHandler(nil, failure.nsError)
      }
    }
  }

  /// ``requestSimulatedBid(forAdUnitID:request:options:completionHandler:)`` with a typed result
  /// and no `NSError`.
  func bid(
    adUnitID: String, request: Request?, options: GADSimulatedLoadOptions,
    completion: @escaping @Sendable (Result<GADSimulatedBid, GADSimulatedFailure>) -> Void
  ) -> Cancellable {
    guard !adUnitID.isEmpty else {
      return scheduler.schedule(after: .milliseconds(10)) { completion(.failure(.emptyAdUnitID)) }
    }
    let (_, privacy) = privacySignals(of: request)
    let (key, keyed) = requestKey(adUnitID, auctionID: options.auctionID)
    var timing = bidTiming.derived(adUnitID, key)
    let latency = timing.logNormal(median: profile.bidLatencyMedian.seconds, sigma: profile.bidLatencySigma)
    let delay = Duration.milliseconds(roundingSeconds: latency)
    let answer: Result<Double, GADSimulatedFailure>
    if privacy.childDirected {
      answer = .failure(.noBidChildDirected)
    } else {
      let ecpm = resolveAdUnit(adUnitID, given: options.adUnit).ecpm
      answer = drawMarket(adUnitID: adUnitID, key: key, keyed: keyed, ecpm: ecpm, privacy: privacy).outcome
        .mapError { _ in .noBid }
    }
    return scheduler.schedule(after: delay) { [self] in
      completion(
        answer.map { price in
          GADSimulatedBid(
            price: price,
            adString: mintBid(adUnitID: adUnitID, key: key, price: price, issuedAt: scheduler.now))
        })
    }
  }

  /// A bid token: the key, the price and the issue time, signed with this instance's secret.
  private func mintBid(adUnitID: String, key: UInt64, price: Double, issuedAt: Duration) -> String {
    let issued = UInt64(max(0, issuedAt.milliseconds))
    let mac = bidMAC(adUnitID: adUnitID, key: key, priceBits: price.bitPattern, issued: issued)
    return BidToken(key: key, priceBits: price.bitPattern, issued: issued, mac: mac).adString
  }

  private func bidMAC(adUnitID: String, key: UInt64, priceBits: UInt64, issued: UInt64) -> UInt64 {
    var random = bidTokenKey.derived(
      adUnitID, key ^ (priceBits &* 0xBF58_476D_1CE4_E5B9) ^ (issued &* 0x94D0_49BB_1331_11EB))
    return random.next()
  }

  /// The bid `adString` stands for, if it is a well-formed, unexpired bid for `adUnitID` made by
  /// this instance (used or not).
  private func validBid(_ adString: String, adUnitID: String) -> (key: UInt64, price: Double, mac: UInt64)? {
    guard let token = BidToken(adString: adString), token.issued <= UInt64(Int64.max),
      token.mac
        == bidMAC(adUnitID: adUnitID, key: token.key, priceBits: token.priceBits, issued: token.issued),
      scheduler.now - .milliseconds(Int64(token.issued)) < profile.bidLifetime
    else { return nil }
    return (token.key, Double(bitPattern: token.priceBits), token.mac)
  }

  /// Loads a bid: at its price, after the short bid-load latency, once.
  private func redeemBid(_ adString: String, adUnitID: String, adUnit: GADSimulatedAdUnit) -> LoadPlan {
    guard let bid = validBid(adString, adUnitID: adUnitID) else {
      return LoadPlan(delay: .milliseconds(10), outcome: .failure(.invalidAdString))
    }
    let now = scheduler.now
    let fresh = state.withLock { state in
      state.redeemedBids.insert(bid.mac, now: now, keepFor: profile.bidLifetime)
    }
    guard fresh else { return LoadPlan(delay: .milliseconds(10), outcome: .failure(.usedAdString)) }
    var timing = bidLoadTiming.derived(adUnitID, bid.key)
    let latency = timing.logNormal(
      median: profile.bidLoadLatencyMedian.seconds, sigma: profile.bidLoadLatencySigma)
    return LoadPlan(
      delay: .milliseconds(roundingSeconds: latency),
      outcome: .success(ServedAd(priceECPM: bid.price, adUnit: adUnit, identifierSource: timing)))
  }

  // MARK: Presentation

  /// One presentation's timeline, as offsets from the call to `present`.
  struct PresentationPlan: Sendable {
    var failed = false
    var impression: Duration = .zero
    var click: Duration?
    var rewards: (first: Duration?, second: Duration?) = (nil, nil)
    /// When the user earned the reward (the video ended): the ad server's fact, which sends the
    /// SSV callback whatever the client-side reward handler does. `nil` when skipped.
    var earned: Duration?
    var willDismiss: Duration = .zero
    var didDismiss: Duration = .zero
  }

  /// Decides one presentation's timeline, drawing from the instance's sequential stream in a
  /// fixed order.
  func planPresentation() -> PresentationPlan {
    state.withLock { state in
      let p = profile
      let failed = state.random.chance(p.presentFailureRate)
      let impression = state.random.duration(in: p.impressionDelay)
      let watch = state.random.duration(in: p.watchDuration)
      let skipped = state.random.chance(p.skipRate)
      let skipFraction = 0.2 + 0.6 * state.random.nextUnit()
      let clicked = state.random.chance(p.clickRate)
      let clickFraction = state.random.nextUnit()
      let endCard = state.random.duration(in: p.endCardDuration)
      let late = state.random.chance(p.rewardAfterDismissRate)
      let lateDelay = state.random.duration(in: p.lateRewardDelay)
      let twice = state.random.chance(p.duplicateRewardRate)
      let twiceDelay = state.random.duration(in: p.duplicateRewardDelay)

      guard !failed else { return PresentationPlan(failed: true) }
      var plan = PresentationPlan()
      plan.impression = impression
      if skipped {
        plan.willDismiss = impression + watch * skipFraction
        plan.didDismiss = plan.willDismiss + p.dismissAnimation
      } else {
        let earned = impression + watch
        plan.willDismiss = earned + endCard
        plan.didDismiss = plan.willDismiss + p.dismissAnimation
        let first = late ? plan.didDismiss + lateDelay : earned
        plan.rewards = (first, twice ? first + twiceDelay : nil)
        plan.earned = earned
      }
      // The user can tap while the ad is on screen: during the video or on the end card.
      if clicked { plan.click = impression + (plan.willDismiss - impression) * clickFraction }
      return plan
    }
  }

  /// Records the server-side verification callback of one rewarded impression and, when its ad
  /// unit has a callback URL, signs it and hands it to the sender. The record is only built when
  /// it is kept or sent.
  func recordRewardCallback(hasCallbackURL: Bool, _ record: () -> RewardCallbackRecord) {
    let keep = profile.rewardCallbackHistoryLimit > 0
    var entry = keep || hasCallbackURL ? record() : nil
    if hasCallbackURL, var signed = entry {
      signed.sign(with: ssvSigningKey, timestamp: wallClockMilliseconds())
      entry = signed
      if let url = signed.url, let serverCallbackSender {
        serverCallbackSender.send(ServerCallbackRequest(network: GoogleNetwork.id, url: url))
      }
    }
    state.withLock { state in
      state.rewardCallbackCount += 1
      if keep, let entry { state.rewardCallbacks.append(entry) }
    }
  }

  // MARK: Server-side verification keys (simulation)

  /// The simulated ad server's SSV signing key and its key id, derived from the instance's seed:
  /// the same seed always gives the same key.
  var ssvSigningKey: (key: P256SigningKey, id: UInt64) {
    ssvKey.withLock { cached in
      if let cached { return cached }
      let derived = Self.deriveSigningKey(from: ssvKeySource)
      cached = derived
      return derived
    }
  }

  /// A P-256 key from 32 seeded bytes (drawn again in the rare case the scalar is out of range)
  /// and a 32-bit key id from the same stream.
  static func deriveSigningKey(from source: SeededRandom) -> (key: P256SigningKey, id: UInt64) {
    var random = source
    let id = random.next() >> 32 | 1
    while true {
      var scalar: [UInt8] = []
      for _ in 0..<4 { withUnsafeBytes(of: random.next().bigEndian) { scalar += $0 } }
      if let key = try? P256SigningKey(rawScalar: scalar) { return (key, id) }
    }
  }

  /// The id of the key the simulated ad server signs SSV callbacks with.
  public var simulatedSSVKeyID: UInt64 { ssvSigningKey.id }

  /// The simulated ad server's public verifier keys, as Google publishes its own
  /// (`verifier-keys.json`): what a publisher's server checks this instance's SSV callbacks with.
  public var simulatedVerifierKeys: VerifierKeys {
    let signing = ssvSigningKey
    return VerifierKeys.publishing([(id: signing.id, key: signing.key.publicKey)])
  }

  /// ``simulatedVerifierKeys`` in Google's JSON format: `{"keys":[{"keyId":…,"pem":…,"base64":…}]}`.
  public func simulatedVerifierKeysJSON() -> Data { simulatedVerifierKeys.jsonData() }

  /// The sizes of everything this instance remembers, for tests: none may grow with the number
  /// of loads and shows.
  struct Bookkeeping: Equatable {
    var adUnits: Int
    var unkeyedRequestCounts: Int
    var rewardCallbacks: Int
    var redeemedBids: Int
    var startHandlers: Int
  }

  var bookkeeping: Bookkeeping {
    let counts = state.withLock { state in
      (
        state.adUnits.count, state.unkeyedRequestCounts.count, state.rewardCallbacks.count,
        state.redeemedBids.count
      )
    }
    return Bookkeeping(
      adUnits: counts.0, unkeyedRequestCounts: counts.1, rewardCallbacks: counts.2, redeemedBids: counts.3,
      startHandlers: startHandlers.get().count)
  }
}

/// Simulation wiring for one load or bid: what the vendor API has no parameter for.
///
/// The real SDK has nothing like it; the ``GoogleAdapter`` and the simulator pass it through the
/// simulator-only `mobileAds:options:` forms of the load, so the guide's API stays as it is.
public struct GADSimulatedLoadOptions: Sendable, Equatable {
  /// The mediation auction the request belongs to. The simulated ad server draws the request's
  /// fill, error, price and latency from a stream keyed by the ad unit ID and this id, so the
  /// outcome does not depend on earlier loads. `nil` (the guide's code): the next per-ad-unit count.
  public var auctionID: UInt64?
  /// The line item to serve instead of the one configured with
  /// ``MobileAds/setSimulatedAdUnit(_:forAdUnitID:)``.
  public var adUnit: GADSimulatedAdUnit?

  /// Creates options; the defaults behave like a load from the guide's code.
  public init(auctionID: UInt64? = nil, adUnit: GADSimulatedAdUnit? = nil) {
    self.auctionID = auctionID
    self.adUnit = adUnit
  }
}

/// A bid from the simulated ad server.
public struct GADSimulatedBid: Sendable, Equatable {
  /// The price the network commits to, in USD per thousand impressions.
  public var price: Double
  /// The token to load the ad with, as ``Request/adString``.
  public var adString: String
}

/// A server-side verification callback as the simulated SDK keeps it: the transaction id is only
/// formatted when read.
struct RewardCallbackRecord: Sendable {
  var adUnitID: String
  var customData: String?
  var userIdentifier: String?
  var rewardType: String
  var rewardAmount: Decimal
  var responseInfo: ResponseInfo
  /// The ad unit's SSV callback URL; `nil` for none (then nothing is signed or sent).
  var callbackURL: String?
  var timestampMilliseconds: Int64?
  var url: String?
  var failure: String?

  var callback: GADSimulatedRewardCallback {
    GADSimulatedRewardCallback(
      adUnitID: adUnitID, customData: customData, userIdentifier: userIdentifier, rewardType: rewardType,
      rewardAmount: rewardAmount, transactionID: responseInfo.responseIdentifier ?? "",
      timestampMilliseconds: timestampMilliseconds, url: url, failure: failure)
  }

  /// AdMob's own ad source id, the `ad_network` of ads Google itself serves.
  static let adMobNetworkID = "5450213213286189855"

  /// Signs the SSV callback to ``callbackURL`` (stamped `timestamp`), setting ``url`` or, when the
  /// URL cannot take a query, ``failure``.
  mutating func sign(with signing: (key: P256SigningKey, id: UInt64), timestamp: Int64) {
    guard let callbackURL else { return }
    timestampMilliseconds = timestamp
    let amount = NSDecimalNumber(decimal: rewardAmount).intValue
    let ssv = SSVCallback(
      adNetwork: Self.adMobNetworkID, adUnit: adUnitID, customData: customData, rewardAmount: amount,
      rewardItem: rewardType, timestamp: timestamp, transactionID: responseInfo.responseIdentifier ?? "",
      userID: userIdentifier)
    do {
      url = try ssv.signedURL(base: callbackURL, key: signing.key, keyID: signing.id)
    } catch {
      failure = "the ad unit's SSV callback URL cannot be used: \(error)"
    }
  }
}

/// The most recent `limit` elements, in a fixed-size ring.
struct BoundedHistory<Element: Sendable>: Sendable {
  let limit: Int
  private var storage: [Element] = []
  private var next = 0

  init(limit: Int) { self.limit = max(0, limit) }

  var count: Int { storage.count }

  mutating func append(_ element: Element) {
    guard limit > 0 else { return }
    if storage.count < limit {
      storage.append(element)
    } else {
      storage[next] = element
    }
    next = (next + 1) % limit
  }

  /// Oldest first.
  var elements: [Element] {
    storage.count < limit ? storage : Array(storage[next...] + storage[..<next])
  }
}

/// The bids loaded within the bid lifetime, so a token loads once; older ones are forgotten (their
/// tokens have expired anyway), so the set does not grow with the number of bids.
struct RedeemedBids: Sendable {
  private var macs: Set<UInt64> = []
  /// (forget at, mac), in the order redeemed: forget times only increase.
  private var queue: [(forgetAt: Duration, mac: UInt64)] = []
  private var head = 0

  var count: Int { macs.count }

  func contains(_ mac: UInt64) -> Bool { macs.contains(mac) }

  /// Records `mac` as used; `false` when it already was.
  mutating func insert(_ mac: UInt64, now: Duration, keepFor lifetime: Duration) -> Bool {
    while head < queue.count, queue[head].forgetAt <= now {
      macs.remove(queue[head].mac)
      head += 1
    }
    if head > 32, head * 2 > queue.count {
      queue.removeFirst(head)
      head = 0
    }
    guard macs.insert(mac).inserted else { return false }
    queue.append((now + lifetime, mac))
    return true
  }
}

/// A simulated line item: what the AdMob console would hold for an ad unit.
public struct GADSimulatedAdUnit: Sendable, Equatable {
  /// The line item's eCPM in USD; served prices are this times log-normal noise.
  public var ecpm: Double
  /// The reward type configured for the ad unit.
  public var rewardType: String
  /// The reward amount configured for the ad unit.
  public var rewardAmount: Decimal
  /// The ad unit's server-side verification callback URL (set in the AdMob console for a real ad
  /// unit); `nil` for none. Rewarded impressions then send a signed SSV callback to it.
  public var serverSideVerificationURL: String?

  /// Creates a line item.
  public init(
    ecpm: Double, rewardType: String, rewardAmount: Decimal, serverSideVerificationURL: String? = nil
  ) {
    self.ecpm = ecpm
    self.rewardType = rewardType
    self.rewardAmount = rewardAmount
    self.serverSideVerificationURL = serverSideVerificationURL
  }
}

/// A server-side verification callback the simulated ad server sent to the publisher's server.
public struct GADSimulatedRewardCallback: Sendable, Equatable {
  /// The ad unit that served the rewarded impression.
  public var adUnitID: String
  /// The `custom_data` parameter (``ServerSideVerificationOptions/customRewardText``).
  public var customData: String?
  /// The `user_id` parameter (``ServerSideVerificationOptions/userIdentifier``).
  public var userIdentifier: String?
  /// The reward type.
  public var rewardType: String
  /// The reward amount.
  public var rewardAmount: Decimal
  /// The callback's unique transaction id (the ad response's identifier).
  public var transactionID: String
  /// The `timestamp` of the signed callback, in milliseconds since 1970; `nil` when the ad unit
  /// has no callback URL.
  public var timestampMilliseconds: Int64?
  /// The signed callback URL sent to the ad unit's SSV URL; `nil` when the ad unit has none (or it
  /// could not be used, see ``failure``). The reward amount is sent as a whole number.
  public var url: String?
  /// Why the callback could not be signed for the ad unit's URL; `nil` otherwise.
  public var failure: String?
}
