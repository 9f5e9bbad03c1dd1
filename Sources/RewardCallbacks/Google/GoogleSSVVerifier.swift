import RewardCrypto

/// The publisher side of Google AdMob SSV callbacks: Tink's `RewardedAdsVerifier` algorithm, then
/// field checks and replay protection.
///
/// Checks, in order (the first failure is thrown):
/// 1. the URL reads (``CallbackRejection/Reason/malformed``);
/// 2. `signature` and `key_id` are present (``CallbackRejection/Reason/missingParameter``) and are
///    the last two parameters, in that order; `key_id` is a decimal integer that fits Tink's `long`
///    (``CallbackRejection/Reason/invalidParameter``);
/// 3. a key with that id is known (``CallbackRejection/Reason/unknownKey``);
/// 4. the signature is URL-safe base64 of a DER ECDSA signature that verifies, with SHA-256, over the
///    percent-decoded query before `&signature=` (``CallbackRejection/Reason/invalidSignature``);
/// 5. the signed query reads one way only (``CallbackRejection/Reason/invalidParameter``): the
///    signature covers the *decoded* query, so re-encoding a captured callback's `&` and `=` (or
///    decoding its `%26` and `%3D`) keeps it valid while moving field boundaries. Refused: a decoded
///    name holding `&` or `=`; a decoded value holding `&`, whatever follows it (so an app's custom
///    data or user id must not contain `&`); anything decoding to `signature=`; and, from the first
///    SSV field on, anything but SSV fields in Google's order (`ad_network`, `ad_unit`,
///    `custom_data`, `reward_amount`, `reward_item`, `timestamp`, `transaction_id`, `user_id`),
///    each once — so a field Google did not sign as one is never read;
/// 6. `transaction_id` is present and not empty; `timestamp`, when present, is digits
///    (``CallbackRejection/Reason/missingParameter``, ``CallbackRejection/Reason/invalidParameter``);
/// 7. `user_id` is at most 8192 characters (``CallbackRejection/Reason/oversize``);
/// 8. the transaction id was not accepted before (``CallbackRejection/Reason/replayed``), claimed
///    only now, in the guard's `google` namespace; a guard whose storage fails rejects with
///    ``CallbackRejection/Reason/storageFailure``.
///
/// The query is split, searched and compared as UTF-8 bytes, so a combining mark next to `&` or
/// `=` never hides a separator. Like `java.net.URI.getQuery()`, decoding keeps `+` as `+`. Every
/// callback accepted here is accepted by Tink's `RewardedAdsVerifier`; Tink itself checks only the
/// signature, so the checks on the fields (5–8) are this verifier's own.
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
    let segments = query.segments
    for name in ["signature", "key_id"] where !segments.contains(where: { UTF8Text.same($0.name, name) }) {
      throw CallbackRejection(
        .missingParameter, parameter: name,
        "parameter '\(name)' is absent; expected '&signature=…&key_id=…' at the end of the query")
    }
    guard segments.count >= 3 else {
      throw CallbackRejection(
        .invalidParameter, parameter: "signature",
        "the query has nothing before 'signature'; expected the signed SSV parameters, then signature and key_id"
      )
    }
    let signatureSegment = segments[segments.count - 2]
    let keyIDSegment = segments[segments.count - 1]
    guard UTF8Text.hasPrefix(signatureSegment.raw, "signature="),
      UTF8Text.hasPrefix(keyIDSegment.raw, "key_id=")
    else {
      let lastTwo = segments.suffix(2).map { UTF8Text.shown($0.name, limit: 40) }.joined(separator: ", ")
      throw CallbackRejection(
        .invalidParameter, parameter: "signature",
        "signature and key_id must be the last two query parameters, in that order, after the signed ones; the last two are \(lastTwo)"
      )
    }
    let signed = Array(segments.dropLast(2))
    let keyIDText = keyIDSegment.value
    guard UTF8Text.isDigits(keyIDText), let keyID = Int64(keyIDText) else {
      throw CallbackRejection(
        .invalidParameter, parameter: "key_id",
        "parameter 'key_id' is '\(UTF8Text.shown(keyIDText, limit: 40))'; expected a decimal integer from 0 to \(Int64.max), as Tink reads it"
      )
    }
    guard let key = keys.key(id: UInt64(keyID)) else {
      let known = keys.keyIDs.map(String.init).joined(separator: ", ")
      throw CallbackRejection(
        .unknownKey, parameter: "key_id", "no verifier key has key_id \(keyID); known key ids: \(known)")
    }
    guard let signature = Base64URL.decode(signatureSegment.value) else {
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
    // The signed content: the query before '&signature=', percent-decoded, read from the same
    // segments the fields come from (its '&' are the segments' separators).
    let signedRaw = query.raw[..<(signatureSegment.raw.startIndex - 1)]
    guard let content = PercentEncoding.decodeBytes(signedRaw) else {
      throw CallbackRejection(.malformed, "the signed part of the query has a bad percent-escape")
    }
    guard key.isValidSignature(signature, for: content) else {
      throw CallbackRejection(
        .invalidSignature, parameter: "signature",
        "the signature does not verify with key \(keyID) over the decoded query before '&signature=': forged, tampered, or signed by another key"
      )
    }
    try Self.requireOneReading(signed)
    let fields = try SignedFields(signed)
    guard let transactionID = fields.transactionID, !transactionID.isEmpty else {
      throw CallbackRejection(
        .missingParameter, parameter: "transaction_id",
        "parameter 'transaction_id' is absent or empty; expected the unique id of the reward")
    }
    if let timestamp = fields.timestamp, !UTF8Text.isDigits(timestamp) || Int64(timestamp) == nil {
      throw CallbackRejection(
        .invalidParameter, parameter: "timestamp",
        "parameter 'timestamp' is '\(UTF8Text.shown(timestamp, limit: 40))'; expected milliseconds since the Unix epoch (digits)"
      )
    }
    try CallbackLimits.check(
      fields.userID, limit: CallbackLimits.maximumUserIDLength, parameter: "user_id", what: "user id")
    try replayGuard.claimOnce(
      transactionID, network: .google, parameter: "transaction_id", what: "transaction id")
    return VerifiedReward(
      network: .google, transactionID: transactionID, userID: fields.userID, customData: fields.customData,
      amount: fields.rewardAmount, currency: fields.rewardItem, adUnit: fields.adUnit,
      adNetwork: fields.adNetwork, timestamp: fields.timestamp, keyID: UInt64(keyID),
      parameters: signed.filter { !$0.isEmpty }.map { QueryParameter(name: $0.name, value: $0.value) })
  }

  /// The names of the SSV fields this verifier reads, in the order Google sends them.
  private static let fieldNames = [
    "ad_network", "ad_unit", "custom_data", "reward_amount", "reward_item", "timestamp", "transaction_id",
    "user_id",
  ]

  /// Refuses a signed query that reads more than one way.
  ///
  /// The signature covers the *decoded* query, where a value's `&` and a separator are the same
  /// byte: re-encoding a captured callback's `&` and `=` (or decoding its `%26` and `%3D`) keeps
  /// the signature valid and moves the field boundaries. So the decoded signed segments must
  /// split exactly as the raw ones do:
  /// - no decoded name holds `&` or `=`, and no decoded value holds `&`, whatever follows it;
  /// - nothing decodes to `signature=` (Tink takes the first `signature=` of the decoded query as
  ///   the signature's start, so it refuses such a callback too);
  /// - from the first SSV field on, the parameters are Google's: SSV fields in Google's order, each
  ///   once, no empty segment — so a field Google did not sign as one (e.g. a `user_id` split out
  ///   of `custom_data`) is never read.
  private static func requireOneReading(_ segments: [CallbackQuery.Segment]) throws(CallbackRejection) {
    var lastField: Int?
    for segment in segments {
      let name = UTF8Text.shown(segment.name)
      if UTF8Text.contains(segment.name, byte: UInt8(ascii: "&"))
        || UTF8Text.contains(segment.name, byte: UInt8(ascii: "="))
      {
        throw CallbackRejection(
          .invalidParameter, parameter: segment.name,
          "parameter name '\(name)' holds '&' or '=' once decoded; expected a name without them, as Google sends it"
        )
      }
      if UTF8Text.contains(segment.value, byte: UInt8(ascii: "&")) {
        throw CallbackRejection(
          .invalidParameter, parameter: segment.name,
          "parameter '\(name)' holds '&' once decoded, so the signed (decoded) query also reads with a parameter boundary there; expected no '&' in a signed value (an app encodes such custom data or user ids, e.g. as base64url)"
        )
      }
      if UTF8Text.contains(segment.name.utf8, "signature=")
        || UTF8Text.contains(segment.value.utf8, "signature=")
      {
        throw CallbackRejection(
          .invalidParameter, parameter: segment.name,
          "parameter '\(name)' holds 'signature=' once decoded; expected it only in the signature parameter (Tink refuses such a callback too)"
        )
      }
      let field = fieldNames.firstIndex { UTF8Text.same($0, segment.name) }
      guard let previous = lastField else {
        lastField = field
        continue
      }
      guard let field, field > previous, !segment.isEmpty else {
        let expected =
          "expected only Google's fields after '\(fieldNames[previous])', each once, in Google's order (\(fieldNames.joined(separator: ", ")))"
        if segment.isEmpty {
          throw CallbackRejection(
            .invalidParameter, "an empty parameter ('&&') among Google's fields; \(expected)")
        }
        if let field, field == previous {
          throw CallbackRejection(
            .malformed, parameter: segment.name, "parameter '\(name)' appears 2 times; expected it once")
        }
        throw CallbackRejection(
          .invalidParameter, parameter: segment.name,
          "parameter '\(name)' follows '\(fieldNames[previous])'; \(expected)")
      }
      lastField = field
    }
  }

  /// The SSV fields of the signed parameters, each at most once.
  private struct SignedFields {
    var adNetwork, adUnit, customData, rewardAmount, rewardItem, timestamp, transactionID, userID: String?

    init(_ segments: [CallbackQuery.Segment]) throws(CallbackRejection) {
      func single(_ name: String) throws(CallbackRejection) -> String? {
        let matches = segments.filter { !$0.isEmpty && UTF8Text.same($0.name, name) }
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
