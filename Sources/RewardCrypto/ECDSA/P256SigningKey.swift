#if canImport(CryptoKit)
  import CryptoKit
#endif

/// A private key for ECDSA on NIST P-256 with SHA-256: the network side of a signed callback.
///
/// The key is kept as unencrypted PKCS#8 DER and decoded for each signature (by CryptoKit on Apple
/// platforms, by OpenSSL elsewhere, with a fresh signing context each time), so the value is a plain `Sendable` value that any number of
/// threads can sign with at once. Like any key held in ordinary memory, its bytes are not wiped
/// when the value goes; it is meant for simulated and test servers, not for an HSM's job.
public struct P256SigningKey: Sendable {
  /// The private key as unencrypted PKCS#8 DER (`PrivateKeyInfo`).
  public let derRepresentation: [UInt8]
  /// The private key as an unencrypted PEM `-----BEGIN PRIVATE KEY-----` (PKCS#8) block.
  public let pemRepresentation: String
  /// The matching public key.
  public let publicKey: P256PublicKey

  /// A fresh random key from the platform's random generator (CryptoKit's, or OpenSSL's).
  ///
  /// Generation fails only when OpenSSL itself is broken (no random source, no memory), which is not
  /// something a caller can recover from; that stops the process with OpenSSL's reason. CryptoKit's
  /// generation does not fail.
  public init() {
    #if canImport(CryptoKit)
      self.init(P256.Signing.PrivateKey())
    #else
      do {
        try self.init(key: EVPKey.generateP256())
      } catch {
        fatalError("OpenSSL could not generate a P-256 key: \(error)")
      }
    #endif
  }

  /// A key from its private scalar: 32 bytes, big-endian, in [1, n − 1] where n is the P-256 group
  /// order. The same scalar always gives the same key (a simulated server derives it from its seed).
  ///
  /// - Throws: ``CryptoError`` when the scalar is not 32 bytes or not in range.
  public init(rawScalar: [UInt8]) throws(CryptoError) {
    #if canImport(CryptoKit)
      try self.init(CryptoKitP256.privateKey(scalar: rawScalar))
    #else
      try self.init(key: EVPKey.p256(privateScalar: rawScalar))
    #endif
  }

  /// Imports a PEM private key: PKCS#8 (`-----BEGIN PRIVATE KEY-----`) or SEC1
  /// (`-----BEGIN EC PRIVATE KEY-----`, what `openssl ecparam -genkey` writes). Encrypted keys are
  /// refused.
  ///
  /// - Throws: ``CryptoError`` when there is no such block, it does not decode, it is encrypted, or
  ///   the key is not on P-256.
  public init(pemRepresentation: String) throws(CryptoError) {
    #if canImport(CryptoKit)
      try self.init(CryptoKitP256.privateKey(pem: pemRepresentation))
    #else
      try self.init(key: EVPKey.privateKey(pem: pemRepresentation))
    #endif
  }

  /// Imports a DER private key: PKCS#8 `PrivateKeyInfo` or SEC1 `ECPrivateKey`.
  ///
  /// - Throws: ``CryptoError`` when the bytes are not a private key or the key is not on P-256.
  public init(derRepresentation: [UInt8]) throws(CryptoError) {
    #if canImport(CryptoKit)
      try self.init(CryptoKitP256.privateKey(der: derRepresentation))
    #else
      try self.init(key: EVPKey.privateKey(der: derRepresentation))
    #endif
  }

  #if canImport(CryptoKit)
    private init(_ key: P256.Signing.PrivateKey) {
      derRepresentation = Array(key.derRepresentation)
      let pem = key.pemRepresentation
      pemRepresentation = pem.hasSuffix("\n") ? pem : pem + "\n"
      publicKey = P256PublicKey(key.publicKey)
    }
  #else
    private init(key: EVPKey) throws(CryptoError) {
      try key.requireP256(what: "private key")
      derRepresentation = try key.privateKeyPKCS8DER()
      pemRepresentation = try key.privateKeyPKCS8PEM()
      publicKey = try P256PublicKey(key: key)
    }
  #endif

  /// The private scalar, 32 bytes, big-endian.
  ///
  /// - Throws: ``CryptoError`` when the library cannot read it back (it always can for a key built
  ///   here).
  public func rawScalar() throws(CryptoError) -> [UInt8] {
    #if canImport(CryptoKit)
      try Array(CryptoKitP256.privateKey(der: derRepresentation).rawRepresentation)
    #else
      try EVPKey.privateKey(der: derRepresentation).privateScalar()
    #endif
  }

  /// Signs `message`: ECDSA P-256 over its SHA-256 digest, with a random nonce (CryptoKit's or
  /// OpenSSL's).
  ///
  /// - Parameter message: The bytes to sign (hashed with SHA-256 here).
  /// - Returns: The signature as DER `ECDSA-Sig-Value` (70 to 72 bytes, usually).
  /// - Throws: ``CryptoError`` when the library fails.
  public func signature(for message: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
    #if canImport(CryptoKit)
      try CryptoKitP256.sign(Array(message), with: derRepresentation)
    #else
      try EVPKey.privateKey(der: derRepresentation).signSHA256(Array(message))
    #endif
  }
}
