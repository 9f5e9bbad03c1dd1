import MediationKit

/// The Beacon adapter: the SDK's one listener goes to a ``GlobalListenerRouter``, which keeps the
/// loads waiting for availability and sends each show callback to the show it belongs to.
public final class BeaconAdapter: RewardedAdapter {
  public let info = BeaconNetwork.info
  /// The SDK this adapter drives (one per mediator in the simulation; see ``BeaconAds``).
  public let sdk: BeaconAds
  let router: GlobalListenerRouter
  private let appKey: String
  private let startCompletion = Locked<(@Sendable (Result<Void, AdapterError>) -> Void)?>(nil)

  public init(sdk: BeaconAds, appKey: String) {
    self.sdk = sdk
    self.appKey = appKey
    // Weak: the SDK holds the listener, which holds the router.
    self.router = GlobalListenerRouter { [weak sdk] placementID in sdk?.loadAd(placement: placementID) }
  }

  public func start(
    _ request: AdapterStartRequest, completion: @escaping @Sendable (Result<Void, AdapterError>) -> Void
  ) {
    startCompletion.withLock { $0 = completion }
    sdk.setListener(Listener(router: router) { [weak self] error in self?.didStart(error) })
    sdk.start(appKey: appKey)
  }

  fileprivate func didStart(_ error: BeaconError?) {
    if let error {
      let failure = Self.adapterError(error)
      router.startFailed(failure)
      startCompletion.withLock { $0.take() }?(.failure(failure))
    } else {
      router.started()
      startCompletion.withLock { $0.take() }?(.success(()))
    }
  }

  public func load(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void
  ) -> Cancellable {
    let placementID = request.placementID
    return router.load(request) { [self] result in
      completion(
        result.map { AdapterLoadedAd(ad: BeaconAd(adapter: self, ticket: $0, placementID: placementID)) })
    }
  }

  /// Beacon's codes, normalized.
  static func adapterError(_ error: BeaconError) -> AdapterError {
    let kind: AdapterError.Kind =
      switch error.code {
      case BeaconError.noFill.code: .noFill
      case BeaconError.notAvailable.code: .notReady
      case BeaconError.notStarted.code, BeaconError.badAppKey.code: .notInitialized
      default: .internalError
      }
    return AdapterError(kind, vendorCode: error.code, message: error.message)
  }
}

/// One load's ad object: several can stand for the SDK's one ad of a placement.
private final class BeaconAd: AdapterAd {
  let adapter: BeaconAdapter
  let ticket: UInt64
  let placementID: String

  init(adapter: BeaconAdapter, ticket: UInt64, placementID: String) {
    self.adapter = adapter
    self.ticket = ticket
    self.placementID = placementID
  }

  func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {
    adapter.router.showStarted(ticket, placementID: placementID, signals: signals)
    adapter.sdk.showAd(placement: placementID, from: presenter)
  }

  func discard() { adapter.router.discarded(ticket) }
}

/// The SDK's one listener, translated and handed to the router.
private final class Listener: BeaconListener {
  private let router: GlobalListenerRouter
  private let didStart: @Sendable (BeaconError?) -> Void

  init(router: GlobalListenerRouter, didStart: @escaping @Sendable (BeaconError?) -> Void) {
    self.router = router
    self.didStart = didStart
  }

  func beaconDidStart(error: BeaconError?) { didStart(error) }

  func beaconAvailabilityChanged(placement: String, available: Bool) {
    router.availabilityChanged(placementID: placement, available: available)
  }

  func beaconLoadFailed(placement: String, error: BeaconError) {
    router.loadFailed(placementID: placement, BeaconAdapter.adapterError(error))
  }

  func beaconAdOpened(placement: String, impression: String) {
    router.send(.displayed, placementID: placement, impressionID: impression)
  }

  func beaconAdClicked(placement: String, impression: String) {
    router.send(.clicked, placementID: placement, impressionID: impression)
  }

  func beaconAdRewarded(placement: String, impression: String, reward: BeaconReward) {
    let payload = AdapterSignal.NetworkReward(type: reward.name, amount: Double(reward.amount))
    router.send(.rewarded(payload), placementID: placement, impressionID: impression)
  }

  func beaconAdClosed(placement: String, impression: String) {
    router.send(.dismissed, placementID: placement, impressionID: impression)
  }

  func beaconAdShowFailed(placement: String, error: BeaconError) {
    router.send(.showFailed(BeaconAdapter.adapterError(error)), placementID: placement)
  }
}
