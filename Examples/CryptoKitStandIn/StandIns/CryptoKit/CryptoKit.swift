internal import CStandInLibcrypto
import Foundation

// A stand-in for Apple's CryptoKit: the declarations RewardCrypto's CryptoKit branch uses, with
// CryptoKit's signatures (generic over `DataProtocol` / `ContiguousBytes` where CryptoKit is,
// `Data` results, `throws` without a type), so that branch type-checks on Linux as it does against
// the SDK. The types are declared without `Sendable`, the stricter assumption, so code that
// compiles here does not rely on their conformance.
//
// The operations are computed with OpenSSL's libcrypto, so the tests run through RewardCrypto's
// CryptoKit branch here. Apple's CryptoKit is the authority on its own behaviour: where this
// stand-in refuses an input, it does so as CryptoKit documents (a thrown error), but the error
// values are its own.

/// The errors CryptoKit throws (the cases this stand-in uses).
public enum CryptoKitError: Error {
  case incorrectKeySize
  case incorrectParameterSize
  case underlyingCoreCryptoError(error: Int32)
}

/// A digest: its bytes, in order.
public protocol Digest: Sequence where Element == UInt8 {}

/// The SHA-256 hash function.
public struct SHA256 {
  /// The SHA-256 digest of `data`.
  public static func hash<D: DataProtocol>(data: D) -> SHA256Digest {
    SHA256Digest(bytes: OpenSSL.digest(Array(data), EVP_sha256()))
  }
}

/// A SHA-256 digest (32 bytes).
public struct SHA256Digest: Digest {
  let bytes: [UInt8]
  public func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }
}

/// Hash functions kept for compatibility with older protocols.
public enum Insecure {
  /// The SHA-1 hash function.
  public struct SHA1 {
    /// The SHA-1 digest of `data`.
    public static func hash<D: DataProtocol>(data: D) -> Insecure.SHA1Digest {
      Insecure.SHA1Digest(bytes: OpenSSL.digest(Array(data), EVP_sha1()))
    }
  }

  /// A SHA-1 digest (20 bytes).
  public struct SHA1Digest: Digest {
    let bytes: [UInt8]
    public func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }
  }
}

/// The NIST P-256 elliptic curve.
public enum P256 {
  /// ECDSA on P-256 with SHA-256.
  public enum Signing {
    /// A P-256 public key for verifying signatures.
    public struct PublicKey {
      /// The key as DER SubjectPublicKeyInfo.
      let der: [UInt8]

      init(der: [UInt8]) { self.der = der }

      /// Creates a key from an ANSI X9.63 uncompressed point (`04 ‖ X ‖ Y`).
      public init<Bytes: ContiguousBytes>(x963Representation: Bytes) throws {
        let point = x963Representation.withUnsafeBytes { Array($0) }
        guard point.count == 65, point[0] == 0x04 else { throw CryptoKitError.incorrectKeySize }
        der = try OpenSSL.publicKeyDER(OpenSSL.subjectPublicKeyInfoPrefix + point)
      }

      /// Creates a key from a DER SubjectPublicKeyInfo.
      @available(iOS 14, macOS 11, tvOS 14, watchOS 7, *)
      public init<Bytes: RandomAccessCollection>(derRepresentation: Bytes) throws
      where Bytes.Element == UInt8 {
        der = try OpenSSL.publicKeyDER(Array(derRepresentation))
      }

      /// Creates a key from a PEM `PUBLIC KEY` document.
      @available(iOS 14, macOS 11, tvOS 14, watchOS 7, *)
      public init(pemRepresentation: String) throws {
        try self.init(derRepresentation: PEM.decode(pemRepresentation, type: "PUBLIC KEY"))
      }

      /// The key as an uncompressed point, `04 ‖ X ‖ Y`.
      public var x963Representation: Data { Data(der.suffix(65)) }

      /// The key as DER SubjectPublicKeyInfo.
      @available(iOS 14, macOS 11, tvOS 14, watchOS 7, *)
      public var derRepresentation: Data { Data(der) }

      /// The key as a PEM `PUBLIC KEY` document (no trailing newline).
      @available(iOS 14, macOS 11, tvOS 14, watchOS 7, *)
      public var pemRepresentation: String { PEM.encode(der, type: "PUBLIC KEY") }

      /// Whether `signature` is valid for the SHA-256 digest of `data`.
      public func isValidSignature<D: DataProtocol>(_ signature: P256.Signing.ECDSASignature, for data: D)
        -> Bool
      {
        OpenSSL.verify(signature: signature.der, message: Array(data), publicKeyDER: der)
      }
    }

