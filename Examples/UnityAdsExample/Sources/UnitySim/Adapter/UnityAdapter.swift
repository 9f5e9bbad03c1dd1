import MediationKit
import MediationKitSimulation

/// MediationKit's adapter for Unity Ads: drives a ``UnityAdsSDK`` and translates its callbacks.
///
/// - `start` → `initialize(_:testMode:initializationDelegate:)`; `initializationComplete` →
///   success, `initializationFailed` → ``AdapterError/Kind/notInitialized``.
/// - `load` commits the request's privacy signals as ``UADSMetaData``, then calls
///   `load(_:loadDelegate:)` with a fresh delegate: `unityAdsAdLoaded` → a new single-use ad
///   (Unity reports no price, so the line item's eCPM applies); `unityAdsAdFailed` → an
///   ``AdapterError``.
/// - While an ad shows: `unityAdsShowStart` → ``AdapterSignal/displayed``, `unityAdsShowClick` →
///   ``AdapterSignal/clicked``, `unityAdsShowComplete(.showCompletionStateCompleted)` →
///   ``AdapterSignal/rewarded(_:)`` (no payload: Unity has no reward callback, the zone's reward
///   applies) then ``AdapterSignal/dismissed``, `unityAdsShowComplete(.showCompletionStateSkipped)`
///   → ``AdapterSignal/dismissed``, `unityAdsShowFailed` → ``AdapterSignal/showFailed(_:)``.
/// - `quote` (``SimulatedNetwork``) tells what a load of a request would do, without loading.
///
/// Unity cannot cancel a load: cancelling only stops listening; the SDK keeps the placement's ad,
/// and the next load of it reports it at once. So two zones loading one placement hold the same
/// SDK ad: a show uses it up for both, and the adapter then withdraws the other zone's ad through
/// its load's ``AdapterLoadRequest/sink``, so the core never leaves it ready to fail.
public final class UnityAdapter: SimulatedNetwork {
  /// The network and versions this adapter drives.
  public let info: AdapterInfo
  /// The SDK instance the adapter drives (its own, not ``UnityAdsSDK/shared``).
  public let sdk: UnityAdsSDK
  private let gameId: String
  private let unshown = UnshownAds()

  /// Creates an adapter driving `sdk`, initialized with `gameId` on start.
  public init(sdk: UnityAdsSDK, gameId: String) {
    self.info = UnityNetwork.info
    self.sdk = sdk
    self.gameId = gameId
  }

  public func start(
    _ request: AdapterStartRequest, completion: @escaping @Sendable (Result<Void, AdapterError>) -> Void
  ) {
    sdk.initialize(gameId, testMode: false, initializationDelegate: InitializationListener(completion))
  }

  public func load(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void
  ) -> Cancellable {
    let metaData = UADSMetaData()
    for (key, value) in Self.metaData(request.privacy) { metaData.set(key, value: value) }
    metaData.commit(to: sdk)
    let listener = LoadListener(
      sdk: sdk, unshown: unshown, sink: request.sink, completion: completion)
    sdk.load(
      request.placementID, loadDelegate: listener, auctionID: request.auctionID == 0 ? nil : request.auctionID
    )
    return Cancellable { listener.cancel() }
  }

  /// What a load of `request` would do, without loading (the simulator's oracle): whether it
  /// fills, at the line item's eCPM since Unity reports no price. Exact for a placement that is
  /// neither loading nor holding an ad; a request with auction id 0 is not keyed, so its quote is
  /// only indicative.
  public func quote(_ request: AdapterLoadRequest) -> SimulatedQuote {
    let fills = sdk.simulatedFill(
      placementId: request.placementID, auctionID: request.auctionID, metaData: Self.metaData(request.privacy)
    )
    return SimulatedQuote(fills: fills, ecpm: fills ? request.ecpm : 0)
  }

  /// The request's privacy signals as Unity metadata: `gdpr.consent`, `privacy.consent` (CCPA)
  /// and `user.nonbehavioral` (COPPA).
  static func metaData(_ privacy: PrivacySettings) -> [String: Bool] {
    var entries = ["user.nonbehavioral": privacy.isChildDirected]
    if let consent = privacy.hasUserConsent { entries["gdpr.consent"] = consent }
    if let doNotSell = privacy.doNotSell { entries["privacy.consent"] = !doNotSell }
    return entries
  }

  /// Maps a load error, keeping Unity's code and message.
  static func adapterError(_ error: UnityAdsLoadError, _ message: String) -> AdapterError {
    let kind: AdapterError.Kind =
      switch error {
      case .initializeFailed: .notInitialized
      case .internal: .internalError
      case .invalidArgument: .invalidRequest
      case .noFill: .noFill
      case .timeout: .timeout
      }
    return AdapterError(kind, vendorCode: error.rawValue, message: message)
  }

  /// Maps a show error, keeping Unity's code and message.
  static func adapterError(_ error: UnityAdsShowError, _ message: String) -> AdapterError {
    let kind: AdapterError.Kind =
      switch error {
      case .showErrorNotInitialized: .notInitialized
      case .showErrorNotReady: .notReady
      case .showErrorVideoPlayerError, .showErrorInternalError: .internalError
      case .showErrorInvalidArgument: .invalidRequest
      case .showErrorNoConnection: .networkError
      case .showErrorAlreadyShowing: .anotherAdShowing
      case .showErrorTimeout: .timeout
      }
    return AdapterError(kind, vendorCode: error.rawValue, message: message)
  }
}

