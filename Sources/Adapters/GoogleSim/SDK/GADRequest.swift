import Foundation
import Synchronization

/// An ad request: targeting information for one load.
public final class GADRequest: Sendable {
  private let storage = Mutex<(keywords: [String]?, contentURL: String?)>((nil, nil))

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
}

/// Options for server-side verification (SSV) of rewards.
///
/// The ad copies the options when they are assigned (`@NSCopying` in the real SDK).
public final class GADServerSideVerificationOptions: Sendable {
  private let storage = Mutex<(userIdentifier: String?, customRewardString: String?)>((nil, nil))

  /// Creates empty options.
  public init() {}

  /// The user identifier passed in the SSV callback's `user_id` parameter.
  public var userIdentifier: String? {
    get { storage.withLock { $0.userIdentifier } }
    set { storage.withLock { $0.userIdentifier = newValue } }
  }

  /// The string passed in the SSV callback's `custom_data` parameter (percent-encoded).
  public var customRewardString: String? {
    get { storage.withLock { $0.customRewardString } }
    set { storage.withLock { $0.customRewardString = newValue } }
  }

  func copy() -> GADServerSideVerificationOptions {
    let copy = GADServerSideVerificationOptions()
    copy.userIdentifier = userIdentifier
    copy.customRewardString = customRewardString
    return copy
  }
}

/// The reward an ad grants, as configured for its ad unit.
public final class GADAdReward: Sendable {
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

/// The precision of a ``GADAdValue``.
public enum GADAdValuePrecision: Int, Sendable {
  /// An unknown precision.
  case unknown = 0
  /// An estimate based on aggregated data.
  case estimated = 1
  /// The value the publisher set (e.g. a mediation line item's eCPM).
  case publisherProvided = 2
  /// The exact amount paid for this ad.
  case precise = 3
}

/// What one impression earned, reported through ``GADRewardedAd/paidEventHandler``.
public final class GADAdValue: Sendable {
  /// The value earned, in `currencyCode` (not per mille: this one impression).
  public let value: NSDecimalNumber
  /// How exact `value` is.
  public let precision: GADAdValuePrecision
  /// The ISO 4217 currency code, e.g. "USD".
  public let currencyCode: String

  init(value: NSDecimalNumber, precision: GADAdValuePrecision, currencyCode: String) {
    self.value = value
    self.precision = precision
    self.currencyCode = currencyCode
  }
}

/// The handler for an impression's paid event.
public typealias GADPaidEventHandler = (GADAdValue) -> Void

/// Information about the ad response that returned an ad.
public final class GADResponseInfo: Sendable {
  /// A unique identifier of the ad response.
  public let responseIdentifier: String?
  /// The class name of the ad network adapter that served the ad.
  public let adNetworkClassName: String?

  init(responseIdentifier: String?, adNetworkClassName: String?) {
    self.responseIdentifier = responseIdentifier
    self.adNetworkClassName = adNetworkClassName
  }
}
