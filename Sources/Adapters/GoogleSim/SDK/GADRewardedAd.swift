import Foundation
import MediationKit
import Synchronization

/// The handler ``GADRewardedAd/present(fromRootViewController:userDidEarnRewardHandler:)`` calls
/// when the user earned the reward; read ``GADRewardedAd/adReward`` inside it.
public typealias GADUserDidEarnRewardHandler = () -> Void

/// The handler a rewarded ad load calls with the ad, or with an error.
public typealias GADRewardedAdLoadCompletionHandler = (GADRewardedAd?, (any Error)?) -> Void

/// A rewarded ad: single-use, expires one hour after it loaded.
///
/// Load one with ``load(withAdUnitID:request:completionHandler:)`` (or its `async` form), set
/// ``fullScreenContentDelegate``, then call
/// ``present(fromRootViewController:userDidEarnRewardHandler:)`` once. Every callback runs on the
/// scheduler of the ``GADMobileAds`` instance that loaded it.
public final class GADRewardedAd: GADFullScreenPresentingAd, Sendable {
  /// The ad unit ID the ad was loaded for.
  public let adUnitID: String
  /// Information about the ad response that returned the ad.
  public let responseInfo: GADResponseInfo
  /// The reward the user earns, readable as soon as the ad loaded.
  public let adReward: GADAdReward

  let mobileAds: GADMobileAds
  /// When the ad loaded, on the scheduler's clock.
  let loadedAt: Duration
  /// What the impression will pay, in USD per thousand.
  let priceECPM: Double

  private struct State {
    var used = false
    var serverSideVerificationOptions: GADServerSideVerificationOptions?
  }

  private let state = Mutex(State())
  private let delegate = SchedulerConfined(WeakDelegate())
  private let paidEvent = SchedulerConfined<GADPaidEventHandler?>(nil)

  init(adUnitID: String, served: GADMobileAds.ServedAd, mobileAds: GADMobileAds) {
    self.adUnitID = adUnitID
    self.responseInfo = GADResponseInfo(
      responseIdentifier: served.responseIdentifier, adNetworkClassName: "GADMAdapterGoogleAdMobAds")
    self.adReward = GADAdReward(
      rewardType: served.reward.type, rewardAmount: NSDecimalNumber(decimal: served.reward.amount))
    self.mobileAds = mobileAds
    self.loadedAt = mobileAds.scheduler.now
    self.priceECPM = served.priceECPM
  }

  /// The delegate told about the full-screen lifecycle. Held weakly, as in the real SDK.
  public var fullScreenContentDelegate: (any GADFullScreenContentDelegate)? {
    get { delegate.get().object }
    set { delegate.set(WeakDelegate(object: newValue)) }
  }

  /// Options for server-side verification of the reward; copied when set. Set before presenting.
  public var serverSideVerificationOptions: GADServerSideVerificationOptions? {
    get { state.withLock { $0.serverSideVerificationOptions } }
    set {
      let copy = newValue?.copy()
      state.withLock { $0.serverSideVerificationOptions = copy }
    }
  }

  /// Called when the impression earns money, with its value.
  public var paidEventHandler: GADPaidEventHandler? {
    get { paidEvent.get() }
    set { paidEvent.set(newValue) }
  }

  // MARK: Loading

  /// Loads a rewarded ad through the shared ``GADMobileAds`` instance.
  ///
  /// - Parameters:
  ///   - adUnitID: The ad unit to load.
  ///   - request: Targeting for the request.
  ///   - completionHandler: Called once, on the scheduler, with the ad or an `NSError` in
  ///     ``GADErrorDomain``.
  public static func load(
    withAdUnitID adUnitID: String, request: GADRequest?,
    completionHandler: @escaping GADRewardedAdLoadCompletionHandler
  ) {
    load(
      withAdUnitID: adUnitID, request: request, mobileAds: .sharedInstance(),
      completionHandler: completionHandler)
  }

  /// Loads a rewarded ad through `mobileAds` (simulator extension: no global state).
  ///
  /// - Parameters:
  ///   - adUnitID: The ad unit to load.
  ///   - request: Targeting for the request.
  ///   - mobileAds: The SDK instance whose scheduler, random stream and profile the load uses.
  ///   - completionHandler: Called once, on `mobileAds`' scheduler, with the ad or an `NSError`
  ///     in ``GADErrorDomain``.
  public static func load(
    withAdUnitID adUnitID: String, request: GADRequest?, mobileAds: GADMobileAds,
    completionHandler: @escaping GADRewardedAdLoadCompletionHandler
  ) {
    let plan = mobileAds.planLoad(adUnitID: adUnitID)
    let handler = SchedulerConfined<GADRewardedAdLoadCompletionHandler?>(completionHandler)
    mobileAds.scheduler.schedule(after: plan.delay) {
      guard let completionHandler = handler.exchange(nil) else { return }
      switch plan.outcome {
      case .success(let served):
        completionHandler(GADRewardedAd(adUnitID: adUnitID, served: served, mobileAds: mobileAds), nil)
      case .failure(let error):
        completionHandler(nil, error)
      }
    }
  }

