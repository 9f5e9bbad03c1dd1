import Foundation
import MediationKit
import Synchronization

/// MediationKit's adapter for Google AdMob: translates the (simulated) Google Mobile Ads SDK's
/// completion handlers, reward handler and ``GADFullScreenContentDelegate`` callbacks into
/// ``AdapterSignal``s, and nothing more.
///
/// Every load goes through the adapter's own ``GADMobileAds`` instance, never the shared one.
public final class GoogleAdapter: RewardedAdapter {
  /// The network and versions this adapter drives.
  public let info: AdapterInfo
  /// The SDK instance this adapter loads through.
  public let mobileAds: GADMobileAds

  /// Creates an adapter on its own SDK instance.
  ///
  /// - Parameters:
  ///   - mobileAds: The SDK instance to start and load through.
  ///   - info: What the adapter reports about itself.
  public init(mobileAds: GADMobileAds, info: AdapterInfo = GoogleNetwork.info) {
    self.mobileAds = mobileAds
    self.info = info
  }

  /// Starts the SDK; succeeds when the Google SDK's own adapter status is `.ready`.
  ///
  /// Mediation adapters that are not ready do not fail the start: the SDK still asks them
  /// for ads once they finish initializing.
  /// - Parameters:
  ///   - request: Unused: the Google SDK needs no placements to start.
  ///   - completion: Called once with the outcome.
  public func start(
    _ request: AdapterStartRequest, completion: @escaping @Sendable (Result<Void, AdapterError>) -> Void
  ) {
    mobileAds.start { status in
      let sdk = status.adapterStatusesByClassName[GADMobileAds.sdkAdapterClassName]
      if sdk?.state == .ready {
        completion(.success(()))
      } else {
        completion(
          .failure(
            AdapterError(
              .notInitialized, message: "Google Mobile Ads did not start: \(sdk?.description ?? "no status")")
          ))
      }
    }
  }

  /// Loads one rewarded ad with the completion-handler form of `GADRewardedAd.load`.
  ///
  /// The line item's eCPM and reward are handed to the simulated ad server first (what the
  /// AdMob console holds for a real ad unit). The loaded ad reports `ecpm: nil` — AdMob does not
  /// reveal a price before the impression; the paid event reports it — and a one-hour lifetime.
  /// - Parameters:
  ///   - request: The ad unit ID and line item.
  ///   - completion: Called at most once, on the SDK's scheduler.
  /// - Returns: A handle that makes the adapter ignore the load's outcome and drop its ad (the SDK
  ///   cannot stop a request in flight).
  public func load(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void
  ) -> Cancellable {
    mobileAds.setSimulatedAdUnit(
      GADSimulatedAdUnit(
        ecpm: request.ecpm, rewardType: request.reward.type,
        rewardAmount: Decimal(request.reward.amount)),
      forAdUnitID: request.placementID)
    let token = LoadToken()
    let lifetime = mobileAds.profile.adLifetime
    GADRewardedAd.load(withAdUnitID: request.placementID, request: GADRequest(), mobileAds: mobileAds) {
      ad, error in
      guard token.finish() else { return }  // cancelled: ignore the outcome, drop the ad
      if let ad {
        completion(.success(AdapterLoadedAd(ad: GoogleAdapterAd(ad), ecpm: nil, lifetime: lifetime)))
      } else {
        completion(.failure(Self.adapterError(from: error)))
      }
    }
    return Cancellable { _ = token.finish() }
  }

