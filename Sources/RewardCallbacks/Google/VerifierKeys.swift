import Foundation
import RewardCrypto

/// Google's SSV verifier keys, in the JSON format Google publishes at
/// `https://www.gstatic.com/admob/reward/verifier-keys.json`:
///
/// ```json
/// {"keys": [{"keyId": 3335741209, "pem": "-----BEGIN PUBLIC KEY-----\nMFkw…\n-----END PUBLIC KEY-----", "base64": "MFkw…"}]}
/// ```
///
/// `base64` is the DER SubjectPublicKeyInfo in standard base64, `pem` the same key as PEM. Reading
/// takes `base64` when present (as Tink does) and `pem` otherwise; when both are present they must
/// be the same key. `keyId` is an integer (a string of digits is accepted too). Every key must be
/// an ECDSA P-256 key; ids are unique; there is at least one key.
public struct VerifierKeys: Sendable, Equatable, Codable {
  /// One published key.
  public struct Key: Sendable, Equatable {
    /// The `key_id` callbacks signed with this key carry.
    public let id: UInt64
    /// The public key.
    public let publicKey: P256PublicKey

    /// Creates a key entry.
    public init(id: UInt64, publicKey: P256PublicKey) {
      self.id = id
      self.publicKey = publicKey
    }
  }

  /// The keys, in file order.
  public let keys: [Key]

  private init(validated keys: [Key]) { self.keys = keys }

  /// Keys to publish: what a (simulated) Google server serves at its verifier-keys URL.
  ///
  /// Ids should be unique; for a repeated id, the first key wins at lookup.
  public static func publishing(_ keys: [(id: UInt64, key: P256PublicKey)]) -> VerifierKeys {
    VerifierKeys(validated: keys.map { Key(id: $0.id, publicKey: $0.key) })
  }

  /// Reads Google's verifier-keys JSON.
  ///
  /// - Throws: ``CallbackFormatError`` whose location is the JSON path (e.g. `keys[1].keyId`) and
  ///   whose message says what was found and what was expected.
  public init(json: Data) throws(CallbackFormatError) {
    do {
      self = try JSONDecoder().decode(VerifierKeys.self, from: json)
    } catch let error as DecodingError {
      throw Self.formatError(error)
    } catch {
      throw CallbackFormatError("\(error)")
    }
  }

  /// The key published under `id`, nil when none is.
  public func key(id: UInt64) -> P256PublicKey? { keys.first { $0.id == id }?.publicKey }

  /// The ids of the keys, in file order.
  public var keyIDs: [UInt64] { keys.map(\.id) }