    /// A P-256 private key for signing.
    public struct PrivateKey {
      /// The key as unencrypted PKCS#8 DER.
      let der: [UInt8]

      /// A new random key.
      public init(compactRepresentable: Bool = true) {
        der = OpenSSL.generateKey()
      }

      /// Creates a key from its private scalar (32 bytes, big-endian).
      public init<Bytes: ContiguousBytes>(rawRepresentation: Bytes) throws {
        let scalar = rawRepresentation.withUnsafeBytes { Array($0) }
        guard scalar.count == 32 else { throw CryptoKitError.incorrectKeySize }
        der = try OpenSSL.privateKey(scalar: scalar)
      }

      /// Creates a key from DER: PKCS#8 `PrivateKeyInfo` or SEC1 `ECPrivateKey`.
      @available(iOS 14, macOS 11, tvOS 14, watchOS 7, *)
      public init<Bytes: RandomAccessCollection>(derRepresentation: Bytes) throws
      where Bytes.Element == UInt8 {
        der = try OpenSSL.privateKeyPKCS8(Array(derRepresentation))
      }

      /// Creates a key from a PEM `PRIVATE KEY` (PKCS#8) or `EC PRIVATE KEY` (SEC1) document.
      @available(iOS 14, macOS 11, tvOS 14, watchOS 7, *)
      public init(pemRepresentation: String) throws {
        let type =
          pemRepresentation.contains("-----BEGIN EC PRIVATE KEY-----") ? "EC PRIVATE KEY" : "PRIVATE KEY"
        try self.init(derRepresentation: PEM.decode(pemRepresentation, type: type))
      }

      /// The matching public key.
      public var publicKey: P256.Signing.PublicKey {
        // The key was checked when it was made: it has a public half.
        P256.Signing.PublicKey(der: (try? OpenSSL.publicHalf(ofPrivateKey: der)) ?? [])
      }

      /// The private scalar, 32 bytes, big-endian.
      public var rawRepresentation: Data { Data((try? OpenSSL.scalar(ofPrivateKey: der)) ?? []) }

      /// The key as PKCS#8 DER.
      @available(iOS 14, macOS 11, tvOS 14, watchOS 7, *)
      public var derRepresentation: Data { Data(der) }

      /// The key as a PEM `PRIVATE KEY` (PKCS#8) document (no trailing newline).
      @available(iOS 14, macOS 11, tvOS 14, watchOS 7, *)
      public var pemRepresentation: String { PEM.encode(der, type: "PRIVATE KEY") }

      /// An ECDSA signature over the SHA-256 digest of `data`, with a random nonce.
      public func signature<D: DataProtocol>(for data: D) throws -> P256.Signing.ECDSASignature {
        P256.Signing.ECDSASignature(der: try OpenSSL.sign(Array(data), privateKeyDER: der))
      }
    }

    /// An ECDSA signature.
    public struct ECDSASignature: ContiguousBytes {
      /// The signature as DER.
      let der: [UInt8]

      init(der: [UInt8]) { self.der = der }

      /// Creates a signature from `r ‖ s` (64 bytes).
      public init<D: DataProtocol>(rawRepresentation: D) throws {
        let raw = Array(rawRepresentation)
        guard raw.count == 64 else { throw CryptoKitError.incorrectParameterSize }
        der = try OpenSSL.signatureDER(raw: raw)
      }

      /// Creates a signature from DER `SEQUENCE { r, s }`.
      public init<D: DataProtocol>(derRepresentation: D) throws {
        let bytes = Array(derRepresentation)
        _ = try OpenSSL.signatureRaw(der: bytes)
        der = bytes
      }

      /// The signature as `r ‖ s`, 32 bytes each.
      public var rawRepresentation: Data { Data((try? OpenSSL.signatureRaw(der: der)) ?? []) }

      /// The signature as DER.
      public var derRepresentation: Data {
        Data((try? OpenSSL.signatureDER(raw: OpenSSL.signatureRaw(der: der))) ?? der)
      }

      public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try rawRepresentation.withUnsafeBytes(body)
      }
    }
  }
}

