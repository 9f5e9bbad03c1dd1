import Foundation
import MediationKit

/// A MAX rewarded ad unit: one shared instance per ad unit per SDK instance, holding at most one
/// loaded ad.
///
/// Use it as the vendor guide does:
/// ```swift
/// rewardedAd = MARewardedAd.shared(withAdUnitIdentifier: "ad_unit_ID")
/// rewardedAd.delegate = self
/// rewardedAd.load()
/// // later, in didLoad or on a button tap:
/// if rewardedAd.isReady { rewardedAd.show() }
/// ```
/// Every delay goes through the SDK's scheduler and every draw through its seeded random stream,
/// so the same seed gives the same callbacks at the same times.
public final class MARewardedAd: Sendable {
  /// Extra parameter key (simulation only): the line item's eCPM in USD, as the MAX dashboard
  /// would price it. Served prices are drawn around it.
  public static let simulatedECPMKey = "sim_line_item_ecpm"
  /// Extra parameter key (simulation only): the S2S reward label configured for the ad unit.
  public static let simulatedRewardLabelKey = "sim_reward_label"
  /// Extra parameter key (simulation only): the S2S reward amount configured for the ad unit.
  public static let simulatedRewardAmountKey = "sim_reward_amount"
  /// Extra parameter key (simulation only): the ad unit's "Server Side Callback URL" (a template
  /// with `{MACRO}`s); with ``simulatedEventKeyKey``, completed impressions send an S2S callback.
  public static let simulatedServerCallbackURLKey = "sim_s2s_callback_url"
  /// Extra parameter key (simulation only): the account's S2S event key.
  public static let simulatedEventKeyKey = "sim_s2s_event_key"

  private enum LoadResult: Sendable {
    case success(MAAd)
    case failure(MAError)
  }

  /// Where a load came from, to clear its in-flight mark when it lands.
  private enum LoadKind: Sendable {
    case vendor
    case auction(UInt64)
    case bid
  }

  private struct State {
    /// The loaded ad, held until shown (or replaced by a load for another auction).
    var ready: MAAd?
    /// Whether a plain ``load()`` is in flight.
    var vendorLoading = false
    /// The auctions with a ``load(simulating:)`` in flight (as many as concurrent loads).
    var auctionsLoading: [UInt64] = []
    /// Show-time draws (user behaviour, quirks), in show order.
    var random: SeededRandom
    var extraParameters: [String: String] = [:]
    /// The key of the next plain ``load()``'s draws.
    var vendorLoads: UInt64 = 0
    var creativeCounter = 0
    var bids: MaxBidBook
  }

  /// The ad unit this instance loads for.
  public let adUnitIdentifier: String

  /// Unowned: the SDK instance owns its ads (one per ad unit), so a strong reference back would
  /// keep every per-mediator SDK alive forever. Keep the `ALSdk` alive while using its ads, as
  /// with the real SDK, whose instances live as long as the app.
  private unowned let sdk: ALSdk
  private let scheduler: any Scheduler
  private let profile: MaxBehaviorProfile
  private let fullscreen: FullscreenSlot
  private let delegates = DelegateSlots()
  /// The label of the keyed streams of plain ``load()`` calls and bid checks:
  /// `sdk.random.derived(vendorLoadLabel, index)`.
  private let vendorLoadLabel: String
  private let state: Locked<State>

  init(adUnitIdentifier: String, sdk: ALSdk) {
    self.adUnitIdentifier = adUnitIdentifier
    self.sdk = sdk
    self.scheduler = sdk.scheduler
    self.profile = sdk.profile
    self.fullscreen = sdk.fullscreen
    self.vendorLoadLabel = "MARewardedAd.load:\(adUnitIdentifier)"
    self.state = Locked(
      State(
        random: sdk.random.derived("MARewardedAd:\(adUnitIdentifier)"),
        bids: MaxBidBook(capacity: sdk.profile.maxOutstandingBids)))
  }

