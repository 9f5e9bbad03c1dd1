import Foundation
import MediationKit
import MediationKitSimulation

/// MediationKit's adapter for Google AdMob: translates the (simulated) Google Mobile Ads SDK's
/// completion handlers, reward handler and ``FullScreenContentDelegate`` callbacks into
/// ``AdapterSignal``s, and nothing more.
///
/// Every load goes through the adapter's own ``MobileAds`` instance, never the shared one. The
/// user's privacy signals reach the SDK through Google's own API: child-directed users through the
/// instance's ``MobileAds/requestConfiguration`` (`tagForChildDirectedTreatment`,
/// `tagForUnderAgeOfConsent`), no GDPR consent as `npa=1` and CCPA do-not-sell as `rdp=1` in the
/// request's ``Extras``. The request's auction id and line item reach the simulated ad server
/// through ``GADSimulatedLoadOptions`` (simulation wiring only).
public final class GoogleAdapter: SimulatedNetwork, ConsentReadBack {
  /// The network and versions this adapter drives.
  public let info: AdapterInfo
  /// The SDK instance this adapter loads through.
  public let mobileAds: MobileAds
  /// One reusable request per combination of privacy parameters (index: `npa` + 2 × `rdp`), built
  /// once: a load allocates no request, extras or dictionary.
  private let requests: [Request]

  /// Creates an adapter on its own SDK instance.
  ///
  /// - Parameters:
  ///   - mobileAds: The SDK instance to start and load through.
  ///   - info: What the adapter reports about itself.
  public init(mobileAds: MobileAds, info: AdapterInfo = GoogleNetwork.info) {
    self.mobileAds = mobileAds
    self.info = info
    self.requests = (0..<4).map { index in
      let request = Request()
      if let extras = Self.extras(nonPersonalized: index & 1 != 0, restrictedDataProcessing: index & 2 != 0) {
        request.register(extras)
      }
      return request
    }
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
      let sdk = status.adapterStatusesByClassName[MobileAds.sdkAdapterClassName]
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

  /// Loads one rewarded ad with the completion-handler form of `RewardedAd.load`.
  ///
  /// The line item's eCPM and reward and the auction id go to the simulated ad server as
  /// ``GADSimulatedLoadOptions``; the privacy signals go through Google's privacy API. A request
  /// that carries a winning ``AdapterLoadRequest/bid`` loads the bid's token as the request's
  /// ``Request/adString``: it fills at the bid's price (reported as the ad's eCPM), or fails as
  /// an invalid request when the token is bad or was used. Otherwise the loaded ad reports
  /// `ecpm: nil` — AdMob does not reveal a price before the impression; the paid event reports
  /// it. Either way the ad lives one hour.
  /// - Parameters:
  ///   - request: The ad unit ID, line item, auction, privacy signals and bid.
  ///   - completion: Called at most once, on the SDK's scheduler.
  /// - Returns: A handle that makes the adapter ignore the load's outcome and drop its ad (the SDK
  ///   cannot stop a request in flight).
  public func load(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void
  ) -> Cancellable {
    let token = LoadToken()
    let lifetime = mobileAds.profile.adLifetime
    let price = request.bid?.price
    RewardedAd.startLoad(
      adUnitID: request.placementID, request: prepare(request), mobileAds: mobileAds,
      options: options(for: request)
    ) { result in
      guard token.finish() else { return }  // cancelled: ignore the outcome, drop the ad
      switch result {
      case .success(let ad):
        completion(.success(AdapterLoadedAd(ad: GoogleAdapterAd(ad), ecpm: price, lifetime: lifetime)))
      case .failure(let failure):
        completion(.failure(Self.adapterError(failure)))
      }
    }
    return Cancellable { token.cancel() }
  }

  /// Asks the simulated ad server for a bid, after its seeded bid latency.
  ///
  /// The bid is the price a load of the same auction would fill at (see ``quote(_:)``); there is
  /// no bid (`.noFill`) when that load would not fill, or at all for a child-directed user.
  /// - Parameters:
  ///   - request: The placement, line item, auction and privacy signals.
  ///   - completion: Called at most once, on the SDK's scheduler, with the bid (its token is the
  ///     ad string to load) or the reason there is none.
  /// - Returns: A handle that withdraws the bid request: `completion` is then never called.
  public func bid(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterBid, AdapterError>) -> Void
  ) -> Cancellable {
    let token = LoadToken()
    let pending = mobileAds.bid(
      adUnitID: request.placementID, request: prepare(request), options: options(for: request)
    ) { result in
      guard token.finish() else { return }
      switch result {
      case .success(let bid): completion(.success(AdapterBid(price: bid.price, token: bid.adString)))
      case .failure(let failure): completion(.failure(Self.adapterError(failure)))
      }
    }
    // Finishes the bid and cancels the SDK's request, unless it already ended.
    return Cancellable { if token.finish() { pending.cancel() } }
  }