  /// Loads a rewarded ad through the shared ``GADMobileAds`` instance.
  ///
  /// - Parameters:
  ///   - adUnitID: The ad unit to load.
  ///   - request: Targeting for the request.
  /// - Returns: The loaded ad.
  /// - Throws: An `NSError` in ``GADErrorDomain``.
  public static func load(withAdUnitID adUnitID: String, request: GADRequest?) async throws -> GADRewardedAd {
    try await load(withAdUnitID: adUnitID, request: request, mobileAds: .sharedInstance())
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
  /// - Throws: An `NSError` in ``GADErrorDomain``.
  public static func load(
    withAdUnitID adUnitID: String, request: GADRequest?, mobileAds: GADMobileAds
  ) async throws -> GADRewardedAd {
    try await withCheckedThrowingContinuation { continuation in
      load(withAdUnitID: adUnitID, request: request, mobileAds: mobileAds) { ad, error in
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
  /// - Throws: An `NSError` in ``GADErrorDomain``: ``GADPresentationErrorCode/adAlreadyUsed``
  ///   (18) once presented, ``GADPresentationErrorCode/adNotReady`` (15) once expired.
  public func canPresent(fromRootViewController rootViewController: (any AdPresenting)?) throws {
    if let error = state.withLock({ presentationError(state: $0) }) { throw error }
  }

  /// Presents the ad, once.
  ///
  /// Tells ``fullScreenContentDelegate`` about each step; a second call, or a call after the ad
  /// expired, fails through ``GADFullScreenContentDelegate/ad(_:didFailToPresentFullScreenContentWithError:)``.
  /// - Parameters:
  ///   - rootViewController: What to present from; `nil` for the app's root.
  ///   - userDidEarnRewardHandler: Called when the user earned the reward — usually before
  ///     `adDidDismissFullScreenContent`, but mediated demand may call it after, or twice.
  public func present(
    fromRootViewController rootViewController: (any AdPresenting)?,
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
    if let failure = plan.failure {
      scheduler.execute { [self] in
        notify { $0.ad(self, didFailToPresentFullScreenContentWithError: failure) }
      }
      return
    }
    let reward = SchedulerConfined<GADUserDidEarnRewardHandler?>(userDidEarnRewardHandler)
    let rewardRecorded = Atomic<Bool>(false)
    // Schedule in time order so that events due at the same instant keep their logical order.
    var timeline: [(Duration, @Sendable () -> Void)] = []
    timeline.append((.zero, { [self] in notify { $0.adWillPresentFullScreenContent(self) } }))
    timeline.append(
      (
        plan.impression,
        { [self] in
          notify { $0.adDidRecordImpression(self) }
          let value = GADAdValue(
            value: NSDecimalNumber(value: priceECPM / 1000), precision: .precise, currencyCode: "USD")
          paidEvent.get()?(value)
        }
      ))
    if let click = plan.click {
      timeline.append((click, { [self] in notify { $0.adDidRecordClick(self) } }))
    }
    for time in plan.rewards {
      timeline.append(
        (
          time,
          { [self] in
            if !rewardRecorded.exchange(true, ordering: .acquiringAndReleasing) { recordRewardCallback() }
            reward.get()?()
          }
        ))
    }
    timeline.append((plan.willDismiss, { [self] in notify { $0.adWillDismissFullScreenContent(self) } }))
    timeline.append((plan.didDismiss, { [self] in notify { $0.adDidDismissFullScreenContent(self) } }))
    for (time, action) in timeline.enumerated().sorted(by: {
      ($0.element.0, $0.offset) < ($1.element.0, $1.offset)
    })
    .map(\.element) {
      scheduler.schedule(after: time, action)
    }
  }

  private func presentationError(state: State) -> NSError? {
    if state.used {
      return .gad(
        GADPresentationErrorCode.adAlreadyUsed,
        "Ad has already been used. Rewarded ads are single-use; load a new ad.")
    }
    if mobileAds.scheduler.now - loadedAt >= mobileAds.profile.adLifetime {
      return .gad(.adNotReady, "Ad is not ready: it expired one hour after it loaded. Load a new ad.")
    }
    return nil
  }

  private func notify(_ call: (any GADFullScreenContentDelegate) -> Void) {
    if let delegate = delegate.get().object { call(delegate) }
  }

  private func recordRewardCallback() {
    let options = serverSideVerificationOptions
    mobileAds.recordRewardCallback(
      GADSimulatedRewardCallback(
        adUnitID: adUnitID, customData: options?.customRewardString, userIdentifier: options?.userIdentifier,
        rewardType: adReward.type, rewardAmount: adReward.amount.decimalValue,
        transactionID: responseInfo.responseIdentifier ?? ""))
  }
}