/// Hears the SDK's initialization and completes the adapter's start.
final class InitializationListener: UnityAdsInitializationDelegate, Sendable {
  private let completion: @Sendable (Result<Void, AdapterError>) -> Void

  init(_ completion: @escaping @Sendable (Result<Void, AdapterError>) -> Void) {
    self.completion = completion
  }

  func initializationComplete() { completion(.success(())) }

  func initializationFailed(_ error: UnityAdsInitializationError, withMessage message: String) {
    completion(.failure(AdapterError(.notInitialized, vendorCode: error.rawValue, message: message)))
  }
}

/// The delegate of one load: completes it once, unless the core cancelled it.
final class LoadListener: UnityAdsLoadDelegate, Sendable {
  typealias Completion = @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void

  private let sdk: UnityAdsSDK
  private let unshown: UnshownAds
  private let sink: AdapterSignal.Sink
  /// Taken by the first answer or by cancellation.
  private let completion: Locked<Completion?>

  init(
    sdk: UnityAdsSDK, unshown: UnshownAds, sink: AdapterSignal.Sink,
    completion: @escaping Completion
  ) {
    self.sdk = sdk
    self.unshown = unshown
    self.sink = sink
    self.completion = Locked(completion)
  }

  func cancel() { _ = take() }

  func unityAdsAdLoaded(_ placementId: String) {
    guard let completion = take() else { return }
    let ad = UnityAd(sdk: sdk, placementId: placementId, unshown: unshown)
    unshown.add(ad, sink: sink)
    completion(.success(AdapterLoadedAd(ad: ad)))
  }

  func unityAdsAdFailed(
    toLoad placementId: String, withError error: UnityAdsLoadError, withMessage message: String
  ) {
    take()?(.failure(UnityAdapter.adapterError(error, message)))
  }

  private func take() -> Completion? { completion.withLock { $0.take() } }
}

/// One loaded Unity ad, as handed to the core. Unity keys its ad by placement, so this is the
/// placement's next show.
final class UnityAd: AdapterAd {
  private let sdk: UnityAdsSDK
  let placementId: String
  private let unshown: UnshownAds

  init(sdk: UnityAdsSDK, placementId: String, unshown: UnshownAds) {
    self.sdk = sdk
    self.placementId = placementId
    self.unshown = unshown
  }

  func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {
    unshown.remove(self)
    sdk.show(
      presenter, placementId: placementId,
      showDelegate: ShowListener(signals, placementUsedUp: unshown.usedUp))
  }

  /// Unity has no API to drop a loaded ad: the placement keeps it for the next load.
  func discard() { unshown.remove(self) }
}

/// The ads handed to the core and neither shown nor discarded, by placement, each with its load's
/// sink. Unity holds one ad per placement, so once a show uses it up, every other ad
/// of the placement is gone too and is withdrawn.
final class UnshownAds: Sendable {
  private let ads = Locked<[String: [ObjectIdentifier: AdapterSignal.Sink]]>([:])

  func add(_ ad: UnityAd, sink: AdapterSignal.Sink) {
    ads.withLock { $0[ad.placementId, default: [:]][ObjectIdentifier(ad)] = sink }
  }

  func remove(_ ad: UnityAd) {
    ads.withLock { ads in
      ads[ad.placementId]?[ObjectIdentifier(ad)] = nil
      if ads[ad.placementId]?.isEmpty == true { ads[ad.placementId] = nil }
    }
  }

  /// Withdraws every unshown ad of `placementId`: a show used up the SDK's ad of it. The sinks are
  /// called outside the lock.
  func usedUp(_ placementId: String) {
    let gone = ads.withLock { $0.removeValue(forKey: placementId) } ?? [:]
    let reason = AdapterWithdrawal(
      .invalidated, message: "another show used up Unity's ad of placement '\(placementId)'")
    for sink in gone.values { sink.withdraw(reason) }
  }
}

/// The delegate of one show: translates every callback into a signal, as it comes, and says when
/// the show used up the placement's ad (it started, or failed after the SDK took the ad).
final class ShowListener: UnityAdsShowDelegate, Sendable {
  private let signals: AdapterSignal.Sink
  private let placementUsedUp: @Sendable (String) -> Void

  init(_ signals: AdapterSignal.Sink, placementUsedUp: @escaping @Sendable (String) -> Void = { _ in }) {
    self.signals = signals
    self.placementUsedUp = placementUsedUp
  }

  func unityAdsShowStart(_ placementId: String) {
    placementUsedUp(placementId)
    signals.send(.displayed)
  }

  func unityAdsShowClick(_ placementId: String) { signals.send(.clicked) }

  func unityAdsShowComplete(_ placementId: String, withFinish state: UnityAdsShowCompletionState) {
    switch state {
    case .showCompletionStateCompleted:
      signals.send(.rewarded(nil))
      signals.send(.dismissed)
    case .showCompletionStateSkipped:
      signals.send(.dismissed)
    }
  }

  func unityAdsShowFailed(
    _ placementId: String, withError error: UnityAdsShowError, withMessage message: String
  ) {
    // Only a show refused because another ad is up leaves the placement's ad in the SDK; after
    // any other failure it has none (taken by the failed show, or never loaded).
    if error != .showErrorAlreadyShowing { placementUsedUp(placementId) }
    signals.send(.showFailed(UnityAdapter.adapterError(error, message)))
  }
}