/// PEM documents: base64 DER between `-----BEGIN type-----` and `-----END type-----`.
enum PEM {
  static func decode(_ text: String, type: String) throws -> [UInt8] {
    let begin = "-----BEGIN \(type)-----"
    let end = "-----END \(type)-----"
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard trimmed.hasPrefix(begin), trimmed.hasSuffix(end), trimmed.count >= begin.count + end.count else {
      throw CryptoKitError.incorrectParameterSize
    }
    let body = trimmed.dropFirst(begin.count).dropLast(end.count).filter { !$0.isWhitespace }
    guard let data = Data(base64Encoded: String(body)) else { throw CryptoKitError.incorrectParameterSize }
    return Array(data)
  }

  static func encode(_ der: [UInt8], type: String) -> String {
    let body = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
    return "-----BEGIN \(type)-----\n\(body)\n-----END \(type)-----"
  }
}

/// The libcrypto calls behind the stand-in. Each decodes its own key and frees it.
enum OpenSSL {
  /// DER SubjectPublicKeyInfo up to the point: id-ecPublicKey, prime256v1, a 66-byte BIT STRING.
  static let subjectPublicKeyInfoPrefix: [UInt8] = [
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86,
    0x48,
    0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
  ]
  static let failure = CryptoKitError.underlyingCoreCryptoError(error: -1)