  /// The shared instance for `adUnitIdentifier` on the process default SDK, ``ALSdk/shared()``.
  public static func shared(withAdUnitIdentifier adUnitIdentifier: String) -> MARewardedAd {
    shared(withAdUnitIdentifier: adUnitIdentifier, sdk: ALSdk.shared())
  }

  /// The shared instance for `adUnitIdentifier` on `sdk`.
  public static func shared(withAdUnitIdentifier adUnitIdentifier: String, sdk: ALSdk) -> MARewardedAd {
    sdk.rewardedAd(for: adUnitIdentifier)
  }

  /// The SDK instance this ad unit belongs to (simulation wiring, for the mediation adapter).
  var sdkInstance: ALSdk? { sdk }

  /// Notified of load, display and reward events. Held weakly, as in the vendor SDK.
  public var delegate: (any MARewardedAdDelegate)? {
    get { delegates.delegate }
    set { delegates.delegate = newValue }
  }

  /// Notified of impression-level revenue. Held weakly.
  public var revenueDelegate: (any MAAdRevenueDelegate)? {
    get { delegates.revenueDelegate }
    set { delegates.revenueDelegate = newValue }
  }

  /// Sets an extra key/value parameter for the ad unit's next loads (`nil` removes it).
  public func setExtraParameter(forKey key: String, value: String?) {
    state.withLock { $0.extraParameters[key] = value }
  }

  /// Whether an ad is loaded and can be shown.
  public var isReady: Bool { state.withLock { $0.ready != nil } }

  /// Loads an ad; the delegate hears `didLoad` or `didFailToLoadAd(forAdUnitIdentifier:withError:)`.
  ///
  /// Ignored while a load is in flight (one callback answers both calls). When an ad is
  /// already loaded, `didLoad` is called again at once with that ad. Loading while an ad is on
  /// screen is allowed: it prepares the next ad.
  ///
  /// The draws of each plain load are keyed by a per-ad-unit load counter; the simulated line
  /// item and reward come from the `simulated…Key` extra parameters.
  public func load() {
    enum Outcome {
      case ignore
      case alreadyLoaded(MAAd)
      case draw(
        key: UInt64, ecpm: Double, rewardAmount: Int, rewardLabel: String,
        serverCallback: MASimulatedServerCallbackSettings?)
    }
    let outcome = state.withLock { state -> Outcome in
      if let ad = state.ready { return .alreadyLoaded(ad) }
      if state.vendorLoading { return .ignore }
      state.vendorLoading = true
      defer { state.vendorLoads += 1 }
      let extras = state.extraParameters
      return .draw(
        key: state.vendorLoads,
        ecpm: extras[Self.simulatedECPMKey].flatMap(Double.init) ?? profile.defaultECPM,
        rewardAmount: extras[Self.simulatedRewardAmountKey].flatMap { Int($0) } ?? profile.reward.amount,
        rewardLabel: extras[Self.simulatedRewardLabelKey] ?? profile.reward.label,
        serverCallback: extras[Self.simulatedServerCallbackURLKey].map {
          MASimulatedServerCallbackSettings(
            urlTemplate: $0, eventKey: extras[Self.simulatedEventKeyKey] ?? "")
        })
    }
    switch outcome {
    case .ignore:
      return
    case .alreadyLoaded(let ad):
      scheduler.execute { [self] in notify { $0.delegate?.didLoad(ad) } }
    case .draw(let key, let ecpm, let rewardAmount, let rewardLabel, let serverCallback):
      let market = MaxMarketOutcome(
        sdk.random.derived(vendorLoadLabel, key), profile: profile, lineItemECPM: ecpm,
        privacy: sdk.privacySettings.current)
      start(
        market, kind: .vendor, auctionID: nil, reward: (rewardAmount, rewardLabel),
        serverCallback: serverCallback, latency: market.loadLatency)
    }
  }

