/// A public key for ECDSA on NIST P-256 (secp256r1, prime256v1) with SHA-256.
///
/// The key is kept as its DER SubjectPublicKeyInfo (what the `base64` field of Google's
/// verifier-keys JSON holds) and decoded by OpenSSL for each verification, so the value is a plain
/// `Sendable` value that any number of threads can use at once. Importing a key on another curve,
/// or a non-EC key, fails.
public struct P256PublicKey: Sendable, Hashable, CustomStringConvertible {
  /// The key as DER SubjectPublicKeyInfo (91 bytes for P-256), as OpenSSL re-encodes it.
  public let derRepresentation: [UInt8]
  /// The key as a PEM `-----BEGIN PUBLIC KEY-----` block (with a trailing newline).
  public let pemRepresentation: String
  /// The public point, uncompressed: `04 ‖ X ‖ Y`, 65 bytes.
  public let x963Representation: [UInt8]

  /// Imports a DER SubjectPublicKeyInfo.
  ///
  /// - Parameter derRepresentation: The DER bytes, e.g. the base64-decoded `base64` field of Google's
  ///   verifier keys.
  /// - Throws: ``CryptoError`` when the bytes are not a public key, or the key is not on P-256.
  public init(derRepresentation: [UInt8]) throws(CryptoError) {
    try self.init(key: EVPKey.publicKey(der: derRepresentation))
  }

  /// Imports a PEM `-----BEGIN PUBLIC KEY-----` block.
  ///
  /// - Throws: ``CryptoError`` when there is no such block, it does not decode, or the key is not on
  ///   P-256.
  public init(pemRepresentation: String) throws(CryptoError) {
    try self.init(key: EVPKey.publicKey(pem: pemRepresentation))
  }

  /// Imports an uncompressed public point `04 ‖ X ‖ Y` (65 bytes).
  ///
  /// - Throws: ``CryptoError`` when the bytes are not an uncompressed point on P-256.
  public init(x963Representation: [UInt8]) throws(CryptoError) {
    try self.init(key: EVPKey.p256(publicPoint: x963Representation))
  }

  init(key: EVPKey) throws(CryptoError) {
    try key.requireP256(what: "public key")
    derRepresentation = try key.publicKeyDER()
    pemRepresentation = try key.publicKeyPEM()
    x963Representation = try key.publicPoint()
  }

  /// Whether `derSignature` is a valid ECDSA P-256 signature over the SHA-256 digest of `message`.
  ///
  /// A signature that is not DER, not canonical DER, or does not verify gives `false`.
  ///
  /// - Parameters:
  ///   - derSignature: The signature as DER `ECDSA-Sig-Value` (`SEQUENCE { r INTEGER, s INTEGER }`).
  ///   - message: The signed bytes (they are hashed with SHA-256 here).
  public func isValidSignature(_ derSignature: [UInt8], for message: some Collection<UInt8>) -> Bool {
    guard let key = try? EVPKey.publicKey(der: derRepresentation) else { return false }
    return key.verifySHA256(derSignature, message: Array(message))
  }

  /// The PEM block.
  public var description: String { pemRepresentation }
}