  static func digest(_ input: [UInt8], _ algorithm: OpaquePointer?) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: 64)
    var length: UInt32 = 0
    let status = input.withUnsafeBytes {
      EVP_Digest($0.baseAddress, $0.count, &output, &length, algorithm, nil)
    }
    precondition(status == 1, "OpenSSL could not compute a digest")
    return Array(output.prefix(Int(length)))
  }

  /// Runs `body` with a decoded public key (the whole of `der`, a P-256 EC key).
  static func withPublicKey<R>(_ der: [UInt8], _ body: (OpaquePointer) throws -> R) throws -> R {
    let key = decodeWhole(der, { d2i_PUBKEY(nil, $0, $1) }, free: EVP_PKEY_free)
    ERR_clear_error()
    guard let key else { throw failure }
    defer { EVP_PKEY_free(key) }
    try requireP256(key)
    return try body(key)
  }

  /// Runs `body` with a decoded private key (PKCS#8 or SEC1 DER, a P-256 EC key).
  static func withPrivateKey<R>(_ der: [UInt8], _ body: (OpaquePointer) throws -> R) throws -> R {
    let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
      var cursor = buffer.baseAddress
      return d2i_AutoPrivateKey(nil, &cursor, buffer.count)
    }
    ERR_clear_error()
    guard let key else { throw failure }
    defer { EVP_PKEY_free(key) }
    try requireP256(key)
    return try body(key)
  }

  static func requireP256(_ key: OpaquePointer) throws {
    var name = [CChar](repeating: 0, count: 80)
    var length = 0
    defer { ERR_clear_error() }
    guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC,
      EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1,
      ["prime256v1", "P-256"].contains(
        String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self))
    else { throw failure }
  }

  static func publicKeyDER(_ der: [UInt8]) throws -> [UInt8] {
    try withPublicKey(der) { key in try encode { i2d_PUBKEY(key, $0) } }
  }

  static func privateKeyPKCS8(_ der: [UInt8]) throws -> [UInt8] {
    try withPrivateKey(der) { key in try pkcs8(key) }
  }

  static func publicHalf(ofPrivateKey der: [UInt8]) throws -> [UInt8] {
    try withPrivateKey(der) { key in try encode { i2d_PUBKEY(key, $0) } }
  }

  static func scalar(ofPrivateKey der: [UInt8]) throws -> [UInt8] {
    try withPrivateKey(der) { key in
      var scalar: OpaquePointer?
      guard EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &scalar) == 1, let scalar else {
        throw failure
      }
      defer { BN_clear_free(scalar) }
      var bytes = [UInt8](repeating: 0, count: 32)
      guard BN_bn2binpad(scalar, &bytes, 32) == 32 else { throw failure }
      return bytes
    }
  }

  static func generateKey() -> [UInt8] {
    guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
      fatalError("OpenSSL: no EC context")
    }
    defer { EVP_PKEY_CTX_free(context) }
    var key: OpaquePointer?
    guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "prime256v1") == 1,
      EVP_PKEY_generate(context, &key) == 1, let key
    else { fatalError("OpenSSL could not generate a P-256 key") }
    defer { EVP_PKEY_free(key) }
    guard let der = try? pkcs8(key) else { fatalError("OpenSSL could not encode a P-256 key") }
    return der
  }

  /// A key from its scalar: SEC1 `ECPrivateKey` without the public key, which OpenSSL computes
  /// when it decodes it; the scalar must be in [1, n − 1].
  static func privateKey(scalar: [UInt8]) throws -> [UInt8] {
    let order: [UInt8] = [
      0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
      0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
    ]
    guard scalar.contains(where: { $0 != 0 }), scalar.lexicographicallyPrecedes(order) else {
      throw CryptoKitError.incorrectKeySize
    }
    let sec1: [UInt8] =
      [0x30, 0x31, 0x02, 0x01, 0x01, 0x04, 0x20] + scalar
      + [0xa0, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07]
    return try privateKeyPKCS8(sec1)
  }

  static func pkcs8(_ key: OpaquePointer) throws -> [UInt8] {
    guard let bio = BIO_new(BIO_s_mem()) else { throw failure }
    defer { BIO_free(bio) }
    guard i2d_PKCS8PrivateKey_bio(bio, key, nil, nil, 0, nil, nil) == 1 else { throw failure }
    let pending = Int(BIO_ctrl_pending(bio))
    var bytes = [UInt8](repeating: 0, count: pending)
    guard bytes.withUnsafeMutableBytes({ BIO_read(bio, $0.baseAddress, Int32(pending)) }) == Int32(pending)
    else {
      throw failure
    }
    return bytes
  }

  /// What `decode` (a `d2i_*` function given the cursor and the length) reads from the whole of
  /// `der`: nil when it reads nothing or leaves bytes after the structure (`free` then frees it).
  static func decodeWhole(
    _ der: [UInt8], _ decode: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> OpaquePointer?,
    free: (OpaquePointer) -> Void
  ) -> OpaquePointer? {
    der.withUnsafeBufferPointer { buffer in
      var cursor = buffer.baseAddress
      guard let decoded = decode(&cursor, buffer.count) else { return nil }
      guard let start = buffer.baseAddress, cursor == start + buffer.count else {
        free(decoded)
        return nil
      }
      return decoded
    }
  }

  /// What an `i2d_*` function writes: sized with a nil cursor first.
  static func encode(_ write: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) throws
    -> [UInt8]
  {
    let length = write(nil)
    guard length > 0 else { throw failure }
    var bytes = [UInt8](repeating: 0, count: Int(length))
    let written = bytes.withUnsafeMutableBufferPointer { buffer in
      var cursor = buffer.baseAddress
      return write(&cursor)
    }
    guard written == length else { throw failure }
    return bytes
  }

  static func sign(_ message: [UInt8], privateKeyDER: [UInt8]) throws -> [UInt8] {
    try withPrivateKey(privateKeyDER) { key in
      guard let context = EVP_MD_CTX_new() else { throw failure }
      defer { EVP_MD_CTX_free(context) }
      guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { throw failure }
      var length = 0
      guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { throw failure }
      var signature = [UInt8](repeating: 0, count: length)
      guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else { throw failure }
      return Array(signature.prefix(length))
    }
  }

  static func verify(signature: [UInt8], message: [UInt8], publicKeyDER: [UInt8]) -> Bool {
    defer { ERR_clear_error() }
    return
      (try? withPublicKey(publicKeyDER) { key in
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
      }) ?? false
  }

  /// `r ‖ s` of a DER signature whose components fit in 32 bytes.
  static func signatureRaw(der: [UInt8]) throws -> [UInt8] {
    let parsed = decodeWhole(der, { d2i_ECDSA_SIG(nil, $0, $1) }, free: ECDSA_SIG_free)
    ERR_clear_error()
    guard let parsed else { throw CryptoKitError.incorrectParameterSize }
    defer { ECDSA_SIG_free(parsed) }
    var r: OpaquePointer?
    var s: OpaquePointer?
    ECDSA_SIG_get0(parsed, &r, &s)
    var raw = [UInt8](repeating: 0, count: 64)
    let fits = raw.withUnsafeMutableBufferPointer { buffer in
      BN_bn2binpad(r, buffer.baseAddress, 32) == 32 && BN_bn2binpad(s, buffer.baseAddress! + 32, 32) == 32
    }
    guard fits else { throw CryptoKitError.incorrectParameterSize }
    return raw
  }

  static func signatureDER(raw: [UInt8]) throws -> [UInt8] {
    guard let signature = ECDSA_SIG_new() else { throw failure }
    defer { ECDSA_SIG_free(signature) }
    let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
    let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
    guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
      BN_free(r)
      BN_free(s)
      throw failure
    }
    return try encode { i2d_ECDSA_SIG(signature, $0) }
  }
}