  /// Loads an ad for one auction of a mediation.
  ///
  /// **Simulation wiring, not vendor API**: the real SDK has no auction id. The mediation
  /// adapter passes one so that the load's fill, error, price and latency are a pure function of
  /// the SDK's seed, this ad unit, `request.auctionID` and ``ALSdk/privacySettings`` — the draws
  /// come from `random.derived(adUnitIdentifier, auctionID)` — whatever was loaded before.
  ///
  /// Like ``load()``, the delegate hears `didLoad` or `didFailToLoadAd`, and a second load of the
  /// same auction while one is in flight is answered by the first. An ad already loaded for the
  /// same auction is reported again at once; one loaded for another auction is replaced when this
  /// load lands (the ad unit holds one ad, the newest). With a ``MASimulatedLoad/bidToken`` the
  /// load redeems that bid: it fills at the bid's price after
  /// ``MaxBehaviorProfile/bidLoadLatency``, with no second fill draw; an unknown, expired, used or
  /// foreign token fails at once with ``MAErrorCode/simulatedInvalidBidToken``.
  public func load(simulating request: MASimulatedLoad) {
    let reward = (
      request.rewardAmount ?? profile.reward.amount, request.rewardLabel ?? profile.reward.label
    )
    let ecpm = request.lineItemECPM ?? profile.defaultECPM
    if let token = request.bidToken {
      let bid = state.withLock { $0.bids.redeem(token, auctionID: request.auctionID) }
      guard let bid else {
        let error = MAError(
          code: .simulatedInvalidBidToken, message: "Invalid, expired or used bid token",
          simulatedAuctionID: request.auctionID)
        let adUnit = adUnitIdentifier
        scheduler.execute { [self] in
          notify { $0.delegate?.didFailToLoadAd(forAdUnitIdentifier: adUnit, withError: error) }
        }
        return
      }
      var market = sdk.market(
        adUnitIdentifier: adUnitIdentifier, auctionID: request.auctionID, lineItemECPM: ecpm,
        privacy: sdk.privacySettings.current)
      market.fills = true  // the bid is a commitment
      market.ecpm = bid.price
      market.networkIndex = bid.networkIndex
      start(
        market, kind: .bid, auctionID: request.auctionID, reward: reward,
        serverCallback: request.serverCallback,
        latency: profile.bidLoadLatency)
      return
    }
    enum Outcome {
      case ignore
      case alreadyLoaded(MAAd)
      case draw
    }
    let outcome = state.withLock { state -> Outcome in
      if let ad = state.ready, ad.simulatedAuctionID == request.auctionID { return .alreadyLoaded(ad) }
      if state.auctionsLoading.contains(request.auctionID) { return .ignore }
      state.auctionsLoading.append(request.auctionID)
      return .draw
    }
    switch outcome {
    case .ignore:
      return
    case .alreadyLoaded(let ad):
      scheduler.execute { [self] in notify { $0.delegate?.didLoad(ad) } }
    case .draw:
      let market = sdk.market(
        adUnitIdentifier: adUnitIdentifier, auctionID: request.auctionID, lineItemECPM: ecpm,
        privacy: sdk.privacySettings.current)
      start(
        market, kind: .auction(request.auctionID), auctionID: request.auctionID, reward: reward,
        serverCallback: request.serverCallback, latency: market.loadLatency)
    }
  }

