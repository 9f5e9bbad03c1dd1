import Foundation
import MediationKit

/// The handler ``RewardedAd/present(from:userDidEarnRewardHandler:)`` calls
/// when the user earned the reward; read ``RewardedAd/adReward`` inside it.
public typealias GADUserDidEarnRewardHandler = () -> Void

/// The handler a rewarded ad load calls with the ad, or with an error.
public typealias GADRewardedAdLoadCompletionHandler = (RewardedAd?, (any Error)?) -> Void

/// A rewarded ad: single-use, expires one hour after it loaded.
///
/// Load one with ``load(with:request:completionHandler:)`` (or its `async` form), set
/// ``fullScreenContentDelegate``, then call
/// ``present(from:userDidEarnRewardHandler:)`` once. Every callback runs on the
/// scheduler of the ``MobileAds`` instance that loaded it.
///
/// MediationKit's facade has a type of the same name: a file that imports both modules writes
/// `GoogleSim.RewardedAd` (or imports only the MediationKit declarations it needs, e.g.
/// `import protocol MediationKit.AdPresenting`).
public final class RewardedAd: FullScreenPresentingAd, Sendable {
  /// The ad unit ID the ad was loaded for.
  public let adUnitID: String
  /// Information about the ad response that returned the ad.
  public let responseInfo: ResponseInfo
  /// The reward the user earns, readable as soon as the ad loaded.
  public let adReward: AdReward

  let mobileAds: MobileAds
  /// When the ad loaded, on the scheduler's clock.
  let loadedAt: Duration
  /// What the impression will pay, in USD per thousand.
  let priceECPM: Double
  /// The ad unit's SSV callback URL, from the line item that served the ad; `nil` for none.
  let serverSideVerificationURL: String?

  private struct State {
    var used = false
    var serverSideVerificationOptions: ServerSideVerificationOptions?
  }

  /// The caller's delegate and paid-event handler, in one box.
  private struct Callbacks {
    weak var delegate: (any FullScreenContentDelegate)?
    var paidEvent: GADPaidEventHandler?
  }

  private let state = Locked(State())
  /// The app's non-`Sendable` delegate and handlers, carried into the scheduler's actions and
  /// called only from its serial executor (the real SDK's main thread).
  private let callbacks = Locked(Callbacks())

  init(adUnitID: String, served: MobileAds.ServedAd, mobileAds: MobileAds) {
    self.adUnitID = adUnitID
    self.responseInfo = ResponseInfo(
      identifierSource: served.identifierSource, adNetworkClassName: "GADMAdapterGoogleAdMobAds")
    self.adReward = AdReward(
      rewardType: served.adUnit.rewardType, rewardAmount: NSDecimalNumber(decimal: served.adUnit.rewardAmount)
    )
    self.mobileAds = mobileAds
    self.loadedAt = mobileAds.scheduler.now
    self.priceECPM = served.priceECPM
    self.serverSideVerificationURL = served.adUnit.serverSideVerificationURL
  }

  /// The delegate told about the full-screen lifecycle. Held weakly, as in the real SDK.
  public var fullScreenContentDelegate: (any FullScreenContentDelegate)? {
    get { callbacks.get().delegate }
    set { callbacks.withLock { $0.delegate = newValue } }
  }

  /// Options for server-side verification of the reward; copied when set. Set before presenting.
  public var serverSideVerificationOptions: ServerSideVerificationOptions? {
    get { state.withLock { $0.serverSideVerificationOptions } }
    set {
      let copy = newValue?.copy()
      state.withLock { $0.serverSideVerificationOptions = copy }
    }
  }

  /// Called when the impression earns money, with its value.
  public var paidEventHandler: GADPaidEventHandler? {
    get { callbacks.get().paidEvent }
    set { callbacks.withLock { $0.paidEvent = newValue } }
  }

  // MARK: Loading

  /// Loads a rewarded ad through the shared ``MobileAds`` instance.
  ///
  /// - Parameters:
  ///   - adUnitID: The ad unit to load.
  ///   - request: Targeting for the request.
  ///   - completionHandler: Called once, on the scheduler, with the ad or an `NSError` in
  ///     ``RequestError/errorDomain``.
  public static func load(
    with adUnitID: String, request: Request?,
    completionHandler: @escaping GADRewardedAdLoadCompletionHandler
  ) {
    load(
      with: adUnitID, request: request, mobileAds: .shared,
      completionHandler: completionHandler)
  }

