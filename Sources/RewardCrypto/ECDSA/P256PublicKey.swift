import Foundation

#if canImport(CryptoKit)
  import CryptoKit
#endif

/// A public key for ECDSA on NIST P-256 (secp256r1, prime256v1) with SHA-256.
///
/// The key is kept as its DER SubjectPublicKeyInfo (what the `base64` field of Google's
/// verifier-keys JSON holds), a `Sendable` value that any number of threads can use at once.
/// Importing a key on another curve, or a non-EC key, fails. Two keys are equal when their DER
/// bytes are.
///
/// On Apple platforms CryptoKit verifies, with a key made from the stored point for each
/// verification. Elsewhere OpenSSL does, and the OpenSSL key a verification needs is decoded once
/// and reused: decoding cost more than the verification itself (about 44% of a Google callback's
/// verification, against 26% for ECDSA). Each decoded key is lent to one verification at a time,
/// so no OpenSSL object is ever used by two threads at once.
public struct P256PublicKey: Sendable, Hashable, CustomStringConvertible {
  /// The key as DER SubjectPublicKeyInfo (91 bytes for P-256), as the platform's library
  /// re-encodes it.
  public let derRepresentation: [UInt8]
  /// The key as a PEM `-----BEGIN PUBLIC KEY-----` block (with a trailing newline).
  public let pemRepresentation: String
  /// The public point, uncompressed: `04 ‖ X ‖ Y`, 65 bytes.
  public let x963Representation: [UInt8]
  #if !canImport(CryptoKit)
    /// Decoded keys waiting for the next verification.
    private let decoded = DecodedKeys()
  #endif

  /// Imports a DER SubjectPublicKeyInfo.
  ///
  /// - Parameter derRepresentation: The DER bytes, e.g. the base64-decoded `base64` field of Google's
  ///   verifier keys.
  /// - Throws: ``CryptoError`` when the bytes are not a public key, or the key is not on P-256.
  public init(derRepresentation: [UInt8]) throws(CryptoError) {
    #if canImport(CryptoKit)
      try self.init(CryptoKitP256.publicKey(der: derRepresentation))
    #else
      try self.init(key: EVPKey.publicKey(der: derRepresentation))
    #endif
  }

  /// Imports a PEM `-----BEGIN PUBLIC KEY-----` block.
  ///
  /// - Throws: ``CryptoError`` when there is no such block, it does not decode, or the key is not on
  ///   P-256.
  public init(pemRepresentation: String) throws(CryptoError) {
    #if canImport(CryptoKit)
      try self.init(CryptoKitP256.publicKey(pem: pemRepresentation))
    #else
      try self.init(key: EVPKey.publicKey(pem: pemRepresentation))
    #endif
  }

  /// Imports an uncompressed public point `04 ‖ X ‖ Y` (65 bytes).
  ///
  /// - Throws: ``CryptoError`` when the bytes are not an uncompressed point on P-256.
  public init(x963Representation: [UInt8]) throws(CryptoError) {
    #if canImport(CryptoKit)
      try self.init(CryptoKitP256.publicKey(x963: x963Representation))
    #else
      try self.init(key: EVPKey.p256(publicPoint: x963Representation))
    #endif
  }

  #if canImport(CryptoKit)
    init(_ key: P256.Signing.PublicKey) {
      derRepresentation = Array(key.derRepresentation)
      // CryptoKit's document ends at the END line; OpenSSL's, and so this type's, with a newline.
      let pem = key.pemRepresentation
      pemRepresentation = pem.hasSuffix("\n") ? pem : pem + "\n"
      x963Representation = Array(key.x963Representation)
    }
  #else
    init(key: EVPKey) throws(CryptoError) {
      try key.requireP256(what: "public key")
      derRepresentation = try key.publicKeyDER()
      pemRepresentation = try key.publicKeyPEM()
      x963Representation = try key.publicPoint()
    }
  #endif

  /// Whether `derSignature` is a valid ECDSA P-256 signature over the SHA-256 digest of `message`.
  ///
  /// A signature that is not DER, not canonical DER, or does not verify gives `false`.
  ///
  /// - Parameters:
  ///   - derSignature: The signature as DER `ECDSA-Sig-Value` (`SEQUENCE { r INTEGER, s INTEGER }`).
  ///   - message: The signed bytes (they are hashed with SHA-256 here).
  public func isValidSignature(_ derSignature: [UInt8], for message: some Collection<UInt8>) -> Bool {
    #if canImport(CryptoKit)
      return CryptoKitP256.isValid(derSignature, for: Array(message), point: x963Representation)
    #else
      guard let key = decoded.take() ?? (try? EVPKey.publicKey(der: derRepresentation)) else { return false }
      defer { decoded.giveBack(key) }
      return key.verifySHA256(derSignature, message: Array(message))
    #endif
  }

  public static func == (left: P256PublicKey, right: P256PublicKey) -> Bool {
    left.derRepresentation == right.derRepresentation
  }

  public func hash(into hasher: inout Hasher) { hasher.combine(derRepresentation) }

  /// The PEM block.
  public var description: String { pemRepresentation }
}

#if !canImport(CryptoKit)
  /// The decoded OpenSSL keys of one public key, each lent to one verification at a time: at most
  /// as many are ever decoded as verifications run at once, and a few are kept for the next ones.
  private final class DecodedKeys: @unchecked Sendable {
    // @unchecked Sendable is safe: `idle` is read and written only while `lock` is held, and a key
    // taken out belongs to the one caller that took it until it gives it back.
    private let lock = NSLock()
    private var idle: [EVPKey] = []

    /// An idle decoded key, or nil (the caller decodes one).
    func take() -> EVPKey? {
      lock.lock()
      defer { lock.unlock() }
      return idle.popLast()
    }

    /// Keeps `key` for the next verification (up to 16; more are freed).
    func giveBack(_ key: EVPKey) {
      lock.lock()
      defer { lock.unlock() }
      if idle.count < 16 { idle.append(key) }
    }
  }
#endif
