import Foundation
import MediationKit

// The Swift names of Google Mobile Ads SDK 11 and earlier, which the GAD-prefixed integration guide
// uses. Since version 12 the SDK's Swift API drops the `GAD` prefix; the simulated SDK follows it
// and keeps the old spellings as deprecated aliases, so code written from either compiles. The
// block type aliases (`GADUserDidEarnRewardHandler`, `GADRewardedAdLoadCompletionHandler`,
// `GADPaidEventHandler`, `GADInitializationCompletionHandler`) keep their names, as in the SDK.

@available(*, deprecated, renamed: "RewardedAd")
public typealias GADRewardedAd = RewardedAd
@available(*, deprecated, renamed: "Request")
public typealias GADRequest = Request
@available(*, deprecated, renamed: "Extras")
public typealias GADExtras = Extras
@available(*, deprecated, renamed: "RequestConfiguration")
public typealias GADRequestConfiguration = RequestConfiguration
@available(*, deprecated, renamed: "MobileAds")
public typealias GADMobileAds = MobileAds
@available(*, deprecated, renamed: "FullScreenContentDelegate")
public typealias GADFullScreenContentDelegate = FullScreenContentDelegate
@available(*, deprecated, renamed: "FullScreenPresentingAd")
public typealias GADFullScreenPresentingAd = FullScreenPresentingAd
@available(*, deprecated, renamed: "AdReward")
public typealias GADAdReward = AdReward
@available(*, deprecated, renamed: "ResponseInfo")
public typealias GADResponseInfo = ResponseInfo
@available(*, deprecated, renamed: "ServerSideVerificationOptions")
public typealias GADServerSideVerificationOptions = ServerSideVerificationOptions
@available(*, deprecated, renamed: "AdValue")
public typealias GADAdValue = AdValue
@available(*, deprecated, renamed: "AdValuePrecision")
public typealias GADAdValuePrecision = AdValuePrecision
@available(*, deprecated, renamed: "InitializationStatus")
public typealias GADInitializationStatus = InitializationStatus
@available(*, deprecated, renamed: "AdapterStatus")
public typealias GADAdapterStatus = AdapterStatus
@available(*, deprecated, renamed: "AdapterInitializationState")
public typealias GADAdapterInitializationState = AdapterInitializationState
@available(*, deprecated, renamed: "RequestError.Code")
public typealias GADErrorCode = RequestError.Code
@available(*, deprecated, renamed: "PresentationError.Code")
public typealias GADPresentationErrorCode = PresentationError.Code

/// The Google Mobile Ads error domain, as SDK 11 spelled it in Swift.
@available(*, deprecated, renamed: "RequestError.errorDomain")
public let GADErrorDomain = RequestError.errorDomain
/// `GADErrorNoFill`: the raw value of ``RequestError/Code/noFill``.
@available(*, deprecated, message: "use RequestError.noFill.rawValue")
public let GADErrorNoFill = RequestError.Code.noFill.rawValue
/// `GADErrorTimeout`: the raw value of ``RequestError/Code/timeout``.
@available(*, deprecated, message: "use RequestError.timeout.rawValue")
public let GADErrorTimeout = RequestError.Code.timeout.rawValue
/// `GADErrorInvalidRequest`: the raw value of ``RequestError/Code/invalidRequest``.
@available(*, deprecated, message: "use RequestError.invalidRequest.rawValue")
public let GADErrorInvalidRequest = RequestError.Code.invalidRequest.rawValue
/// `GADErrorNetworkError`: the raw value of ``RequestError/Code/networkError``.
@available(*, deprecated, message: "use RequestError.networkError.rawValue")
public let GADErrorNetworkError = RequestError.Code.networkError.rawValue
/// `GADPresentationErrorCodeAdAlreadyUsed`: the raw value of
/// ``PresentationError/Code/codeAdAlreadyUsed``.
@available(*, deprecated, message: "use PresentationError.codeAdAlreadyUsed.rawValue")
public let GADPresentationErrorCodeAdAlreadyUsed = PresentationError.Code.codeAdAlreadyUsed.rawValue
/// `GADPresentationErrorCodeAdNotReady`: the raw value of ``PresentationError/Code/codeAdNotReady``.
@available(*, deprecated, message: "use PresentationError.codeAdNotReady.rawValue")
public let GADPresentationErrorCodeAdNotReady = PresentationError.Code.codeAdNotReady.rawValue

