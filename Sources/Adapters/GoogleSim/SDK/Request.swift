import Foundation
import MediationKit

/// An ad request: targeting information for one load.
///
/// A request can be reused for many loads, as in the real SDK; the simulated SDK reads it when the
/// load starts.
public final class Request: Sendable {
  private struct Storage {
    var keywords: [String]?
    var contentURL: String?
    var adString: String?
    var extras: Extras?
  }

  private let storage = Locked(Storage())

  /// Creates a request with no targeting.
  public init() {}

  /// Words or phrases describing the current activity of the user.
  public var keywords: [String]? {
    get { storage.withLock { $0.keywords } }
    set { storage.withLock { $0.keywords = newValue } }
  }

  /// The URL of content related to the ad, for targeting.
  public var contentURL: String? {
    get { storage.withLock { $0.contentURL } }
    set { storage.withLock { $0.contentURL = newValue } }
  }

  /// An ad response to render instead of requesting one (bidding). When set, the SDK loads the ad
  /// this string stands for and ignores the request's other targeting.
  ///
  /// In the simulated SDK, the ad string is the token of a bid from
  /// ``MobileAds/requestSimulatedBid(forAdUnitID:request:options:completionHandler:)``: a load
  /// fills at the bid's price, or fails with ``RequestError/Code/invalidRequest`` when the token is
  /// unknown, expired, for another ad unit or already used.
  public var adString: String? {
    get { storage.withLock { $0.adString } }
    set { storage.withLock { $0.adString = newValue } }
  }

  /// Registers extras for the request (the real SDK takes any `GADAdNetworkExtras`; the simulated
  /// one knows only ``Extras``). Registering again replaces the previous extras.
  ///
  /// - Parameter extras: The extras; the SDK reads their ``Extras/additionalParameters`` when a
  ///   load starts.
  public func register(_ extras: Extras) {
    storage.withLock { $0.extras = extras }
  }

  /// The extras registered with ``register(_:)``, if any.
  public var extras: Extras? { storage.withLock { $0.extras } }

  /// What the request asks for, read once per load.
  var snapshot: (adString: String?, privacy: GADPrivacySignals) {
    storage.withLock { storage in
      (storage.adString, storage.extras?.privacySignals ?? GADPrivacySignals())
    }
  }
}

/// Additional request parameters for Google's own demand (`Extras` in the real SDK).
///
/// The parameters the simulated SDK honours are Google's privacy parameters: `"npa": "1"` asks
/// for non-personalized ads (the user did not consent under GDPR), and `"rdp": "1"` turns on
/// restricted data processing (the user opted out of the sale of personal information under CCPA).
public final class Extras: Sendable {
  private let storage = Locked<(parameters: [String: String]?, signals: GADPrivacySignals)>(
    (nil, GADPrivacySignals()))

  /// Creates empty extras.
  public init() {}

  /// The parameters sent with the request (`[AnyHashable: Any]` in the real SDK).
  public var additionalParameters: [String: String]? {
    get { storage.withLock { $0.parameters } }
    set {
      let signals = GADPrivacySignals(
        nonPersonalized: newValue?["npa"] == "1", restrictedDataProcessing: newValue?["rdp"] == "1")
      storage.withLock { $0 = (newValue, signals) }
    }
  }

  /// The privacy parameters, parsed when the parameters are set (so a load does no dictionary work).
  var privacySignals: GADPrivacySignals { storage.withLock { $0.signals } }
}

/// Global settings applied to every request of one ``MobileAds`` instance
/// (`MobileAds.requestConfiguration` in the real SDK).
public final class RequestConfiguration: Sendable {
  private let storage = Locked<(childDirected: Bool?, underAgeOfConsent: Bool?)>((nil, nil))

  init() {}

  /// Whether to treat requests as child-directed (COPPA); `nil` when unspecified. An `NSNumber`
  /// in the real SDK.
  ///
  /// The simulated SDK answers child-directed requests with fewer fills, lower prices and no bids
  /// (see ``GoogleBehaviorProfile/childDirectedFillFactor``).
  public var tagForChildDirectedTreatment: Bool? {
    get { storage.withLock { $0.childDirected } }
    set { storage.withLock { $0.childDirected = newValue } }
  }

