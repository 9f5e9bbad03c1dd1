import Foundation

/// The Google Mobile Ads error domain (`kGADErrorDomain` / `GADErrorDomain` in the real SDK).
public let GADErrorDomain = "com.google.admob"

/// Load error codes in ``GADErrorDomain``, with the real SDK's raw values.
public enum GADErrorCode: Int, Sendable, CaseIterable {
  /// The ad request is invalid (e.g. a missing ad unit ID).
  case invalidRequest = 0
  /// The ad request was successful, but no ad was returned.
  case noFill = 1
  /// There was an error loading data from the network.
  case networkError = 2
  /// The ad server experienced a failure processing the request.
  case serverError = 3
  /// The current device's OS is below the minimum required version.
  case osVersionTooLow = 4
  /// The request was unable to be loaded before being timed out.
  case timeout = 5
  /// The mediation response was invalid.
  case mediationDataError = 7
  /// Error finding or creating a mediation ad network adapter.
  case mediationAdapterError = 8
  /// The mediation request was successful, but no ad was returned from any ad network.
  case mediationNoFill = 9
  /// Attempting to pass an invalid ad size to an adapter.
  case mediationInvalidAdSize = 10
  /// Internal error.
  case internalError = 11
  /// Invalid argument error.
  case invalidArgument = 12
  /// Received invalid response.
  case receivedInvalidResponse = 13
  /// Will not send the request because the ad object has already been used.
  case adAlreadyUsed = 19
  /// The application identifier is missing.
  case applicationIdentifierMissing = 20
}

/// Presentation error codes in ``GADErrorDomain`` (`GADPresentationErrorCode`), reported through
/// ``GADFullScreenContentDelegate/ad(_:didFailToPresentFullScreenContentWithError:)``.
public enum GADPresentationErrorCode: Int, Sendable, CaseIterable {
  /// The ad isn't ready to be shown. The simulated SDK reports an expired ad with this code.
  case adNotReady = 15
  /// The ad is too large for the scene.
  case adTooLarge = 16
  /// Internal error.
  case `internal` = 17
  /// The ad has already been used (rewarded ads are single-use).
  case adAlreadyUsed = 18
  /// Attempted to present the ad from a non-main thread.
  case notMainThread = 21
  /// A mediation adapter failed to present the ad.
  case mediation = 22
}

/// `GADErrorNoFill`: the raw value of ``GADErrorCode/noFill``, as the Objective-C constant.
public let GADErrorNoFill = GADErrorCode.noFill.rawValue
/// `GADErrorTimeout`: the raw value of ``GADErrorCode/timeout``.
public let GADErrorTimeout = GADErrorCode.timeout.rawValue
/// `GADErrorInvalidRequest`: the raw value of ``GADErrorCode/invalidRequest``.
public let GADErrorInvalidRequest = GADErrorCode.invalidRequest.rawValue
/// `GADErrorNetworkError`: the raw value of ``GADErrorCode/networkError``.
public let GADErrorNetworkError = GADErrorCode.networkError.rawValue
/// `GADPresentationErrorCodeAdAlreadyUsed`: the raw value of ``GADPresentationErrorCode/adAlreadyUsed``.
public let GADPresentationErrorCodeAdAlreadyUsed = GADPresentationErrorCode.adAlreadyUsed.rawValue
/// `GADPresentationErrorCodeAdNotReady`: the raw value of ``GADPresentationErrorCode/adNotReady``.
public let GADPresentationErrorCodeAdNotReady = GADPresentationErrorCode.adNotReady.rawValue

extension NSError {
  /// An error in ``GADErrorDomain`` with `code` and a localized description.
  static func gad(_ code: Int, _ description: String) -> NSError {
    NSError(domain: GADErrorDomain, code: code, userInfo: [NSLocalizedDescriptionKey: description])
  }

  static func gad(_ code: GADErrorCode, _ description: String) -> NSError {
    gad(code.rawValue, description)
  }

  static func gad(_ code: GADPresentationErrorCode, _ description: String) -> NSError {
    gad(code.rawValue, description)
  }
}

/// A load or bid failure as the simulated ad server decides it: a code in ``GADErrorDomain`` and
/// its description, as a plain value. The `NSError` the vendor API reports is built from it only
/// when a vendor completion handler receives it; the adapter maps the code directly.
struct GADSimulatedFailure: Error, Equatable {
  var code: Int
  var message: String

  var nsError: NSError { .gad(code, message) }

  static let noFill = GADSimulatedFailure(
    code: GADErrorCode.noFill.rawValue, message: "Request Error: No ad to show.")
  static let timeout = GADSimulatedFailure(
    code: GADErrorCode.timeout.rawValue,
    message: "Request Error: The Google ad request was unable to be fulfilled before a timeout occurred.")
  static let networkError = GADSimulatedFailure(
    code: GADErrorCode.networkError.rawValue, message: "Request Error: A network error occurred.")
  static let emptyAdUnitID = GADSimulatedFailure(
    code: GADErrorCode.invalidRequest.rawValue, message: "Invalid ad unit ID: the ad unit ID is empty.")
  static let invalidAdString = GADSimulatedFailure(
    code: GADErrorCode.invalidRequest.rawValue,
    message: "Invalid request: the ad string is not a bid of this ad unit, or it expired.")
  static let usedAdString = GADSimulatedFailure(
    code: GADErrorCode.invalidRequest.rawValue, message: "Invalid request: the ad string was already used.")
  static let noBidChildDirected = GADSimulatedFailure(
    code: GADErrorCode.noFill.rawValue, message: "No bid: the request is tagged for child-directed treatment."
  )
  static let noBid = GADSimulatedFailure(code: GADErrorCode.noFill.rawValue, message: "No bid.")
}
