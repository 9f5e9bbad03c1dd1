import RewardCrypto

/// The publisher side of MAX S2S rewarded callbacks: checks a callback URL against the ad unit's
/// template and event key.
///
/// Checks, in order (the first failure is thrown):
/// 1. the URL reads (``CallbackRejection/Reason/malformed``);
/// 2. the template carries `{EVENT_ID}` and `{EVENT_TOKEN}`, and the URL their parameters
///    (``CallbackRejection/Reason/missingParameter``);
/// 3. the event id is 40 hex digits (``CallbackRejection/Reason/invalidParameter``);
/// 4. the token is `sha1(EVENT_ID + event key)`, compared in constant time
///    (``CallbackRejection/Reason/invalidToken``);
/// 5. when the template has `{EVENT_TOKEN_ALL}`: every macro parameter is present and the token
///    matches (see ``MaxCallbackTemplate``), in constant time;
/// 6. every macro whose shape AppLovin documents has it (``CallbackRejection/Reason/invalidParameter``
///    naming the parameter, the macro and the shape): `{AD_UNIT_ID}` 16 hex digits, `{AMOUNT}`
///    digits with an optional decimal part, `{IMPRESSION_TIMESTAMP}` digits,
///    `{NETWORK_NAME}` one of ``networkNames`` (these four never empty), `{CC}` two letters,
///    `{IDFA}`/`{IDFV}` UUIDs, `{IP}` an IPv4 or IPv6 address, `{PLATFORM}` `ios`, `android` or
///    `fireos`, `{PACKAGE_NAME}` letters, digits, `.`, `_`, `-` (these may be empty). The token
///    formula hashes the values back to back, so only these shapes keep text from moving across the
///    boundary of two neighbouring macros;
/// 7. user id and custom data are at most 8192 characters (``CallbackRejection/Reason/oversize``);
/// 8. the event id was not accepted before (``CallbackRejection/Reason/replayed``) — claimed only
///    now, in the guard's `max` namespace, so a forged or refused callback never burns a real id; a
///    guard whose storage fails rejects with ``CallbackRejection/Reason/storageFailure``.
///
/// The token comparison ignores the case of the hex digits (ASCII only). Values are
/// percent-decoded with `+` kept as `+` (senders encode a space as `%20`); the query is split and
/// parameter names compared as UTF-8 bytes. Without `{EVENT_TOKEN_ALL}` in the template, no token
/// covers any field but the event id: ``VerifiedReward/unverifiedFields`` lists them.
public struct MaxCallbackVerifier: Sendable {
  /// The template the callbacks were expanded from.
  public let template: MaxCallbackTemplate
  /// The `{NETWORK_NAME}` values accepted.
  public let networkNames: Set<String>
  private let eventKey: String
  private let replayGuard: any ReplayGuard

  /// The names MAX reports for the networks it mediates, as its S2S callbacks carry them in
  /// `{NETWORK_NAME}`: the MAX network codes (`APPLOVIN_BIDDING`, …) and the SDK's display names
  /// (`AppLovin`, `Google AdMob`, …). A callback from a network not listed is refused, so add a
  /// new network's name (``init(template:eventKey:replayGuard:networkNames:)``) when MAX starts
  /// mediating it for your app.
  public static let knownNetworkNames: Set<String> = {
    let networks = [
      "ADMOB", "AMAZON_MARKETPLACE", "APPLOVIN", "BIDMACHINE", "BIGO", "CHARTBOOST", "CSJ", "FACEBOOK",
      "FYBER", "GOOGLE_AD_MANAGER", "HYPRMX", "INMOBI", "IRONSOURCE", "LINE", "MAIO", "MINTEGRAL",
      "MOBILEFUSE", "MOLOCO", "MYTARGET", "NEND", "OGURY_PRESAGE", "PUBMATIC", "SMAATO", "SNAP", "TAPJOY",
      "TENCENT", "TIKTOK", "UNITY", "VERVE", "VUNGLE", "YANDEX", "YSO",
    ]
    let codes = networks.flatMap { [$0 + "_BIDDING", $0 + "_NETWORK"] } + ["APPLOVIN_EXCHANGE"]
    let displayNames = [
      "AppLovin", "AppLovin Exchange", "Amazon Publisher Services", "BidMachine", "Bigo Ads", "Chartboost",
      "CSJ", "DT Exchange", "Fyber", "Google AdMob", "Google Ad Manager", "Google Bidding and Google AdMob",
      "HyprMX", "InMobi", "ironSource", "LINE", "Liftoff Monetize", "Maio", "Meta Audience Network",
      "Mintegral", "MobileFuse", "Moloco", "myTarget", "Nend", "Ogury Presage", "Pangle", "PubMatic",
      "Smaato", "Snap", "Tapjoy", "Unity Ads", "Verve", "Vungle", "Yandex", "YSO Network",
    ]
    return Set(codes + displayNames)
  }()

  /// Creates a verifier.
  ///
  /// - Parameters:
  ///   - template: The ad unit's callback URL template (default: ``MaxCallbackTemplate/standard``).
  ///   - eventKey: The S2S event key from the MAX dashboard.
  ///   - replayGuard: Where accepted event ids are remembered (default: a fresh in-memory guard,
  ///     which forgets them when the process ends; a server uses a durable one, e.g.
  ///     `SQLiteReplayGuard`).
  ///   - networkNames: The `{NETWORK_NAME}` values accepted (default: ``knownNetworkNames``).
  public init(
    template: MaxCallbackTemplate = .standard, eventKey: String,
    replayGuard: any ReplayGuard = InMemoryReplayGuard(), networkNames: Set<String> = knownNetworkNames
  ) {
    self.template = template
    self.eventKey = eventKey
    self.replayGuard = replayGuard
    self.networkNames = networkNames
  }