  /// The keys as Google's JSON (`keyId`, `pem`, `base64` for each), pretty-printed, keys sorted.
  public func jsonData() -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    do {
      return try encoder.encode(self)
    } catch {
      // Only strings and integers are encoded: JSONEncoder cannot fail on them.
      fatalError("encoding verifier keys failed: \(error)")
    }
  }

  // MARK: Codable

  private enum CodingKeys: String, CodingKey { case keys }
  private enum KeyCodingKeys: String, CodingKey { case keyId, pem, base64 }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    var list = try container.nestedUnkeyedContainer(forKey: .keys)
    var keys: [Key] = []
    while !list.isAtEnd {
      let entry = try list.nestedContainer(keyedBy: KeyCodingKeys.self)
      let id = try Self.decodeID(entry)
      let fromBase64 = try entry.decodeIfPresent(String.self, forKey: .base64).map {
        try Self.decodeBase64Key($0, in: entry)
      }
      let fromPEM = try entry.decodeIfPresent(String.self, forKey: .pem).map { pem in
        do {
          return try P256PublicKey(pemRepresentation: pem)
        } catch {
          throw DecodingError.dataCorruptedError(forKey: .pem, in: entry, debugDescription: "\(error)")
        }
      }
      guard let key = fromBase64 ?? fromPEM else {
        throw DecodingError.keyNotFound(
          KeyCodingKeys.base64,
          .init(
            codingPath: entry.codingPath, debugDescription: "expected 'base64' or 'pem' with the public key"))
      }
      if let fromBase64, let fromPEM, fromBase64 != fromPEM {
        throw DecodingError.dataCorruptedError(
          forKey: .pem, in: entry,
          debugDescription: "'pem' and 'base64' are different keys; expected the same key")
      }
      if keys.contains(where: { $0.id == id }) {
        throw DecodingError.dataCorruptedError(
          forKey: .keyId, in: entry, debugDescription: "key id \(id) appears twice; expected unique ids")
      }
      keys.append(Key(id: id, publicKey: key))
    }
    guard !keys.isEmpty else {
      throw DecodingError.dataCorruptedError(
        forKey: .keys, in: container, debugDescription: "no keys; expected at least one")
    }
    self.keys = keys
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    var list = container.nestedUnkeyedContainer(forKey: .keys)
    for key in keys {
      var entry = list.nestedContainer(keyedBy: KeyCodingKeys.self)
      try entry.encode(key.id, forKey: .keyId)
      try entry.encode(key.publicKey.pemRepresentation.trimmingCharacters(in: .newlines), forKey: .pem)
      try entry.encode(Data(key.publicKey.derRepresentation).base64EncodedString(), forKey: .base64)
    }
  }

  private static func decodeID(_ entry: KeyedDecodingContainer<KeyCodingKeys>) throws -> UInt64 {
    if let number = try? entry.decode(UInt64.self, forKey: .keyId) { return number }
    if let text = try? entry.decode(String.self, forKey: .keyId), !text.isEmpty,
      text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let number = UInt64(text)
    {
      return number
    }
    guard entry.contains(.keyId) else {
      throw DecodingError.keyNotFound(
        KeyCodingKeys.keyId,
        .init(codingPath: entry.codingPath, debugDescription: "expected 'keyId', an integer"))
    }
    throw DecodingError.dataCorruptedError(
      forKey: .keyId, in: entry, debugDescription: "expected a non-negative integer that fits in 64 bits")
  }

  private static func decodeBase64Key(
    _ text: String, in entry: KeyedDecodingContainer<KeyCodingKeys>
  ) throws -> P256PublicKey {
    guard let der = Data(base64Encoded: text) else {
      throw DecodingError.dataCorruptedError(
        forKey: .base64, in: entry,
        debugDescription: "not base64; expected the DER public key in standard base64")
    }
    do {
      return try P256PublicKey(derRepresentation: Array(der))
    } catch {
      throw DecodingError.dataCorruptedError(forKey: .base64, in: entry, debugDescription: "\(error)")
    }
  }

  /// A decoding error as "path: what was wrong; expected …".
  private static func formatError(_ error: DecodingError) -> CallbackFormatError {
    func path(_ codingPath: [any CodingKey]) -> String? {
      var text = ""
      for key in codingPath {
        if let index = key.intValue {
          text += "[\(index)]"
        } else {
          text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
        }
      }
      return text.isEmpty ? nil : text
    }
    switch error {
    case .typeMismatch(let type, let context):
      // JSONDecoder says "Expected to decode X but found Y instead."; keep the "found Y" part.
      let found = context.debugDescription.range(of: "found ").map { range in
        let found = context.debugDescription[range.upperBound...].replacingOccurrences(
          of: " instead.", with: "")
        return ", found " + (["a dictionary": "an object", "number": "a number"][found] ?? found)
      }
      let expected = context.codingPath.isEmpty ? "a JSON object {\"keys\": [...]}" : Self.describe(type)
      return CallbackFormatError(at: path(context.codingPath), "expected \(expected)\(found ?? "")")
    case .valueNotFound(let type, let context):
      return CallbackFormatError(at: path(context.codingPath), "expected \(Self.describe(type)), found null")
    case .keyNotFound(let key, let context):
      return CallbackFormatError(
        at: path(context.codingPath + [key]),
        "missing; \(context.debugDescription.hasPrefix("expected") ? context.debugDescription : "expected '\(key.stringValue)'")"
      )
    case .dataCorrupted(let context):
      if context.codingPath.isEmpty {
        return CallbackFormatError(
          "not valid JSON; expected {\"keys\": [{\"keyId\": …, \"pem\": …, \"base64\": …}]}")
      }
      return CallbackFormatError(at: path(context.codingPath), context.debugDescription)
    @unknown default:
      return CallbackFormatError("\(error)")
    }
  }

  private static func describe(_ type: Any.Type) -> String {
    switch type {
    case is String.Type: "a string"
    case is UInt64.Type: "an integer"
    case is [Any].Type: "an array"
    default: "\(type)".contains("Dictionary") || "\(type)".contains("Keyed") ? "an object" : "\(type)"
    }
  }
}