  /// What a ``load(_:completion:)`` of `request` would answer, without side effects: whether the
  /// simulated ad server fills it and at what eCPM (after the privacy rules). A pure function of
  /// the SDK instance's seed, the placement id, the auction id, the line item's eCPM and the
  /// privacy settings — or, for a request carrying a bid, whether the bid's token can still be
  /// loaded, at the bid's price.
  ///
  /// - Parameter request: The request to quote.
  /// - Returns: The fill decision and price; a quote that does not fill has an eCPM of 0.
  public func quote(_ request: AdapterLoadRequest) -> SimulatedQuote {
    let answer = mobileAds.quote(
      adUnitID: request.placementID, adUnit: adUnit(for: request), auctionID: request.auctionID,
      privacy: Self.signals(request.privacy), adString: request.bid?.token)
    return SimulatedQuote(fills: answer.fills, ecpm: answer.price)
  }

  // MARK: Request wiring

  /// The privacy signals the SDK derives from what ``prepare(_:)`` sets (`npa=1` without consent,
  /// or the TC string's missing purpose 1 consent, which the SDK reads itself).
  static func signals(_ privacy: PrivacySettings) -> GADPrivacySignals {
    GADPrivacySignals(
      nonPersonalized: privacy.personalizedAdsConsent == false,
      restrictedDataProcessing: privacy.doNotSell == true,
      childDirected: privacy.isChildDirected)
  }

  /// Forwards changed privacy signals at once: the child-directed tags to the request
  /// configuration and the consent strings to the SDK (the booleans go with each request).
  public func privacyDidChange(_ privacy: PrivacySettings) { configure(privacy) }

  /// The consent strings the SDK instance holds.
  public var consentInSDK: IABConsent { mobileAds.simulatedConsentStrings }

  /// Applies the instance-wide signals: the child-directed tags and the consent strings.
  private func configure(_ privacy: PrivacySettings) {
    let configuration = mobileAds.requestConfiguration
    if configuration.tagForChildDirectedTreatment != privacy.isChildDirected {
      configuration.tagForChildDirectedTreatment = privacy.isChildDirected
    }
    if configuration.tagForUnderAgeOfConsent != privacy.isChildDirected {
      configuration.tagForUnderAgeOfConsent = privacy.isChildDirected
    }
    if mobileAds.simulatedConsentStrings != privacy.iab { mobileAds.simulatedConsentStrings = privacy.iab }
  }

  /// Google's privacy parameters: `npa=1` without GDPR consent, `rdp=1` for CCPA do-not-sell.
  private static func extras(nonPersonalized: Bool, restrictedDataProcessing: Bool) -> Extras? {
    guard nonPersonalized || restrictedDataProcessing else { return nil }
    var parameters: [String: String] = [:]
    if nonPersonalized { parameters["npa"] = "1" }
    if restrictedDataProcessing { parameters["rdp"] = "1" }
    let extras = Extras()
    extras.additionalParameters = parameters
    return extras
  }

  /// Applies `request`'s privacy signals to the SDK instance's request configuration and returns
  /// the `Request` to load with.
  private func prepare(_ request: AdapterLoadRequest) -> Request {
    let privacy = request.privacy
    configure(privacy)
    let shared = requests[(privacy.hasUserConsent == false ? 1 : 0) + (privacy.doNotSell == true ? 2 : 0)]
    guard let bid = request.bid else { return shared }
    let bidRequest = Request()
    if let extras = shared.extras { bidRequest.register(extras) }
    bidRequest.adString = bid.token
    return bidRequest
  }

  private func adUnit(for request: AdapterLoadRequest) -> GADSimulatedAdUnit {
    GADSimulatedAdUnit(
      ecpm: request.ecpm, rewardType: request.reward.type, rewardAmount: Self.decimal(request.reward.amount),
      serverSideVerificationURL: request.serverCallback?.url)
  }

  /// `Decimal(amount)`, without `Decimal(Double)`'s cost (microseconds on Linux) for the usual
  /// whole-number rewards.
  private static func decimal(_ amount: Double) -> Decimal {
    if amount == amount.rounded(), abs(amount) < 1e15 { return Decimal(Int64(amount)) }
    return Decimal(amount)
  }

  private func options(for request: AdapterLoadRequest) -> GADSimulatedLoadOptions {
    GADSimulatedLoadOptions(auctionID: request.auctionID, adUnit: adUnit(for: request))
  }

  // MARK: Errors