  /// Asks for a bid for one auction (simulation wiring: MAX as a bidder in another mediation).
  ///
  /// After ``MaxBehaviorProfile/bidLatencyMedian`` (log-normal, drawn with the load's draws),
  /// answers the price a load of that auction would fill at, and a single-use token for
  /// ``load(simulating:)``; or `204` when that load would not fill. An age-restricted user gets
  /// no bid, at once.
  func requestBid(
    auctionID: UInt64, lineItemECPM: Double,
    completion: @escaping @Sendable (MaxBidAnswer) -> Void
  ) -> Cancellable {
    let market = sdk.market(
      adUnitIdentifier: adUnitIdentifier, auctionID: auctionID, lineItemECPM: lineItemECPM,
      privacy: sdk.privacySettings.current)
    guard market.canBid else {
      return scheduler.schedule(after: .zero) {
        completion(
          .noBid(
            MAError(
              code: .noFill, message: "No bids for age-restricted users",
              simulatedAuctionID: auctionID)))
      }
    }
    return scheduler.schedule(after: market.bidLatency) { [self] in
      guard market.fills else {
        completion(
          .noBid(MAError(code: .noFill, message: "No Bid", simulatedAuctionID: auctionID)))
        return
      }
      let token = state.withLock { state -> String in
        let sequence = state.bids.nextSequence
        var check = sdk.random.derived(vendorLoadLabel, ~sequence)
        return state.bids.issue(
          MaxBidBook.Bid(auctionID: auctionID, price: market.ecpm, networkIndex: market.networkIndex),
          check: check.next())
      }
      completion(.bid(price: market.ecpm, token: token))
    }
  }

  /// Internal sizes, for tests that check nothing grows with the number of loads.
  var bookkeeping: (auctionsLoading: Int, outstandingBids: Int, extraParameters: Int) {
    state.withLock { ($0.auctionsLoading.count, $0.bids.count, $0.extraParameters.count) }
  }

  /// Schedules the end of a load whose draws are `market`.
  private func start(
    _ market: MaxMarketOutcome, kind: LoadKind, auctionID: UInt64?, reward: (amount: Int, label: String),
    serverCallback: MASimulatedServerCallbackSettings?, latency: Duration
  ) {
    let result: LoadResult
    if market.fills {
      let creative = state.withLock { state in
        state.creativeCounter += 1
        return state.creativeCounter
      }
      result = .success(
        MAAd(
          adUnitIdentifier: adUnitIdentifier, networkName: profile.networkName(at: market.networkIndex),
          creativeNumber: creative, ecpm: market.ecpm, revenuePrecision: profile.revenuePrecision,
          simulatedAuctionID: auctionID, rewardAmount: reward.amount, rewardLabel: reward.label,
          serverCallback: serverCallback))
    } else if let index = market.transportError {
      let (code, message) = MaxMarketOutcome.transportErrors[index]
      result = .failure(MAError(code: code, message: message, simulatedAuctionID: auctionID))
    } else {
      result = .failure(MAError(code: .noFill, message: "No Fill", simulatedAuctionID: auctionID))
    }
    scheduler.schedule(after: latency) { [self] in finishLoad(result, kind: kind) }
  }

  private func finishLoad(_ result: LoadResult, kind: LoadKind) {
    state.withLock { state in
      switch kind {
      case .vendor: state.vendorLoading = false
      case .auction(let auctionID):
        if let index = state.auctionsLoading.firstIndex(of: auctionID) {
          state.auctionsLoading.remove(at: index)
        }
      case .bid: break
      }
      if case .success(let ad) = result { state.ready = ad }
    }
    switch result {
    case .success(let ad):
      notify { $0.delegate?.didLoad(ad) }
    case .failure(let error):
      let adUnit = adUnitIdentifier
      notify { $0.delegate?.didFailToLoadAd(forAdUnitIdentifier: adUnit, withError: error) }
    }
  }

  /// Shows the loaded ad (the vendor's `showAd`).
  public func show() {
    show(forPlacement: nil, customData: nil, viewController: nil)
  }

  /// Shows the loaded ad, tying its events and S2S postbacks to `placement` and `customData`.
  ///
  /// When the ad unit has an S2S callback, the simulated AppLovin server sends it once the video
  /// completes (see ``ALSdk/simulatedServerCallbacks``), whatever the client-side reward callback
  /// does.
  ///
  /// - Parameters:
  ///   - placement: A placement name for reporting, e.g. `"Rewarded_LevelEnd"`.
  ///   - customData: Data passed to the S2S reward postback (keep it under 8192 characters).
  public func show(forPlacement placement: String?, customData: String? = nil) {
    show(forPlacement: placement, customData: customData, viewController: nil)
  }

