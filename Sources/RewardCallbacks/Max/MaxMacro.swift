/// The macros of AppLovin MAX's S2S rewarded callback URL (the "Available macros" table of
/// AppLovin's *S2S Rewarded Callback API* page), written `{NAME}` in a template.
public enum MaxMacro: String, CaseIterable, Sendable, Comparable {
  /// The MAX ad unit id (16 hex characters).
  case AD_UNIT_ID
  /// The ad unit's name.
  case AD_UNIT_NAME
  /// The amount of currency to award, set per ad unit: digits, optionally with a decimal part.
  case AMOUNT
  /// The user's two-letter country code.
  case CC
  /// The currency to award, set per ad unit.
  case CURRENCY
  /// The custom data the app passed when showing the ad (AppLovin recommends under 8192
  /// characters).
  case CUSTOM_DATA
  /// The unique event id: 40 hex characters.
  case EVENT_ID
  /// `sha1(EVENT_ID + event key)`, lowercase hex.
  case EVENT_TOKEN
  /// `sha256(every other macro's value, by macro name, + event key)`, lowercase hex; see
  /// ``MaxCallbackTemplate/eventTokenAll(_:eventKey:)``.
  case EVENT_TOKEN_ALL
  /// The iOS IDFA or Google advertising id.
  case IDFA
  /// The iOS IDFV.
  case IDFV
  /// When the impression happened: digits (milliseconds since 1970).
  case IMPRESSION_TIMESTAMP
  /// The user's IP address.
  case IP
  /// The name of the MAX network that served the ad, e.g. `APPLOVIN_BIDDING`
  /// (``MaxCallbackVerifier/knownNetworkNames``).
  case NETWORK_NAME
  /// The app's package name (Android) or bundle id (iOS).
  case PACKAGE_NAME
  /// The placement name the app passed when showing the ad.
  case PLACEMENT
  /// The platform, e.g. `ios` or `android`.
  case PLATFORM
  /// The publisher's user id (`ALSdk.userIdentifier`, at most 8192 characters).
  case USER_ID

  /// `{NAME}`, as written in a template.
  public var placeholder: String { "{\(rawValue)}" }

  /// Orders macros by name, byte by byte: the order `{EVENT_TOKEN_ALL}` hashes them in.
  public static func < (lhs: MaxMacro, rhs: MaxMacro) -> Bool {
    Array(lhs.rawValue.utf8).lexicographicallyPrecedes(Array(rhs.rawValue.utf8))
  }

  /// Whether the macro's value goes into `{EVENT_TOKEN_ALL}` (every macro but the two tokens).
  var isHashedInTokenAll: Bool { self != .EVENT_TOKEN && self != .EVENT_TOKEN_ALL }
}
