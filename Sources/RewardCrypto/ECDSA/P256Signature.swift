#if canImport(CryptoKit)
  import CryptoKit
#elseif canImport(COpenSSLCrypto)
  import COpenSSLCrypto
#endif

/// An ECDSA P-256 signature in its two usual encodings: DER (`SEQUENCE { r, s }`, what Google's SSV
/// callbacks and `openssl dgst -sign` carry) and raw (`r ‖ s`, 32 bytes each).
///
/// The conversion is CryptoKit's on Apple platforms (`P256.Signing.ECDSASignature`), OpenSSL's
/// elsewhere (`d2i_ECDSA_SIG` / `i2d_ECDSA_SIG`).
public struct P256Signature: Sendable, Hashable {
  /// The signature as canonical DER.
  public let derRepresentation: [UInt8]
  /// The signature as `r ‖ s`, each 32 bytes big-endian.
  public let rawRepresentation: [UInt8]

  /// Reads a DER signature.
  ///
  /// - Throws: ``CryptoError`` when the bytes are not one canonical DER `SEQUENCE` of two
  ///   integers that fit in 32 bytes, with nothing after it.
  public init(derRepresentation der: [UInt8]) throws(CryptoError) {
    guard !der.isEmpty else { throw CryptoError("empty signature; expected DER SEQUENCE { r, s }") }
    #if canImport(CryptoKit)
      let raw = try CryptoKitP256.rawSignature(der: der)
    #else
      let parsed = OpenSSLDER.decodeWhole(der, { d2i_ECDSA_SIG(nil, $0, $1) }, free: ECDSA_SIG_free)
      guard let parsed else {
        throw .openSSL(
          "not a DER ECDSA signature (\(der.count) bytes); expected SEQUENCE { r INTEGER, s INTEGER }")
      }
      defer { ECDSA_SIG_free(parsed) }
      var r: OpaquePointer?
      var s: OpaquePointer?
      ECDSA_SIG_get0(parsed, &r, &s)
      var raw = [UInt8](repeating: 0, count: 64)
      let fits = raw.withUnsafeMutableBufferPointer { buffer in
        BN_bn2binpad(r, buffer.baseAddress, 32) == 32 && BN_bn2binpad(s, buffer.baseAddress! + 32, 32) == 32
      }
      guard fits else {
        throw CryptoError("a signature component is longer than 32 bytes; expected P-256 r and s")
      }
    #endif
    let canonical = try Self.encode(raw)
    guard canonical == der else {
      throw CryptoError("the signature is BER but not canonical DER; expected DER")
    }
    derRepresentation = der
    rawRepresentation = raw
  }

  /// Reads a raw `r ‖ s` signature (64 bytes).
  ///
  /// - Throws: ``CryptoError`` when it is not 64 bytes.
  public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
    guard raw.count == 64 else {
      throw CryptoError("a raw P-256 signature is 64 bytes (r ‖ s); got \(raw.count) bytes")
    }
    derRepresentation = try Self.encode(raw)
    rawRepresentation = raw
  }

  /// DER-encodes `r ‖ s`.
  private static func encode(_ raw: [UInt8]) throws(CryptoError) -> [UInt8] {
    #if canImport(CryptoKit)
      try CryptoKitP256.derSignature(raw: raw)
    #else
      try openSSLEncode(raw)
    #endif
  }

  #if !canImport(CryptoKit)
    /// DER-encodes `r ‖ s` with OpenSSL.
    private static func openSSLEncode(_ raw: [UInt8]) throws(CryptoError) -> [UInt8] {
      guard let signature = ECDSA_SIG_new() else { throw .openSSL("could not allocate an ECDSA signature") }
      defer { ECDSA_SIG_free(signature) }
      let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
      let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
      guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
        BN_free(r)
        BN_free(s)
        throw .openSSL("could not build an ECDSA signature from r and s")
      }
      guard let der = OpenSSLDER.encode({ i2d_ECDSA_SIG(signature, $0) }) else {
        throw .openSSL("could not DER-encode the signature")
      }
      return der
    }
  #endif
}