  /// Maps an error from the Google Mobile Ads SDK to an ``AdapterError``, keeping its code.
  ///
  /// - Parameter error: An `NSError` in ``RequestError/errorDomain`` (anything else is an internal error).
  /// - Returns: The normalized error.
  static func adapterError(from error: (any Error)?) -> AdapterError {
    guard let error else {
      return AdapterError(.internalError, message: "The SDK reported neither ad nor error.")
    }
    let nsError = error as NSError
    let message = nsError.localizedDescription
    guard nsError.domain == RequestError.errorDomain else {
      return AdapterError(.internalError, vendorCode: nsError.code, message: message)
    }
    return AdapterError(kind(forCode: nsError.code), vendorCode: nsError.code, message: message)
  }

  /// Maps a simulated load or bid failure without going through `NSError`.
  static func adapterError(_ failure: GADSimulatedFailure) -> AdapterError {
    AdapterError(kind(forCode: failure.code), vendorCode: failure.code, message: failure.message)
  }

  /// The kind of a code in ``RequestError/errorDomain``.
  static func kind(forCode code: Int) -> AdapterError.Kind {
    switch code {
    case RequestError.Code.invalidRequest.rawValue, RequestError.Code.invalidArgument.rawValue:
      .invalidRequest
    case RequestError.Code.noFill.rawValue, RequestError.Code.mediationNoFill.rawValue: .noFill
    case RequestError.Code.networkError.rawValue, RequestError.Code.serverError.rawValue: .networkError
    case RequestError.Code.timeout.rawValue: .timeout
    case RequestError.Code.applicationIdentifierMissing.rawValue: .notInitialized
    // A loaded ad is only "not ready" once it expired (the simulated SDK's expiry code).
    case PresentationError.Code.codeAdNotReady.rawValue: .expired
    case PresentationError.Code.codeAdAlreadyUsed.rawValue, RequestError.Code.adAlreadyUsed.rawValue:
      .notReady
    default: .internalError
    }
  }
}

/// Whether a load or bid has finished (completed or cancelled): the first of the two wins.
private final class LoadToken: Sendable {
  private let finished = Locked(false)

  /// Marks the load finished. Returns `true` for the first caller only.
  func finish() -> Bool { !finished.exchange(true) }

  /// Cancelling a load finishes it: its outcome is ignored.
  func cancel() { _ = finish() }
}

/// One loaded `RewardedAd`, as MediationKit's single-use ``AdapterAd``.
final class GoogleAdapterAd: AdapterAd, FullScreenContentDelegate {
  private struct State {
    var ad: RewardedAd?
    var signals: AdapterSignal.Sink?
  }

  private let state: Locked<State>

  init(_ ad: RewardedAd) {
    state = Locked(State(ad: ad))
  }

  /// The SDK's ad, until discarded.
  var rewardedAd: RewardedAd? { state.withLock { $0.ad } }

  func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {
    let ad = state.withLock { state -> RewardedAd? in
      if state.ad != nil { state.signals = signals }
      return state.ad
    }
    guard let ad else {
      signals.send(.showFailed(AdapterError(.notReady, message: "The ad was discarded.")))
      return
    }
    ad.fullScreenContentDelegate = self
    if request.customData != nil || request.userID != nil {
      let options = ServerSideVerificationOptions()
      options.customRewardText = request.customData
      options.userIdentifier = request.userID
      ad.serverSideVerificationOptions = options
    }
    ad.paidEventHandler = { [weak self] value in
      self?.send(
        .revenuePaid(
          AdapterSignal.ImpressionRevenue(usd: value.amount, precision: Self.precision(value.precision))))
    }
    // Strong capture: a late reward must still be forwarded after the dismissal.
    ad.present(from: presenter) {
      self.send(
        .rewarded(AdapterSignal.NetworkReward(type: ad.adReward.type, amount: ad.adReward.amount.doubleValue))
      )
    }
  }

  func discard() {
    let ad = state.withLock { state -> RewardedAd? in
      defer { state = State() }
      return state.ad
    }
    ad?.fullScreenContentDelegate = nil
    ad?.paidEventHandler = nil
  }

  private func send(_ signal: AdapterSignal) {
    state.withLock { $0.signals }?.send(signal)
  }

  private static func precision(_ precision: AdValuePrecision) -> AdapterSignal.RevenuePrecision {
    switch precision {
    case .precise: .exact
    case .publisherProvided: .publisherDefined
    case .estimated, .unknown: .estimated
    }
  }

  // MARK: FullScreenContentDelegate

  func adDidRecordImpression(_ ad: any FullScreenPresentingAd) { send(.displayed) }

  func adDidRecordClick(_ ad: any FullScreenPresentingAd) { send(.clicked) }

  func ad(_ ad: any FullScreenPresentingAd, didFailToPresentFullScreenContentWithError error: any Error) {
    send(.showFailed(GoogleAdapter.adapterError(from: error)))
  }

  func adDidDismissFullScreenContent(_ ad: any FullScreenPresentingAd) { send(.dismissed) }
}
