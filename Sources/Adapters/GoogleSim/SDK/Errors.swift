import Foundation

/// The Google Mobile Ads request errors: the error domain, and the load error codes with the real
/// SDK's raw values.
///
/// The simulated SDK reports errors as `NSError`s in ``errorDomain``, as the real SDK does; compare
/// `(error as NSError).code` with a code's `rawValue`, e.g. `RequestError.noFill.rawValue`. Each
/// code is also a static member (`RequestError.noFill`), as in the SDK's bridged error type.
public struct RequestError: Sendable {
  /// The Google Mobile Ads error domain: every load and presentation error is in it.
  public static let errorDomain = "com.google.admob"

  /// Load error codes in ``RequestError/errorDomain``.
  public enum Code: Int, Sendable, CaseIterable {
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

  /// ``Code/invalidRequest``.
  public static let invalidRequest = Code.invalidRequest
  /// ``Code/noFill``.
  public static let noFill = Code.noFill
  /// ``Code/networkError``.
  public static let networkError = Code.networkError
  /// ``Code/serverError``.
  public static let serverError = Code.serverError
  /// ``Code/osVersionTooLow``.
  public static let osVersionTooLow = Code.osVersionTooLow
  /// ``Code/timeout``.
  public static let timeout = Code.timeout
  /// ``Code/mediationDataError``.
  public static let mediationDataError = Code.mediationDataError
  /// ``Code/mediationAdapterError``.
  public static let mediationAdapterError = Code.mediationAdapterError
  /// ``Code/mediationNoFill``.
  public static let mediationNoFill = Code.mediationNoFill
  /// ``Code/mediationInvalidAdSize``.
  public static let mediationInvalidAdSize = Code.mediationInvalidAdSize
  /// ``Code/internalError``.
  public static let internalError = Code.internalError
  /// ``Code/invalidArgument``.
  public static let invalidArgument = Code.invalidArgument
  /// ``Code/receivedInvalidResponse``.
  public static let receivedInvalidResponse = Code.receivedInvalidResponse
  /// ``Code/adAlreadyUsed``.
  public static let adAlreadyUsed = Code.adAlreadyUsed
  /// ``Code/applicationIdentifierMissing``.
  public static let applicationIdentifierMissing = Code.applicationIdentifierMissing
}

/// The presentation errors of the Google Mobile Ads SDK, reported through
/// ``FullScreenContentDelegate/ad(_:didFailToPresentFullScreenContentWithError:)`` and thrown by
/// ``RewardedAd/canPresent(from:)``; in the same domain as ``RequestError``.
public struct PresentationError: Sendable {
  /// The Google Mobile Ads error domain (the same as ``RequestError/errorDomain``).
  public static let errorDomain = RequestError.errorDomain

  /// Presentation error codes in ``PresentationError/errorDomain``.
  public enum Code: Int, Sendable, CaseIterable {
    /// The ad isn't ready to be shown. The simulated SDK reports an expired ad with this code.
    case codeAdNotReady = 15
    /// The ad is too large for the scene.
    case codeAdTooLarge = 16
    /// Internal error.
    case codeInternal = 17
    /// The ad has already been used (rewarded ads are single-use).
    case codeAdAlreadyUsed = 18
    /// Attempted to present the ad from a non-main thread.
    case notMainThread = 21
    /// A mediation adapter failed to present the ad.
    case mediation = 22
  }

  /// ``Code/codeAdNotReady``.
  public static let codeAdNotReady = Code.codeAdNotReady
  /// ``Code/codeAdTooLarge``.
  public static let codeAdTooLarge = Code.codeAdTooLarge
  /// ``Code/codeInternal``.
  public static let codeInternal = Code.codeInternal
  /// ``Code/codeAdAlreadyUsed``.
  public static let codeAdAlreadyUsed = Code.codeAdAlreadyUsed
  /// ``Code/notMainThread``.
  public static let notMainThread = Code.notMainThread
  /// ``Code/mediation``.
  public static let mediation = Code.mediation
}

extension NSError {
  /// An error in ``RequestError/errorDomain`` with `code` and a localized description.
  static func gad(_ code: Int, _ description: String) -> NSError {
    NSError(domain: RequestError.errorDomain, code: code, userInfo: [NSLocalizedDescriptionKey: description])
  }

  static func gad(_ code: RequestError.Code, _ description: String) -> NSError {
    gad(code.rawValue, description)
  }

  static func gad(_ code: PresentationError.Code, _ description: String) -> NSError {
    gad(code.rawValue, description)
  }
}

/// A load or bid failure as the simulated ad server decides it: a code in ``RequestError/errorDomain`` and
/// its description, as a plain value. The `NSError` the vendor API reports is built from it only
/// when a vendor completion handler receives it; the adapter maps the code directly.
struct GADSimulatedFailure: Error, Equatable {
  var code: Int
  var message: String

  var nsError: NSError { .gad(code, message) }

  static let noFill = GADSimulatedFailure(
    code: RequestError.Code.noFill.rawValue, message: "Request Error: No ad to show.")
  static let timeout = GADSimulatedFailure(
    code: RequestError.Code.timeout.rawValue,
    message: "Request Error: The Google ad request was unable to be fulfilled before a timeout occurred.")
  static let networkError = GADSimulatedFailure(
    code: RequestError.Code.networkError.rawValue, message: "Request Error: A network error occurred.")
  static let emptyAdUnitID = GADSimulatedFailure(
    code: RequestError.Code.invalidRequest.rawValue, message: "Invalid ad unit ID: the ad unit ID is empty.")
  static let invalidAdString = GADSimulatedFailure(
    code: RequestError.Code.invalidRequest.rawValue,
    message: "Invalid request: the ad string is not a bid of this ad unit, or it expired.")
  static let usedAdString = GADSimulatedFailure(
    code: RequestError.Code.invalidRequest.rawValue,
    message: "Invalid request: the ad string was already used.")
  static let noBidChildDirected = GADSimulatedFailure(
    code: RequestError.Code.noFill.rawValue,
    message: "No bid: the request is tagged for child-directed treatment."
  )
  static let noBid = GADSimulatedFailure(code: RequestError.Code.noFill.rawValue, message: "No bid.")
}