  /// Loads a rewarded ad through `mobileAds` (simulator extension: no global state).
  ///
  /// - Parameters:
  ///   - adUnitID: The ad unit to load.
  ///   - request: Targeting for the request.
  ///   - mobileAds: The SDK instance whose scheduler, random stream and profile the load uses.
  ///   - completionHandler: Called once, on `mobileAds`' scheduler, with the ad or an `NSError`
  ///     in ``RequestError/errorDomain``.
  public static func load(
    with adUnitID: String, request: Request?, mobileAds: MobileAds,
    completionHandler: @escaping GADRewardedAdLoadCompletionHandler
  ) {
    load(
      with: adUnitID, request: request, mobileAds: mobileAds, options: GADSimulatedLoadOptions(),
      completionHandler: completionHandler)
  }

  /// Loads a rewarded ad through `mobileAds`, with simulation wiring the vendor API has no room
  /// for: the mediation auction id the outcome is keyed by, and the line item to serve.
  ///
  /// - Parameters:
  ///   - adUnitID: The ad unit to load.
  ///   - request: Targeting for the request: its extras (privacy parameters) and, to load a bid,
  ///     its ``Request/adString``.
  ///   - mobileAds: The SDK instance whose scheduler, random stream and profile the load uses.
  ///   - options: The auction id and line item (simulation only).
  ///   - completionHandler: Called once, on `mobileAds`' scheduler, with the ad or an `NSError`
  ///     in ``RequestError/errorDomain``.
  public static func load(
    with adUnitID: String, request: Request?, mobileAds: MobileAds,
    options: GADSimulatedLoadOptions, completionHandler: @escaping GADRewardedAdLoadCompletionHandler
  ) {
    let handler = Locked<GADRewardedAdLoadCompletionHandler?>(completionHandler)
    startLoad(adUnitID: adUnitID, request: request, mobileAds: mobileAds, options: options) { result in
      guard let completionHandler = handler.exchange(nil) else { return }
      switch result {
      case .success(let ad): completionHandler(ad, nil)
      case .failure(let failure): completionHandler(nil, failure.nsError)
      }
    }
  }

  /// The load behind every public form: plans it now and delivers a typed result on the
  /// scheduler, building no `NSError` (the vendor forms build one for their handler).
  static func startLoad(
    adUnitID: String, request: Request?, mobileAds: MobileAds, options: GADSimulatedLoadOptions,
    deliver: @escaping @Sendable (Result<RewardedAd, GADSimulatedFailure>) -> Void
  ) {
    let plan = mobileAds.planLoad(adUnitID: adUnitID, request: request, options: options)
    mobileAds.scheduler.schedule(after: plan.delay) {
      deliver(plan.outcome.map { RewardedAd(adUnitID: adUnitID, served: $0, mobileAds: mobileAds) })
    }
  }

  /// Loads a rewarded ad through the shared ``MobileAds`` instance.
  ///
  /// - Parameters:
  ///   - adUnitID: The ad unit to load.
  ///   - request: Targeting for the request.
  /// - Returns: The loaded ad.
  /// - Throws: An `NSError` in ``RequestError/errorDomain``.
  public static func load(with adUnitID: String, request: Request?) async throws -> RewardedAd {
    try await load(with: adUnitID, request: request, mobileAds: .shared)
  }

  /// Loads a rewarded ad through `mobileAds` (simulator extension: no global state).
  ///
  /// Returns once `mobileAds`' scheduler ran the load's completion; under a `VirtualScheduler`,
  /// something must drive the scheduler meanwhile.
  /// - Parameters:
  ///   - adUnitID: The ad unit to load.
  ///   - request: Targeting for the request.
  ///   - mobileAds: The SDK instance to load through.
  /// - Returns: The loaded ad.
  /// - Throws: An `NSError` in ``RequestError/errorDomain``.
  public static func load(
    with adUnitID: String, request: Request?, mobileAds: MobileAds
  ) async throws -> RewardedAd {
    try await withCheckedThrowingContinuation { continuation in
      load(with: adUnitID, request: request, mobileAds: mobileAds) { ad, error in
        if let ad {
          continuation.resume(returning: ad)
        } else {
          continuation.resume(throwing: error ?? NSError.gad(.internalError, "Internal error."))
        }
      }
    }
  }

  // MARK: Presenting

  /// Checks whether the ad can be presented now.
  ///
  /// - Parameter rootViewController: What the ad would be presented from (optional).
  /// - Throws: An `NSError` in ``RequestError/errorDomain``: ``PresentationError/Code/codeAdAlreadyUsed``
  ///   (18) once presented, ``PresentationError/Code/codeAdNotReady`` (15) once expired.
  public func canPresent(from rootViewController: (any AdPresenting)?) throws {
    if let error = state.withLock({ presentationError(state: $0) }) { throw error }
  }

