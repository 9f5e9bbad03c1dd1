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
/// be the same key. Reading is strict, so that no two readers of one file see different keys:
/// `keyId` is an integer literal from 0 to 2^63 − 1 (Tink's `long`; a string of digits is accepted
/// too, never `1.0` or `1e0`); a member repeated in one object, a key id used twice and a `pem`
/// with more than one PEM block are errors naming the JSON path; every key is an ECDSA P-256 key;
/// there is at least one key; the file is at most 1 MB. Members the format does not define are
/// ignored. Keys are indexed by id, so a lookup costs the same whatever the number of keys.
public struct VerifierKeys: Sendable, Equatable, Encodable {
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

  /// The largest verifier-keys file read, in bytes (1 MB; Google's holds a few keys, under 2 kB).
  public static let maximumFileSize = 1_048_576

  /// The keys, in file order.
  public let keys: [Key]
  /// The keys by id (for a repeated id, the first).
  private let index: [UInt64: P256PublicKey]

  private init(validated keys: [Key]) {
    self.keys = keys
    var index: [UInt64: P256PublicKey] = [:]
    for key in keys where index[key.id] == nil { index[key.id] = key.publicKey }
    self.index = index
  }

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
    guard json.count <= Self.maximumFileSize else {
      throw CallbackFormatError(
        "the file is \(json.count) bytes; expected at most \(Self.maximumFileSize) (1 MB) of verifier keys")
    }
    let document: StrictJSON
    do {
      document = try StrictJSON.read(Array(json))
    } catch {
      throw CallbackFormatError(
        at: error.path,
        error.path == nil
          ? "\(error.message); expected {\"keys\": [{\"keyId\": …, \"pem\": …, \"base64\": …}]}"
          : error.message)
    }
    guard case .object = document else {
      throw CallbackFormatError("expected a JSON object {\"keys\": [...]}, found \(document.kind)")
    }
    guard let list = document["keys"] else {
      throw CallbackFormatError(at: "keys", "missing; expected 'keys'")
    }
    guard case .array(let entries) = list else {
      throw CallbackFormatError(at: "keys", "expected an array, found \(list.kind)")
    }
    var keys: [Key] = []
    var firstPath: [UInt64: String] = [:]
    keys.reserveCapacity(entries.count)
    for (position, entry) in entries.enumerated() {
      let path = "keys[\(position)]"
      let key = try Self.key(entry, path: path)
      if let earlier = firstPath[key.id] {
        throw CallbackFormatError(
          at: path + ".keyId", "key id \(key.id) appears twice (\(earlier) and \(path)); expected unique ids")
      }
      firstPath[key.id] = path
      keys.append(key)
    }
    guard !keys.isEmpty else { throw CallbackFormatError(at: "keys", "no keys; expected at least one") }
    self.init(validated: keys)
  }

  /// The key published under `id`, nil when none is.
  public func key(id: UInt64) -> P256PublicKey? { index[id] }

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

  // MARK: Encodable

  private enum CodingKeys: String, CodingKey { case keys }
  private enum KeyCodingKeys: String, CodingKey { case keyId, pem, base64 }

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

  // MARK: Reading one key

  private static func key(_ entry: StrictJSON, path: String) throws(CallbackFormatError) -> Key {
    guard case .object = entry else {
      throw CallbackFormatError(at: path, "expected an object, found \(entry.kind)")
    }
    let id = try keyID(entry["keyId"], path: path + ".keyId")
    let fromBase64 = try entry["base64"].map { value throws(CallbackFormatError) in
      try base64Key(value, path: path + ".base64")
    }
    let fromPEM = try entry["pem"].map { value throws(CallbackFormatError) in
      try pemKey(value, path: path + ".pem", sameAs: fromBase64)
    }
    guard let key = fromBase64 ?? fromPEM else {
      throw CallbackFormatError(
        at: path + ".base64", "missing; expected 'base64' or 'pem' with the public key")
    }
    if let fromBase64, let fromPEM, fromBase64 != fromPEM {
      throw CallbackFormatError(
        at: path + ".pem", "'pem' and 'base64' are different keys; expected the same key")
    }
    return Key(id: id, publicKey: key)
  }

  /// An integer literal (or a string of digits) from 0 to `Int64.max`.
  private static func keyID(_ value: StrictJSON?, path: String) throws(CallbackFormatError) -> UInt64 {
    let expected = "expected a non-negative integer literal from 0 to \(Int64.max)"
    let literal: String
    switch value {
    case nil: throw CallbackFormatError(at: path, "missing; expected 'keyId', an integer")
    case .number(let text), .string(let text): literal = text
    case let other?: throw CallbackFormatError(at: path, "\(expected), found \(other.kind)")
    }
    guard UTF8Text.isDigits(literal), let id = Int64(literal) else {
      throw CallbackFormatError(at: path, "\(expected), found \(UTF8Text.shown(literal, limit: 40))")
    }
    return UInt64(id)
  }

  private static func base64Key(_ value: StrictJSON, path: String) throws(CallbackFormatError)
    -> P256PublicKey
  {
    guard case .string(let text) = value else {
      throw CallbackFormatError(at: path, "expected a string, found \(value.kind)")
    }
    guard let der = Data(base64Encoded: text) else {
      throw CallbackFormatError(at: path, "not base64; expected the DER public key in standard base64")
    }
    do {
      return try P256PublicKey(derRepresentation: Array(der))
    } catch {
      throw CallbackFormatError(at: path, "\(error)")
    }
  }

  /// The key of a `pem` member. When it is, byte for byte, the PEM OpenSSL writes for `base64Key`
  /// (as in Google's file), it is that key without a second import: importing a key costs about
  /// 0.2 ms, the bulk of reading a file.
  private static func pemKey(
    _ value: StrictJSON, path: String, sameAs base64Key: P256PublicKey?
  ) throws(CallbackFormatError) -> P256PublicKey {
    guard case .string(let text) = value else {
      throw CallbackFormatError(at: path, "expected a string, found \(value.kind)")
    }
    // OpenSSL would read the first block and ignore the rest: a second key must not hide there.
    let blocks = UTF8Text.occurrences(of: "-----BEGIN", in: text.utf8)
    guard blocks <= 1 else {
      throw CallbackFormatError(at: path, "holds \(blocks) PEM blocks; expected exactly one public key")
    }
    if let base64Key, UTF8Text.same(text, base64Key.pemRepresentation.trimmingCharacters(in: .newlines)) {
      return base64Key
    }
    do {
      return try P256PublicKey(pemRepresentation: text)
    } catch {
      throw CallbackFormatError(at: path, "\(error)")
    }
  }
}