  /// Verifies one callback.
  ///
  /// - Parameter url: The callback URL, absolute (`https://host/path?…`) or as a request target
  ///   (`/path?…`).
  /// - Returns: The reward, to credit once.
  /// - Throws: ``CallbackRejection`` saying which check failed, on which parameter, and what was
  ///   expected.
  public func verify(_ url: String) throws(CallbackRejection) -> VerifiedReward {
    guard let eventIDName = template.parameterName(for: .EVENT_ID),
      let tokenName = template.parameterName(for: .EVENT_TOKEN)
    else {
      let missing = template.parameterName(for: .EVENT_ID) == nil ? MaxMacro.EVENT_ID : .EVENT_TOKEN
      throw CallbackRejection(
        .missingParameter,
        "the template has no \(missing.placeholder), so no callback can be checked against it; expected a template with {EVENT_ID} and {EVENT_TOKEN}"
      )
    }
    let query = try CallbackQuery(url)
    var values: [MaxMacro: String] = [:]
    for parameter in template.macroParameters {
      values[parameter.macro] = try query.value(parameter.name)
    }
    guard let eventID = values[.EVENT_ID] else { throw Self.missing(eventIDName, .EVENT_ID) }
    guard let token = values[.EVENT_TOKEN] else { throw Self.missing(tokenName, .EVENT_TOKEN) }
    guard Hex.isHex(eventID, count: 40) else {
      throw CallbackRejection(
        .invalidParameter, parameter: eventIDName,
        "parameter '\(eventIDName)' (\(MaxMacro.EVENT_ID.placeholder)) is '\(UTF8Text.shown(eventID))'; expected 40 hex digits"
      )
    }
    let expectedToken = MaxCallbackTemplate.eventToken(eventID: eventID, eventKey: eventKey)
    guard ConstantTime.equals(Array(expectedToken.utf8), UTF8Text.asciiLowercased(token)) else {
      throw CallbackRejection(
        .invalidToken, parameter: tokenName,
        "parameter '\(tokenName)' does not match sha1(EVENT_ID + event key): forged, tampered, or another event key"
      )
    }
    if let tokenAllName = template.parameterName(for: .EVENT_TOKEN_ALL) {
      guard let tokenAll = values[.EVENT_TOKEN_ALL] else {
        throw Self.missing(tokenAllName, .EVENT_TOKEN_ALL)
      }
      for parameter in template.macroParameters
      where parameter.macro.isHashedInTokenAll && values[parameter.macro] == nil {
        throw CallbackRejection(
          .missingParameter, parameter: parameter.name,
          "parameter '\(parameter.name)' (\(parameter.macro.placeholder)) is absent; {EVENT_TOKEN_ALL} covers every macro of the template, so it is required"
        )
      }
      let expectedAll = template.eventTokenAll(values, eventKey: eventKey)
      guard ConstantTime.equals(Array(expectedAll.utf8), UTF8Text.asciiLowercased(tokenAll)) else {
        let names = template.macros.filter(\.isHashedInTokenAll).sorted().map(\.rawValue).joined(
          separator: ", ")
        throw CallbackRejection(
          .invalidToken, parameter: tokenAllName,
          "parameter '\(tokenAllName)' does not match sha256(\(names) + event key): a value was tampered with, or another event key"
        )
      }
    }
    for parameter in template.macroParameters {
      guard let value = values[parameter.macro],
        let format = MaxFieldFormat.of(parameter.macro, networkNames: networkNames)
      else { continue }
      try format.check(value, of: parameter.macro, parameter: parameter.name)
    }
    try CallbackLimits.check(
      values[.USER_ID], limit: CallbackLimits.maximumUserIDLength,
      parameter: template.parameterName(for: .USER_ID) ?? "", what: "user id")
    try CallbackLimits.check(
      values[.CUSTOM_DATA], limit: CallbackLimits.maximumCustomDataLength,
      parameter: template.parameterName(for: .CUSTOM_DATA) ?? "", what: "custom data")
    try replayGuard.claimOnce(eventID, network: .max, parameter: eventIDName, what: "event id")
    return VerifiedReward(
      network: .max, transactionID: eventID, userID: values[.USER_ID], customData: values[.CUSTOM_DATA],
      amount: values[.AMOUNT], currency: values[.CURRENCY], adUnit: values[.AD_UNIT_ID],
      adNetwork: values[.NETWORK_NAME], timestamp: values[.IMPRESSION_TIMESTAMP], keyID: nil,
      parameters: query.parameters, unverifiedFields: unverifiedFields(values))
  }

  /// The reported fields present in `values` that no token covers: `{EVENT_TOKEN}` covers the
  /// event id, `{EVENT_TOKEN_ALL}` every macro of the template.
  private func unverifiedFields(_ values: [MaxMacro: String]) -> [VerifiedReward.Field] {
    guard template.parameterName(for: .EVENT_TOKEN_ALL) == nil else { return [] }
    let macros: [(VerifiedReward.Field, MaxMacro)] = [
      (.userID, .USER_ID), (.amount, .AMOUNT), (.currency, .CURRENCY), (.customData, .CUSTOM_DATA),
      (.adUnit, .AD_UNIT_ID), (.adNetwork, .NETWORK_NAME), (.timestamp, .IMPRESSION_TIMESTAMP),
    ]
    return macros.filter { values[$0.1] != nil }.map(\.0)
  }

  private static func missing(_ name: String, _ macro: MaxMacro) -> CallbackRejection {
    CallbackRejection(
      .missingParameter, parameter: name,
      "parameter '\(name)' (\(macro.placeholder)) is absent; expected it, as the template has \(name)=\(macro.placeholder)"
    )
  }
}
