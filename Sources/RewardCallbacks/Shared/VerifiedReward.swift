/// The ad networks whose reward callbacks this library reads.
public enum CallbackNetwork: String, Sendable, Equatable, CaseIterable {
  /// AppLovin MAX S2S rewarded callbacks (a URL template with macros, SHA-1/SHA-256 tokens).
  case max
  /// Google AdMob server-side verification (SSV) callbacks (ECDSA P-256 signatures).
  case google
}

/// One decoded query parameter of a callback, in the order it came.
public struct QueryParameter: Sendable, Equatable, Hashable {
  /// The name, percent-decoded.
  public let name: String
  /// The value, percent-decoded (`+` stays `+`, as in `java.net.URI`).
  public let value: String

  /// Creates a parameter.
  public init(name: String, value: String) {
    self.name = name
    self.value = value
  }
}

/// A reward callback that passed every check: authentic (token or signature), well-formed, within
/// the size limits, and seen for the first time by the verifier's ``ReplayGuard``.
///
/// Credit the user with it once, keyed by ``transactionID``.
public struct VerifiedReward: Sendable, Equatable {
  /// Which network sent it.
  public let network: CallbackNetwork
  /// The unique id of the reward: MAX's `{EVENT_ID}` (40 hex digits) or Google's `transaction_id`.
  public let transactionID: String
  /// The publisher's user id (`{USER_ID}` / `user_id`), when the callback carries one.
  public let userID: String?
  /// The custom data set by the app (`{CUSTOM_DATA}` / `custom_data`), percent-decoded.
  public let customData: String?
  /// The reward amount as sent (`{AMOUNT}` / `reward_amount`).
  public let amount: String?
  /// The reward currency or item (`{CURRENCY}` / `reward_item`).
  public let currency: String?
  /// The ad unit (`{AD_UNIT_ID}` / `ad_unit`).
  public let adUnit: String?
  /// The network that served the ad (`{NETWORK_NAME}` / `ad_network`).
  public let adNetwork: String?
  /// When the impression happened, as sent: `{IMPRESSION_TIMESTAMP}`, or Google's `timestamp`
  /// (milliseconds since the Unix epoch).
  public let timestamp: String?
  /// Google's `key_id`: which verifier key signed the callback (nil for MAX).
  public let keyID: UInt64?
  /// Every parameter of the callback (for Google, the signed ones), decoded, in order.
  public let parameters: [QueryParameter]
  /// The fields the callback carries that no token or signature covers, in ``Field`` order.
  ///
  /// Empty for Google (the signature covers every field) and for a MAX template with
  /// `{EVENT_TOKEN_ALL}`; with `{EVENT_TOKEN}` alone, only the event id is covered, so a user id or
  /// amount in the URL may have been changed by anyone who saw it.
  public let unverifiedFields: [Field]

  /// The fields of a verified reward, named as `mediate verify-callback --json` names them.
  public enum Field: String, Sendable, Equatable, CaseIterable {
    /// ``VerifiedReward/transactionID``.
    case transactionID = "transaction_id"
    /// ``VerifiedReward/userID``.
    case userID = "user_id"
    /// ``VerifiedReward/amount``.
    case amount
    /// ``VerifiedReward/currency``.
    case currency
    /// ``VerifiedReward/customData``.
    case customData = "custom_data"
    /// ``VerifiedReward/adUnit``.
    case adUnit = "ad_unit"
    /// ``VerifiedReward/adNetwork``.
    case adNetwork = "ad_network"
    /// ``VerifiedReward/timestamp``.
    case timestamp
  }

  /// Creates a verified reward (verifiers do; tests and simulators may).
  public init(
    network: CallbackNetwork, transactionID: String, userID: String?, customData: String?, amount: String?,
    currency: String?, adUnit: String?, adNetwork: String?, timestamp: String?, keyID: UInt64?,
    parameters: [QueryParameter], unverifiedFields: [Field] = []
  ) {
    self.network = network
    self.transactionID = transactionID
    self.userID = userID
    self.customData = customData
    self.amount = amount
    self.currency = currency
    self.adUnit = adUnit
    self.adNetwork = adNetwork
    self.timestamp = timestamp
    self.keyID = keyID
    self.parameters = parameters
    self.unverifiedFields = unverifiedFields
  }
}

/// The field limits both networks document.
public enum CallbackLimits {
  /// The longest user id accepted, in characters (Unicode scalars): AppLovin's and Google's 8192.
  public static let maximumUserIDLength = 8192
  /// The longest custom data accepted, in characters (Unicode scalars): AppLovin's 8192.
  public static let maximumCustomDataLength = 8192

  /// Throws ``CallbackRejection/Reason/oversize`` when `value` is longer than `limit`.
  static func check(_ value: String?, limit: Int, parameter: String, what: String) throws(CallbackRejection) {
    guard let value else { return }
    let length = value.unicodeScalars.count
    guard length <= limit else {
      throw CallbackRejection(
        .oversize, parameter: parameter,
        "parameter '\(parameter)' (\(what)) is \(length) characters long; expected at most \(limit)")
    }
  }
}
