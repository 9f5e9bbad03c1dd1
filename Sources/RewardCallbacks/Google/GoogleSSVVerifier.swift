import RewardCrypto

/// The publisher side of Google AdMob SSV callbacks: Tink's `RewardedAdsVerifier` algorithm, then
/// field checks and replay protection.
///
/// Checks, in order (the first failure is thrown):
/// 1. the URL reads (``CallbackRejection/Reason/malformed``);
/// 2. `signature` and `key_id` are present (``CallbackRejection/Reason/missingParameter``) and are
///    the last two parameters, in that order; `key_id` is a decimal integer
///    (``CallbackRejection/Reason/invalidParameter``);
/// 3. a key with that id is known (``CallbackRejection/Reason/unknownKey``);
/// 4. the signature is URL-safe base64 of a DER ECDSA signature that verifies, with SHA-256, over the
///    percent-decoded query before `&signature=` (``CallbackRejection/Reason/invalidSignature``);
/// 5. the signed query reads one way only: no decoded name holds `&` or `=`, and no decoded value
///    holds `&` followed by an SSV field's name and `=` (the signature covers the *decoded* query,
///    so re-encoding a captured callback's `&` and `=` would otherwise read as another
///    `transaction_id` or field) (``CallbackRejection/Reason/invalidParameter``);
/// 6. `transaction_id` is present and not empty; `timestamp`, when present, is an integer
///    (``CallbackRejection/Reason/missingParameter``, ``CallbackRejection/Reason/invalidParameter``);
/// 7. `user_id` is at most 8192 characters (``CallbackRejection/Reason/oversize``);
/// 8. the transaction id was not accepted before (``CallbackRejection/Reason/replayed``), claimed
///    only now, in the guard's `google` namespace; a guard whose storage fails rejects with
///    ``CallbackRejection/Reason/storageFailure``.
///
/// Like `java.net.URI.getQuery()`, decoding keeps `+` as `+`. Unlike Tink, which looks for the
/// *first* `signature=` in the decoded query, the last two raw parameters are taken as signature and
/// key id, so custom data that decodes to text containing `&signature=` still verifies; every
/// callback Tink accepts is accepted here, except one whose signed query reads two ways (check 5).
public struct GoogleSSVVerifier: Sendable {
  /// The keys callbacks may be signed with.
  public let keys: VerifierKeys
  private let replayGuard: any ReplayGuard

  /// Creates a verifier.
  ///
  /// - Parameters:
  ///   - keys: Google's verifier keys (fetched from Google, or a simulated server's).
  ///   - replayGuard: Where accepted transaction ids are remembered (default: a fresh in-memory
  ///     guard, which forgets them when the process ends; a server uses a durable one, e.g.
  ///     `SQLiteReplayGuard`).
  public init(keys: VerifierKeys, replayGuard: any ReplayGuard = InMemoryReplayGuard()) {
    self.keys = keys
    self.replayGuard = replayGuard
  }

