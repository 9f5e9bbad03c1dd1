#if canImport(CryptoKit)
  import CryptoKit
#elseif canImport(COpenSSLCrypto)
  import COpenSSLCrypto
#else
  #error("RewardCrypto needs CryptoKit (Apple platforms) or OpenSSL's libcrypto (the COpenSSLCrypto target)")
#endif

/// Message digests computed by CryptoKit on Apple platforms and by OpenSSL (`EVP_Digest`) elsewhere.
public enum Digest {
  /// The SHA-1 digest of `bytes` (20 bytes).
  ///
  /// SHA-1 is here because AppLovin's `{EVENT_TOKEN}` is defined with it; do not use it for new
  /// designs.
  public static func sha1(_ bytes: some Collection<UInt8>) -> [UInt8] {
    #if canImport(CryptoKit)
      Array(Insecure.SHA1.hash(data: Array(bytes)))
    #else
      digest(bytes, algorithm: EVP_sha1(), name: "SHA-1")
    #endif
  }

  /// The SHA-256 digest of `bytes` (32 bytes).
  public static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] {
    #if canImport(CryptoKit)
      Array(SHA256.hash(data: Array(bytes)))
    #else
      digest(bytes, algorithm: EVP_sha256(), name: "SHA-256")
    #endif
  }

  /// The lowercase hexadecimal SHA-1 digest of the UTF-8 bytes of `string` (40 characters).
  public static func sha1Hex(_ string: String) -> String { Hex.encode(sha1(Array(string.utf8))) }

  /// The lowercase hexadecimal SHA-256 digest of the UTF-8 bytes of `string` (64 characters).
  public static func sha256Hex(_ string: String) -> String { Hex.encode(sha256(Array(string.utf8))) }

  #if !canImport(CryptoKit)
    private static func digest(
      _ bytes: some Collection<UInt8>, algorithm: OpaquePointer?, name: String
    ) -> [UInt8] {
      let input = Array(bytes)
      var output = [UInt8](repeating: 0, count: 64)  // EVP_MAX_MD_SIZE
      var length: UInt32 = 0
      let status = input.withUnsafeBytes { raw in
        EVP_Digest(raw.baseAddress, raw.count, &output, &length, algorithm, nil)
      }
      // EVP_Digest fails only when OpenSSL itself is broken (no memory, algorithm disabled by a
      // provider configuration): not an input a caller could fix or handle.
      guard status == 1 else { fatalError("OpenSSL could not compute \(name): \(CryptoError.openSSL(name))") }
      return Array(output.prefix(Int(length)))
    }
  #endif
}