  /// Shows the loaded ad from `viewController` (an ``AdPresenting`` stands in for
  /// `UIViewController`; `nil` presents from the app's root, as the vendor SDK does).
  ///
  /// Fails through `didFail(toDisplay:withError:)` with `-23` when another full-screen ad of
  /// this SDK instance is on screen, and with `-24` when no ad is loaded.
  public func show(forPlacement placement: String?, customData: String?, viewController: (any AdPresenting)?)
  {
    enum Outcome {
      case failed(MAAd, MAError)
      case showing(MAAd, [TimedShowEvent])
    }
    let outcome = state.withLock { state -> Outcome in
      guard let ad = state.ready else {
        return .failed(
          .placeholder(adUnitIdentifier: adUnitIdentifier),
          MAError(
            code: .fullscreenAdNotReady, message: "Attempting to show ad when it is not ready"))
      }
      guard fullscreen.claim() else {
        return .failed(
          ad,
          MAError(
            code: .fullscreenAdAlreadyShowing,
            message: "Attempting to show ad when another fullscreen ad is already showing"))
      }
      state.ready = nil
      return .showing(ad, drawShowTimeline(&state, for: ad))
    }
    switch outcome {
    case .failed(let ad, let error):
      scheduler.execute { [self] in notify { $0.delegate?.didFail(toDisplay: ad, withError: error) } }
    case .showing(let ad, let timeline):
      ad.setPlacement(placement)
      ad.setShowContext(customData: customData, userIdentifier: sdk.userIdentifier)
      // The scheduler runs actions due at the same time in submission order, so the timeline's
      // order breaks ties; neighbours due at the same time share one action (one scheduling per
      // instant, not per event), which runs them in that same order.
      var start = timeline.startIndex
      while start < timeline.endIndex {
        let delay = timeline[start].at
        let end = timeline[start...].firstIndex { $0.at != delay } ?? timeline.endIndex
        let group = timeline[start..<end]
        scheduler.schedule(after: delay) { [self] in
          for entry in group { deliver(entry.event, for: ad) }
        }
        start = end
      }
    }
  }

  // MARK: - Simulation

  /// One delegate call of a show's timeline.
  enum ShowEvent: Sendable {
    case display, payRevenue, startVideo, click, completeVideo, reward(MAReward), hide, displayFailed
    /// The AppLovin server learns the video completed and sends the ad unit's S2S callback.
    case serverCallback
  }

  /// One event of a show's timeline and its delay from the show. (A struct, not a tuple: an
  /// array of tuples holding references is destroyed through the runtime's generic witnesses.)
  struct TimedShowEvent: Sendable {
    let at: Duration
    let event: ShowEvent

    init(_ at: Duration, _ event: ShowEvent) {
      self.at = at
      self.event = event
    }
  }

  private func deliver(_ event: ShowEvent, for ad: MAAd) {
    switch event {
    case .display:
      ad.stampImpression(sdk.wallClockMilliseconds())
      notify { $0.delegate?.didDisplay(ad) }
    case .serverCallback: sdk.sendServerCallback(for: ad)
    case .payRevenue: notify { $0.revenueDelegate?.didPayRevenue(for: ad) }
    case .startVideo: notify { $0.delegate?.didStartRewardedVideo(for: ad) }
    case .click: notify { $0.delegate?.didClick(ad) }
    case .completeVideo: notify { $0.delegate?.didCompleteRewardedVideo(for: ad) }
    case .reward(let reward): notify { $0.delegate?.didRewardUser(for: ad, with: reward) }
    case .hide:
      fullscreen.release()
      notify { $0.delegate?.didHide(ad) }
    case .displayFailed:
      fullscreen.release()
      let error = MAError(
        code: .adDisplayFailed, message: "Ad Display Failed", mediatedNetworkErrorCode: -1,
        mediatedNetworkErrorMessage: "\(ad.networkName) failed to present the ad")
      notify { $0.delegate?.didFail(toDisplay: ad, withError: error) }
    }
  }