  /// Maps an error from the Google Mobile Ads SDK to an ``AdapterError``, keeping its code.
  ///
  /// - Parameter error: An `NSError` in ``GADErrorDomain`` (anything else is an internal error).
  /// - Returns: The normalized error.
  static func adapterError(from error: (any Error)?) -> AdapterError {
    guard let error else {
      return AdapterError(.internalError, message: "The SDK reported neither ad nor error.")
    }
    let nsError = error as NSError
    let message = nsError.localizedDescription
    guard nsError.domain == GADErrorDomain else {
      return AdapterError(.internalError, vendorCode: nsError.code, message: message)
    }
    let kind: AdapterError.Kind
    switch nsError.code {
    case GADErrorCode.invalidRequest.rawValue, GADErrorCode.invalidArgument.rawValue: kind = .invalidRequest
    case GADErrorCode.noFill.rawValue, GADErrorCode.mediationNoFill.rawValue: kind = .noFill
    case GADErrorCode.networkError.rawValue, GADErrorCode.serverError.rawValue: kind = .networkError
    case GADErrorCode.timeout.rawValue: kind = .timeout
    case GADErrorCode.applicationIdentifierMissing.rawValue: kind = .notInitialized
    // A loaded ad is only "not ready" once it expired (the simulated SDK's expiry code).
    case GADPresentationErrorCode.adNotReady.rawValue: kind = .expired
    case GADPresentationErrorCode.adAlreadyUsed.rawValue, GADErrorCode.adAlreadyUsed.rawValue:
      kind = .notReady
    default: kind = .internalError
    }
    return AdapterError(kind, vendorCode: nsError.code, message: message)
  }
}

/// Whether a load has finished (completed or cancelled): the first of the two wins.
private final class LoadToken: Sendable {
  private let finished = Atomic<Bool>(false)

  /// Marks the load finished. Returns `true` for the first caller only.
  func finish() -> Bool { !finished.exchange(true, ordering: .acquiringAndReleasing) }
}

/// One loaded `GADRewardedAd`, as MediationKit's single-use ``AdapterAd``.
final class GoogleAdapterAd: AdapterAd, GADFullScreenContentDelegate {
  private struct State {
    var ad: GADRewardedAd?
    var signals: AdapterSignalSink?
  }

  private let state: Mutex<State>

  init(_ ad: GADRewardedAd) {
    state = Mutex(State(ad: ad))
  }

  /// The SDK's ad, until discarded.
  var rewardedAd: GADRewardedAd? { state.withLock { $0.ad } }

  func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignalSink) {
    let ad = state.withLock { state -> GADRewardedAd? in
      if state.ad != nil { state.signals = signals }
      return state.ad
    }
    guard let ad else {
      signals.send(.showFailed(AdapterError(.notReady, message: "The ad was discarded.")))
      return
    }
    ad.fullScreenContentDelegate = self
    if let customData = request.customData {
      let options = GADServerSideVerificationOptions()
      options.customRewardString = customData
      ad.serverSideVerificationOptions = options
    }
    ad.paidEventHandler = { [weak self] value in
      self?.send(
        .revenuePaid(
          ImpressionRevenue(usd: value.value.doubleValue, precision: Self.precision(value.precision))))
    }
    // Strong capture: a late reward must still be forwarded after the dismissal.
    ad.present(fromRootViewController: presenter) {
      self.send(.rewarded(NetworkReward(type: ad.adReward.type, amount: ad.adReward.amount.doubleValue)))
    }
  }

  func discard() {
    let ad = state.withLock { state -> GADRewardedAd? in
      defer { state = State() }
      return state.ad
    }
    ad?.fullScreenContentDelegate = nil
    ad?.paidEventHandler = nil
  }

  private func send(_ signal: AdapterSignal) {
    state.withLock { $0.signals }?.send(signal)
  }

  private static func precision(_ precision: GADAdValuePrecision) -> RevenuePrecision {
    switch precision {
    case .precise: .exact
    case .publisherProvided: .publisherDefined
    case .estimated, .unknown: .estimated
    }
  }

  // MARK: GADFullScreenContentDelegate

  func adDidRecordImpression(_ ad: any GADFullScreenPresentingAd) { send(.displayed) }

  func adDidRecordClick(_ ad: any GADFullScreenPresentingAd) { send(.clicked) }

  func ad(_ ad: any GADFullScreenPresentingAd, didFailToPresentFullScreenContentWithError error: any Error) {
    send(.showFailed(GoogleAdapter.adapterError(from: error)))
  }

  func adDidDismissFullScreenContent(_ ad: any GADFullScreenPresentingAd) { send(.dismissed) }
}
