import Foundation
import MediationKit
import Synchronization

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

  private enum LoadSlot {
    case idle
    case loading
    case ready(MAAd)
  }

  private enum LoadResult: Sendable {
    case success(MAAd)
    case failure(MAError)
  }

  private struct State {
    var load = LoadSlot.idle
    var random: SeededRandom
    var extraParameters: [String: String] = [:]
    var creativeCounter = 0
  }

  /// The ad unit this instance loads for.
  public let adUnitIdentifier: String

  private let scheduler: any Scheduler
  private let profile: MaxBehaviorProfile
  private let fullscreen: FullscreenSlot
  private let delegates = DelegateSlots()
  private let state: Mutex<State>

  init(adUnitIdentifier: String, sdk: ALSdk) {
    self.adUnitIdentifier = adUnitIdentifier
    self.scheduler = sdk.scheduler
    self.profile = sdk.profile
    self.fullscreen = sdk.fullscreen
    self.state = Mutex(State(random: sdk.random.derived("MARewardedAd:\(adUnitIdentifier)")))
  }

  /// The shared instance for `adUnitIdentifier` on the process default SDK, ``ALSdk/shared()``.
  public static func shared(withAdUnitIdentifier adUnitIdentifier: String) -> MARewardedAd {
    shared(withAdUnitIdentifier: adUnitIdentifier, sdk: ALSdk.shared())
  }

  /// The shared instance for `adUnitIdentifier` on `sdk`.
  public static func shared(withAdUnitIdentifier adUnitIdentifier: String, sdk: ALSdk) -> MARewardedAd {
    sdk.rewardedAd(for: adUnitIdentifier)
  }

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
  public var isReady: Bool {
    state.withLock { state in
      if case .ready = state.load { return true }
      return false
    }
  }

  /// Loads an ad; the delegate hears `didLoad` or `didFailToLoadAd(forAdUnitIdentifier:withError:)`.
  ///
  /// Ignored while a load is in flight (one callback answers both calls). When an ad is
  /// already loaded, `didLoad` is called again at once with that ad. Loading while an ad is on
  /// screen is allowed: it prepares the next ad.
  public func load() {
    enum Outcome {
      case ignore
      case alreadyLoaded(MAAd)
      case scheduled(after: Duration, result: LoadResult)
    }
    let outcome = state.withLock { state -> Outcome in
      switch state.load {
      case .loading: return .ignore
      case .ready(let ad): return .alreadyLoaded(ad)
      case .idle: break
      }
      state.load = .loading
      return .scheduled(after: drawLoadLatency(&state), result: drawLoadResult(&state))
    }
    switch outcome {
    case .ignore:
      return
    case .alreadyLoaded(let ad):
      scheduler.execute { [self] in notify { $0.delegate?.didLoad(ad) } }
    case .scheduled(let latency, let result):
      scheduler.schedule(after: latency) { [self] in finishLoad(result) }
    }
  }

  private func finishLoad(_ result: LoadResult) {
    state.withLock { state in
      if case .success(let ad) = result {
        state.load = .ready(ad)
      } else {
        state.load = .idle
      }
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
      case showing(MAAd, [(Duration, ShowEvent)])
    }
    let outcome = state.withLock { state -> Outcome in
      guard case .ready(let ad) = state.load else {
        return .failed(
          .placeholder(adUnitIdentifier: adUnitIdentifier),
          MAError(
            code: MAErrorCode.fullscreenAdNotReady, message: "Attempting to show ad when it is not ready"))
      }
      guard fullscreen.claim() else {
        return .failed(
          ad,
          MAError(
            code: MAErrorCode.fullscreenAdAlreadyShowing,
            message: "Attempting to show ad when another fullscreen ad is already showing"))
      }
      state.load = .idle
      return .showing(ad, drawShowTimeline(&state))
    }
    switch outcome {
    case .failed(let ad, let error):
      scheduler.execute { [self] in notify { $0.delegate?.didFail(toDisplay: ad, withError: error) } }
    case .showing(let ad, let timeline):
      ad.setPlacement(placement)
      for (delay, event) in timeline {
        scheduler.schedule(after: delay) { [self] in deliver(event, for: ad) }
      }
    }
  }

  // MARK: - Simulation

  /// One delegate call of a show's timeline.
  enum ShowEvent: Sendable {
    case display, payRevenue, startVideo, click, completeVideo, reward(MAReward), hide, displayFailed
  }

  private func deliver(_ event: ShowEvent, for ad: MAAd) {
    switch event {
    case .display: notify { $0.delegate?.didDisplay(ad) }
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
        code: MAErrorCode.adDisplayFailed, message: "Ad Display Failed", mediatedNetworkErrorCode: -1,
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

  private func drawLoadLatency(_ state: inout State) -> Duration {
    let seconds = state.random.logNormal(
      median: profile.loadLatencyMedian.seconds, sigma: profile.loadLatencySigma)
    return .milliseconds(Int64((seconds * 1000).rounded()))
  }

  /// Draws a load's outcome; always the same number of draws, so outcomes don't shift the stream.
  private func drawLoadResult(_ state: inout State) -> LoadResult {
    let fills = state.random.chance(profile.fillRate)
    let transportError = state.random.chance(profile.loadErrorShare)
    let errorPick = Int(state.random.nextUnit() * 3)
    let networkPick = state.random.nextUnit()
    let noise = state.random.logNormal(median: 1, sigma: profile.priceSigma)
    guard fills else {
      if transportError {
        let errors = [
          (MAErrorCode.networkTimeout, "Request timed out"),
          (MAErrorCode.networkError, "Network error"),
          (MAErrorCode.adLoadFailed, "All mediated networks failed to load an ad"),
        ]
        let (code, message) = errors[min(errorPick, errors.count - 1)]
        return .failure(MAError(code: code, message: message))
      }
      return .failure(MAError(code: MAErrorCode.noFill, message: "No Fill"))
    }
    let ecpm = state.extraParameters[Self.simulatedECPMKey].flatMap(Double.init) ?? profile.defaultECPM
    let names = profile.networkNames.isEmpty ? ["AppLovin"] : profile.networkNames
    let networkName = names[min(Int(networkPick * Double(names.count)), names.count - 1)]
    state.creativeCounter += 1
    return .success(
      MAAd(
        adUnitIdentifier: adUnitIdentifier, networkName: networkName,
        networkPlacement:
          "\(networkName.lowercased().replacingOccurrences(of: " ", with: "_"))-\(adUnitIdentifier)",
        creativeIdentifier: "creative-\(state.creativeCounter)", revenue: ecpm * noise / 1000,
        revenuePrecision: profile.revenuePrecision))
  }

  /// Draws a whole show, as delays from now. Every draw is made whatever the branch, so forcing
  /// one quirk leaves the other draws where they were.
  private func drawShowTimeline(_ state: inout State) -> [(Duration, ShowEvent)] {
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

    if displayFails { return [(displayAt, .displayFailed)] }
    var timeline: [(Duration, ShowEvent)] = [
      (displayAt, .display), (displayAt, .payRevenue), (displayAt, .startVideo),
    ]
    let onScreen = skips ? watch * skipFraction : watch
    let clickAt = displayAt + onScreen * clickFraction
    let videoEnd = displayAt + watch
    var hideAt = skips ? displayAt + onScreen : videoEnd + endCard
    if hidesLate { hideAt += lateHide }
    if clicks { timeline.append((clickAt, .click)) }
    if !skips {
      let reward = MAReward(
        amount: state.extraParameters[Self.simulatedRewardAmountKey].flatMap { Int($0) }
          ?? profile.reward.amount,
        label: state.extraParameters[Self.simulatedRewardLabelKey] ?? profile.reward.label)
      let rewardAt = rewardsLate ? hideAt + lateReward : videoEnd
      timeline.append((videoEnd, .completeVideo))
      timeline.append((rewardAt, .reward(reward)))
      if rewardsTwice { timeline.append((rewardAt + secondReward, .reward(reward))) }
    }
    timeline.append((hideAt, .hide))
    // Stable by time: events at the same instant keep the order above.
    return timeline.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(
      \.element)
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