  /// Presents the ad, once.
  ///
  /// Tells ``fullScreenContentDelegate`` about each step; a second call, or a call after the ad
  /// expired, fails through ``FullScreenContentDelegate/ad(_:didFailToPresentFullScreenContentWithError:)``.
  /// - Parameters:
  ///   - rootViewController: What to present from; `nil` for the app's root.
  ///   - userDidEarnRewardHandler: Called when the user earned the reward — usually before
  ///     `adDidDismissFullScreenContent`, but mediated demand may call it after, or twice.
  public func present(
    from rootViewController: (any AdPresenting)?,
    userDidEarnRewardHandler: @escaping GADUserDidEarnRewardHandler
  ) {
    let scheduler = mobileAds.scheduler
    let refusal = state.withLock { state -> NSError? in
      if let error = presentationError(state: state) { return error }
      state.used = true
      return nil
    }
    if let refusal {
      scheduler.execute { [self] in
        notify { $0.ad(self, didFailToPresentFullScreenContentWithError: refusal) }
      }
      return
    }
    let plan = mobileAds.planPresentation()
    if plan.failed {
      scheduler.execute { [self] in
        notify {
          $0.ad(
            self,
            didFailToPresentFullScreenContentWithError: NSError.gad(
              PresentationError.Code.codeInternal, "Internal error: the ad failed to present."))
        }
      }
      return
    }
    let reward = Locked<GADUserDidEarnRewardHandler?>(userDidEarnRewardHandler)
    let rewardAction: @Sendable () -> Void = { reward.get()?() }
    // Schedule in time order; events due at the same instant keep their logical order (a stable
    // insertion sort of at most seven entries).
    var timeline: [TimedAction] = []
    timeline.reserveCapacity(7)
    func add(_ time: Duration, _ action: @escaping @Sendable () -> Void) {
      var index = timeline.endIndex
      while index > 0, timeline[index - 1].time > time { index -= 1 }
      timeline.insert(TimedAction(time: time, action: action), at: index)
    }
    add(.zero) { [self] in notify { $0.adWillPresentFullScreenContent(self) } }
    add(plan.impression) { [self] in
      notify { $0.adDidRecordImpression(self) }
      if let paid = callbacks.get().paidEvent {
        paid(
          AdValue(
            amount: priceECPM / 1000, precision: .precise, currencyCode: "USD"))
      }
    }
    if let click = plan.click { add(click) { [self] in notify { $0.adDidRecordClick(self) } } }
    // The ad server's SSV callback follows the earned reward, once, whatever the client's reward
    // handler does (late, twice); it comes before a reward handler due at the same time.
    if let earned = plan.earned { add(earned) { [self] in recordRewardCallback() } }
    if let first = plan.rewards.first { add(first, rewardAction) }
    if let second = plan.rewards.second { add(second, rewardAction) }
    add(plan.willDismiss) { [self] in notify { $0.adWillDismissFullScreenContent(self) } }
    add(plan.didDismiss) { [self] in notify { $0.adDidDismissFullScreenContent(self) } }
    for entry in timeline { scheduler.schedule(after: entry.time, entry.action) }
  }

  /// One step of a presentation's timeline. (A struct, not a tuple: an array of tuples holding
  /// references is destroyed through the runtime's generic witnesses.)
  private struct TimedAction {
    let time: Duration
    let action: @Sendable () -> Void
  }

  private func presentationError(state: State) -> NSError? {
    if state.used {
      return .gad(
        PresentationError.Code.codeAdAlreadyUsed,
        "Ad has already been used. Rewarded ads are single-use; load a new ad.")
    }
    if mobileAds.scheduler.now - loadedAt >= mobileAds.profile.adLifetime {
      return .gad(
        PresentationError.Code.codeAdNotReady,
        "Ad is not ready: it expired one hour after it loaded. Load a new ad.")
    }
    return nil
  }

  private func notify(_ call: (any FullScreenContentDelegate) -> Void) {
    if let delegate = callbacks.get().delegate { call(delegate) }
  }

  private func recordRewardCallback() {
    let options = state.withLock { $0.serverSideVerificationOptions }
    mobileAds.recordRewardCallback(hasCallbackURL: serverSideVerificationURL != nil) {
      RewardCallbackRecord(
        adUnitID: adUnitID, customData: options?.customRewardText, userIdentifier: options?.userIdentifier,
        rewardType: adReward.type, rewardAmount: adReward.amount.decimalValue, responseInfo: responseInfo,
        callbackURL: serverSideVerificationURL)
    }
  }
}