  /// Calls the delegates on the scheduler's executor, or hops to the profile's other queue.
  private func notify(_ call: @escaping @Sendable (DelegateSlots) -> Void) {
    let delegates = self.delegates
    if let hop = profile.offThreadCallbacks, state.withLock({ $0.random.chance(hop.probability) }) {
      hop.queue.async { call(delegates) }
    } else {
      call(delegates)
    }
  }

  /// Draws a whole show, as delays from now. Every draw is made whatever the branch, so forcing
  /// one quirk leaves the other draws where they were.
  private func drawShowTimeline(_ state: inout State, for ad: MAAd) -> [TimedShowEvent] {
    let displayAt = state.random.duration(in: profile.displayLatency)
    let displayFails = state.random.chance(profile.displayFailureRate)
    let watch = state.random.duration(in: profile.watchDuration)
    let skips = state.random.chance(profile.skipRate)
    let skipFraction = 0.2 + 0.6 * state.random.nextUnit()
    let clicks = state.random.chance(profile.clickRate)
    let clickFraction = 0.1 + 0.8 * state.random.nextUnit()
    let endCard = state.random.duration(in: profile.endCardDuration)
    let hidesLate = state.random.chance(profile.lateHideRate)
    let lateHide = state.random.duration(in: profile.lateHideDelay)
    let rewardsLate = state.random.chance(profile.rewardAfterHideRate)
    let lateReward = state.random.duration(in: profile.lateRewardDelay)
    let rewardsTwice = state.random.chance(profile.duplicateRewardRate)
    let secondReward = state.random.duration(in: .milliseconds(20) ... .milliseconds(500))

    if displayFails { return [TimedShowEvent(displayAt, .displayFailed)] }
    var timeline = [
      TimedShowEvent(displayAt, .display), TimedShowEvent(displayAt, .payRevenue),
      TimedShowEvent(displayAt, .startVideo),
    ]
    let onScreen = skips ? watch * skipFraction : watch
    let clickAt = displayAt + onScreen * clickFraction
    let videoEnd = displayAt + watch
    var hideAt = skips ? displayAt + onScreen : videoEnd + endCard
    if hidesLate { hideAt += lateHide }
    if clicks { timeline.append(TimedShowEvent(clickAt, .click)) }
    if !skips {
      let reward = MAReward(amount: ad.rewardAmount, label: ad.rewardLabel)
      let rewardAt = rewardsLate ? hideAt + lateReward : videoEnd
      timeline.append(TimedShowEvent(videoEnd, .completeVideo))
      // The server's fact: the video completed. It does not follow the client's reward quirks.
      if ad.serverCallback != nil { timeline.append(TimedShowEvent(videoEnd, .serverCallback)) }
      timeline.append(TimedShowEvent(rewardAt, .reward(reward)))
      if rewardsTwice { timeline.append(TimedShowEvent(rewardAt + secondReward, .reward(reward))) }
    }
    timeline.append(TimedShowEvent(hideAt, .hide))
    return timeline
  }
}

/// The app's weak delegates of one `MARewardedAd`.
///
/// `@unchecked Sendable` is safe because both weak references are only read and written under
/// `lock`. The delegates themselves are app objects the SDK calls on its callback executor
/// (the scheduler, like the real SDK's main thread), never concurrently from this box.
private final class DelegateSlots: @unchecked Sendable {
  private let lock = NSLock()
  private weak var storedDelegate: (any MARewardedAdDelegate)?
  private weak var storedRevenueDelegate: (any MAAdRevenueDelegate)?

  var delegate: (any MARewardedAdDelegate)? {
    get { lock.withLock { storedDelegate } }
    set { lock.withLock { storedDelegate = newValue } }
  }

  var revenueDelegate: (any MAAdRevenueDelegate)? {
    get { lock.withLock { storedRevenueDelegate } }
    set { lock.withLock { storedRevenueDelegate = newValue } }
  }
}