extension PresentationError.Code {
  /// The simulated SDK's earlier spelling of ``codeAdNotReady``.
  @available(*, deprecated, renamed: "codeAdNotReady")
  public static var adNotReady: Self { .codeAdNotReady }
  /// The simulated SDK's earlier spelling of ``codeAdTooLarge``.
  @available(*, deprecated, renamed: "codeAdTooLarge")
  public static var adTooLarge: Self { .codeAdTooLarge }
  /// The simulated SDK's earlier spelling of ``codeInternal``.
  @available(*, deprecated, renamed: "codeInternal")
  public static var `internal`: Self { .codeInternal }
  /// The simulated SDK's earlier spelling of ``codeAdAlreadyUsed``.
  @available(*, deprecated, renamed: "codeAdAlreadyUsed")
  public static var adAlreadyUsed: Self { .codeAdAlreadyUsed }
}

extension MobileAds {
  /// The process-wide instance, as SDK 11 spelled it in Swift.
  @available(*, deprecated, renamed: "shared")
  public static func sharedInstance() -> MobileAds { shared }
}

extension ServerSideVerificationOptions {
  /// The string passed in the SSV callback's `custom_data` parameter, as SDK 11 spelled it in Swift.
  @available(*, deprecated, renamed: "customRewardText")
  public var customRewardString: String? {
    get { customRewardText }
    set { customRewardText = newValue }
  }
}

extension RewardedAd {
  /// Loads a rewarded ad through the shared ``MobileAds`` instance (SDK 11 spelling).
  @available(*, deprecated, renamed: "load(with:request:completionHandler:)")
  public static func load(
    withAdUnitID adUnitID: String, request: Request?,
    completionHandler: @escaping GADRewardedAdLoadCompletionHandler
  ) {
    load(with: adUnitID, request: request, completionHandler: completionHandler)
  }

  /// Loads a rewarded ad through the shared ``MobileAds`` instance (SDK 11 spelling).
  @available(*, deprecated, renamed: "load(with:request:)")
  public static func load(withAdUnitID adUnitID: String, request: Request?) async throws -> RewardedAd {
    try await load(with: adUnitID, request: request)
  }

  /// Loads a rewarded ad through `mobileAds` (the simulator extension, SDK 11 spelling).
  @available(*, deprecated, renamed: "load(with:request:mobileAds:completionHandler:)")
  public static func load(
    withAdUnitID adUnitID: String, request: Request?, mobileAds: MobileAds,
    completionHandler: @escaping GADRewardedAdLoadCompletionHandler
  ) {
    load(with: adUnitID, request: request, mobileAds: mobileAds, completionHandler: completionHandler)
  }

  /// Loads a rewarded ad through `mobileAds` (the simulator extension, SDK 11 spelling).
  @available(*, deprecated, renamed: "load(with:request:mobileAds:)")
  public static func load(
    withAdUnitID adUnitID: String, request: Request?, mobileAds: MobileAds
  ) async throws -> RewardedAd {
    try await load(with: adUnitID, request: request, mobileAds: mobileAds)
  }

  /// Loads a rewarded ad with simulation wiring (the simulator extension, SDK 11 spelling).
  @available(*, deprecated, renamed: "load(with:request:mobileAds:options:completionHandler:)")
  public static func load(
    withAdUnitID adUnitID: String, request: Request?, mobileAds: MobileAds,
    options: GADSimulatedLoadOptions, completionHandler: @escaping GADRewardedAdLoadCompletionHandler
  ) {
    load(
      with: adUnitID, request: request, mobileAds: mobileAds, options: options,
      completionHandler: completionHandler)
  }

  /// Checks whether the ad can be presented now (SDK 11 spelling).
  @available(*, deprecated, renamed: "canPresent(from:)")
  public func canPresent(fromRootViewController rootViewController: (any AdPresenting)?) throws {
    try canPresent(from: rootViewController)
  }

  /// Presents the ad, once (SDK 11 spelling).
  @available(*, deprecated, renamed: "present(from:userDidEarnRewardHandler:)")
  public func present(
    fromRootViewController rootViewController: (any AdPresenting)?,
    userDidEarnRewardHandler: @escaping GADUserDidEarnRewardHandler
  ) {
    present(from: rootViewController, userDidEarnRewardHandler: userDidEarnRewardHandler)
  }
}
