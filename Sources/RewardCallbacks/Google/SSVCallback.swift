import RewardCrypto

/// One Google AdMob server-side verification (SSV) callback, as Google's server builds it: the
/// network side of SSV.
///
/// The query holds, in this order, `ad_network`, `ad_unit`, `custom_data` (only when set),
/// `reward_amount`, `reward_item`, `timestamp`, `transaction_id`, `user_id` (only when set), then
/// `signature` and `key_id`. Names and values are percent-encoded (``PercentEncoding``). The
/// signature is ECDSA P-256 with SHA-256, DER, URL-safe base64 without padding, over the
/// percent-**decoded** query before `&signature=`, which is what Tink's `RewardedAdsVerifier`
/// checks.
public struct SSVCallback: Sendable, Equatable {
  /// The ad source that served the ad (`ad_network`), e.g. `5450213213286189855`.
  public var adNetwork: String
  /// The AdMob ad unit id (`ad_unit`).
  public var adUnit: String
  /// The app's custom reward string (`custom_data`); the parameter is left out when nil.
  public var customData: String?
  /// The reward amount (`reward_amount`).
  public var rewardAmount: Int
  /// The reward item (`reward_item`), e.g. `coins`.
  public var rewardItem: String
  /// When the reward was earned, in milliseconds since the Unix epoch (`timestamp`).
  public var timestamp: Int64
  /// The unique id of the reward (`transaction_id`).
  public var transactionID: String
  /// The publisher's user id (`user_id`); the parameter is left out when nil.
  public var userID: String?

  /// Creates a callback.
  public init(
    adNetwork: String, adUnit: String, customData: String? = nil, rewardAmount: Int, rewardItem: String,
    timestamp: Int64, transactionID: String, userID: String? = nil
  ) {
    self.adNetwork = adNetwork
    self.adUnit = adUnit
    self.customData = customData
    self.rewardAmount = rewardAmount
    self.rewardItem = rewardItem
    self.timestamp = timestamp
    self.transactionID = transactionID
    self.userID = userID
  }

  /// The parameters before `signature`, in Google's order, decoded.
  public var parameters: [QueryParameter] {
    var parameters = [
      QueryParameter(name: "ad_network", value: adNetwork), QueryParameter(name: "ad_unit", value: adUnit),
    ]
    if let customData { parameters.append(QueryParameter(name: "custom_data", value: customData)) }
    parameters += [
      QueryParameter(name: "reward_amount", value: String(rewardAmount)),
      QueryParameter(name: "reward_item", value: rewardItem),
      QueryParameter(name: "timestamp", value: String(timestamp)),
      QueryParameter(name: "transaction_id", value: transactionID),
    ]
    if let userID { parameters.append(QueryParameter(name: "user_id", value: userID)) }
    return parameters
  }

  /// The percent-encoded query before `&signature=`.
  public var unsignedQuery: String {
    parameters.map {
      PercentEncoding.encodeQueryComponent($0.name) + "=" + PercentEncoding.encodeQueryComponent($0.value)
    }.joined(separator: "&")
  }

  /// The complete query: ``unsignedQuery``, then `&signature=…&key_id=…`.
  ///
  /// - Parameters:
  ///   - key: Google's signing key.
  ///   - keyID: The id the key is published under in the verifier keys.
  /// - Throws: ``CryptoError`` when OpenSSL cannot sign.
  public func signedQuery(with key: P256SigningKey, keyID: UInt64) throws(CryptoError) -> String {
    try Self.sign(unsignedQuery, key: key, keyID: keyID)
  }

  /// The callback URL: `base`, then the signed query.
  ///
  /// When `base` already has a query (an AdMob callback URL may), the SSV parameters follow it and
  /// the signature covers it too, as Tink's verifier reads the whole query.
  ///
  /// - Parameters:
  ///   - base: The publisher's callback URL, absolute `http`/`https`, without fragment.
  ///   - key: Google's signing key.
  ///   - keyID: The id the key is published under.
  /// - Throws: ``CallbackFormatError`` when `base` is not such a URL; ``CryptoError`` when OpenSSL
  ///   cannot sign.
  public func signedURL(base: String, key: P256SigningKey, keyID: UInt64) throws -> String {
    let bytes = Array(base.utf8)
    let lowered = UTF8Text.asciiLowercased(base)
    guard UTF8Text.hasPrefix(lowered, "http://") || UTF8Text.hasPrefix(lowered, "https://"),
      !bytes.contains(UInt8(ascii: "#"))
    else {
      throw CallbackFormatError(
        at: "base", "expected an absolute http(s) URL without fragment; found '\(base)'")
    }
    guard let question = bytes.firstIndex(of: UInt8(ascii: "?")) else {
      return base + "?" + (try signedQuery(with: key, keyID: keyID))
    }
    let existing = String(decoding: bytes[(question + 1)...], as: UTF8.self)
    guard PercentEncoding.firstBadEscape(existing) == nil, PercentEncoding.decode(existing) != nil else {
      throw CallbackFormatError(
        at: "base", "the query of '\(base)' has a bad percent-escape; expected '%' and two hex digits")
    }
    let separator = existing.utf8.isEmpty || existing.utf8.last == UInt8(ascii: "&") ? "" : "&"
    return String(decoding: bytes[...question], as: UTF8.self)
      + (try Self.sign(existing + separator + unsignedQuery, key: key, keyID: keyID))
  }

  /// Appends `&signature=…&key_id=…` to `query`, signing its percent-decoded bytes.
  private static func sign(_ query: String, key: P256SigningKey, keyID: UInt64) throws(CryptoError) -> String
  {
    guard let content = PercentEncoding.decodeBytes(query) else {
      throw CryptoError("the query to sign has a bad percent-escape")
    }
    let signature = try key.signature(for: content)
    return query + "&signature=" + Base64URL.encode(signature) + "&key_id=" + String(keyID)
  }
}