  /// Whether to treat requests as coming from users under the age of consent (GDPR); `nil` when
  /// unspecified. The simulated SDK treats them as child-directed.
  public var tagForUnderAgeOfConsent: Bool? {
    get { storage.withLock { $0.underAgeOfConsent } }
    set { storage.withLock { $0.underAgeOfConsent = newValue } }
  }

  /// Whether either tag is set to `true`.
  var isChildDirected: Bool {
    storage.withLock { $0.childDirected == true || $0.underAgeOfConsent == true }
  }
}

/// The privacy signals of one request, as the simulated ad server sees them.
struct GADPrivacySignals: Sendable, Equatable {
  /// `npa=1`: non-personalized ads only.
  var nonPersonalized = false
  /// `rdp=1`: restricted data processing.
  var restrictedDataProcessing = false
  /// The instance's request configuration tags the request as child-directed or under age.
  var childDirected = false
}

/// Options for server-side verification (SSV) of rewards.
///
/// The ad copies the options when they are assigned (`@NSCopying` in the real SDK).
public final class ServerSideVerificationOptions: Sendable {
  private let storage = Locked<(userIdentifier: String?, customRewardText: String?)>((nil, nil))

  /// Creates empty options.
  public init() {}

  /// The user identifier passed in the SSV callback's `user_id` parameter.
  public var userIdentifier: String? {
    get { storage.withLock { $0.userIdentifier } }
    set { storage.withLock { $0.userIdentifier = newValue } }
  }

  /// The string passed in the SSV callback's `custom_data` parameter (percent-encoded).
  public var customRewardText: String? {
    get { storage.withLock { $0.customRewardText } }
    set { storage.withLock { $0.customRewardText = newValue } }
  }

  func copy() -> ServerSideVerificationOptions {
    let copy = ServerSideVerificationOptions()
    copy.userIdentifier = userIdentifier
    copy.customRewardText = customRewardText
    return copy
  }
}

/// The reward an ad grants, as configured for its ad unit.
public final class AdReward: Sendable {
  /// The type of the reward, e.g. "coins".
  public let type: String
  /// The amount of the reward.
  public let amount: NSDecimalNumber

  /// Creates a reward.
  public init(rewardType type: String, rewardAmount amount: NSDecimalNumber) {
    self.type = type
    self.amount = amount
  }
}

/// The precision of a ``AdValue``.
public enum AdValuePrecision: Int, Sendable {
  /// An unknown precision.
  case unknown = 0
  /// An estimate based on aggregated data.
  case estimated = 1
  /// The value the publisher set (e.g. a mediation line item's eCPM).
  case publisherProvided = 2
  /// The exact amount paid for this ad.
  case precise = 3
}

/// What one impression earned, reported through ``RewardedAd/paidEventHandler``.
public final class AdValue: Sendable {
  /// The value earned, as a binary number; ``value`` is made from it when read (a `Decimal` made
  /// from a `Double` costs microseconds on Linux, and the adapter reads this directly).
  let amount: Double
  /// How exact `value` is.
  public let precision: AdValuePrecision
  /// The ISO 4217 currency code, e.g. "USD".
  public let currencyCode: String

  /// The value earned, in `currencyCode` (not per mille: this one impression).
  public var value: NSDecimalNumber { NSDecimalNumber(value: amount) }

  init(amount: Double, precision: AdValuePrecision, currencyCode: String) {
    self.amount = amount
    self.precision = precision
    self.currencyCode = currencyCode
  }
}

/// The handler for an impression's paid event.
public typealias GADPaidEventHandler = (AdValue) -> Void

/// Information about the ad response that returned an ad.
public final class ResponseInfo: Sendable {
  /// Draws the identifier when it is read: most responses are never asked for theirs.
  private let identifierSource: SeededRandom?
  /// The class name of the ad network adapter that served the ad.
  public let adNetworkClassName: String?

  init(identifierSource: SeededRandom?, adNetworkClassName: String?) {
    self.identifierSource = identifierSource
    self.adNetworkClassName = adNetworkClassName
  }

  /// A unique identifier of the ad response (UUID format; the same on every read).
  public var responseIdentifier: String? {
    guard var source = identifierSource else { return nil }
    return source.uuidString()
  }
}