  /// Verifies one callback.
  ///
  /// - Parameter url: The callback URL, absolute (`https://host/path?…`) or as a request target
  ///   (`/path?…`).
  /// - Returns: The reward, to credit once.
  /// - Throws: ``CallbackRejection`` saying which check failed, on which parameter, and what was
  ///   expected.
  public func verify(_ url: String) throws(CallbackRejection) -> VerifiedReward {
    let query = try CallbackQuery(url)
    let names = query.parameters.map(\.name)
    guard names.contains("signature") else {
      throw CallbackRejection(
        .missingParameter, parameter: "signature",
        "parameter 'signature' is absent; expected '&signature=…&key_id=…' at the end of the query")
    }
    guard names.contains("key_id") else {
      throw CallbackRejection(
        .missingParameter, parameter: "key_id",
        "parameter 'key_id' is absent; expected '&signature=…&key_id=…' at the end of the query")
    }
    let segments = query.segments
    guard segments.count >= 3 else {
      throw CallbackRejection(
        .invalidParameter, parameter: "signature",
        "the query has nothing before 'signature'; expected the signed SSV parameters, then signature and key_id"
      )
    }
    guard segments[segments.count - 2].hasPrefix("signature="),
      segments[segments.count - 1].hasPrefix("key_id=")
    else {
      let lastTwo = segments.suffix(2).map { String($0.prefix { $0 != "=" }) }.joined(separator: ", ")
      throw CallbackRejection(
        .invalidParameter, parameter: "signature",
        "signature and key_id must be the last two query parameters, in that order, after the signed ones; the last two are \(lastTwo)"
      )
    }
    let signedQuery = segments.dropLast(2).joined(separator: "&")
    let signedParameters = Array(query.parameters.dropLast(2))
    guard let keyIDText = PercentEncoding.decode(segments[segments.count - 1].dropFirst("key_id=".count))
    else {
      throw CallbackRejection(.malformed, parameter: "key_id", "parameter 'key_id' does not decode")
    }
    guard !keyIDText.isEmpty,
      keyIDText.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
      let keyID = UInt64(keyIDText)
    else {
      throw CallbackRejection(
        .invalidParameter, parameter: "key_id",
        "parameter 'key_id' is '\(keyIDText.prefix(40))'; expected a decimal integer")
    }
    guard let key = keys.key(id: keyID) else {
      let known = keys.keyIDs.map(String.init).joined(separator: ", ")
      throw CallbackRejection(
        .unknownKey, parameter: "key_id", "no verifier key has key_id \(keyID); known key ids: \(known)")
    }
    guard
      let signatureText = PercentEncoding.decode(segments[segments.count - 2].dropFirst("signature=".count)),
      let signature = Base64URL.decode(signatureText)
    else {
      throw CallbackRejection(
        .invalidSignature, parameter: "signature", "parameter 'signature' is not URL-safe base64")
    }
    do {
      _ = try P256Signature(derRepresentation: signature)
    } catch {
      throw CallbackRejection(
        .invalidSignature, parameter: "signature",
        "parameter 'signature' is not a DER ECDSA signature (\(signature.count) bytes); expected SEQUENCE { r, s }"
      )
    }
    guard let content = PercentEncoding.decodeBytes(signedQuery) else {
      throw CallbackRejection(.malformed, "the signed part of the query has a bad percent-escape")
    }
    guard key.isValidSignature(signature, for: content) else {
      throw CallbackRejection(
        .invalidSignature, parameter: "signature",
        "the signature does not verify with key \(keyID) over the decoded query before '&signature=': forged, tampered, or signed by another key"
      )
    }
    try Self.requireOneReading(signedParameters)
    let fields = try SignedFields(signedParameters)
    guard let transactionID = fields.transactionID, !transactionID.isEmpty else {
      throw CallbackRejection(
        .missingParameter, parameter: "transaction_id",
        "parameter 'transaction_id' is absent or empty; expected the unique id of the reward")
    }
    if let timestamp = fields.timestamp, Int64(timestamp) == nil {
      throw CallbackRejection(
        .invalidParameter, parameter: "timestamp",
        "parameter 'timestamp' is '\(timestamp.prefix(40))'; expected milliseconds since the Unix epoch")
    }
    try CallbackLimits.check(
      fields.userID, limit: CallbackLimits.maximumUserIDLength, parameter: "user_id", what: "user id")
    try replayGuard.claimOnce(
      transactionID, network: .google, parameter: "transaction_id", what: "transaction id")
    return VerifiedReward(
      network: .google, transactionID: transactionID, userID: fields.userID, customData: fields.customData,
      amount: fields.rewardAmount, currency: fields.rewardItem, adUnit: fields.adUnit,
      adNetwork: fields.adNetwork, timestamp: fields.timestamp, keyID: keyID, parameters: signedParameters)
  }

  /// The names of the SSV fields this verifier reads.
  private static let fieldNames = [
    "ad_network", "ad_unit", "custom_data", "reward_amount", "reward_item", "timestamp", "transaction_id",
    "user_id",
  ]

  /// Refuses a signed query that reads another way once its `&` and `=` are re-encoded: in the
  /// decoded bytes the signature covers, a value's `&` and a separator are the same byte.
  private static func requireOneReading(_ parameters: [QueryParameter]) throws(CallbackRejection) {
    for parameter in parameters {
      if parameter.name.contains("&") || parameter.name.contains("=") {
        throw CallbackRejection(
          .invalidParameter, parameter: parameter.name,
          "parameter name '\(parameter.name.prefix(60))' holds '&' or '=' once decoded; expected a name without them, as Google sends it"
        )
      }
      for field in fieldNames where parameter.value.contains("&\(field)=") {
        throw CallbackRejection(
          .invalidParameter, parameter: parameter.name,
          "parameter '\(parameter.name)' holds '&\(field)=' once decoded, so the signed query also reads with another '\(field)'; expected no SSV field inside a value"
        )
      }
    }
  }

  /// The SSV fields of the signed parameters, each at most once.
  private struct SignedFields {
    var adNetwork, adUnit, customData, rewardAmount, rewardItem, timestamp, transactionID, userID: String?

    init(_ parameters: [QueryParameter]) throws(CallbackRejection) {
      func single(_ name: String) throws(CallbackRejection) -> String? {
        let matches = parameters.filter { $0.name == name }
        guard matches.count <= 1 else {
          throw CallbackRejection(
            .malformed, parameter: name,
            "parameter '\(name)' appears \(matches.count) times; expected it once")
        }
        return matches.first?.value
      }
      adNetwork = try single("ad_network")
      adUnit = try single("ad_unit")
      customData = try single("custom_data")
      rewardAmount = try single("reward_amount")
      rewardItem = try single("reward_item")
      timestamp = try single("timestamp")
      transactionID = try single("transaction_id")
      userID = try single("user_id")
    }
  }
}
