#if !canImport(CryptoKit) && canImport(COpenSSLCrypto)
  import COpenSSLCrypto
#endif

/// Comparisons whose duration does not depend on where two secrets differ.
public enum ConstantTime {
  /// Whether `a` and `b` hold the same bytes, compared with OpenSSL's `CRYPTO_memcmp` where
  /// OpenSSL is the backend, and on Apple platforms (CryptoKit has no such function) by OR-ing the
  /// XOR of every pair of bytes, with no early exit.
  ///
  /// Sequences of different lengths are unequal at once, without looking at their contents: the
  /// length of a token or signature is not secret, its bytes are.
  public static func equals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
    let left = Array(a)
    let right = Array(b)
    guard left.count == right.count else { return false }
    guard !left.isEmpty else { return true }
    #if !canImport(CryptoKit) && canImport(COpenSSLCrypto)
      return left.withUnsafeBytes { leftBytes in
        right.withUnsafeBytes { rightBytes in
          CRYPTO_memcmp(leftBytes.baseAddress, rightBytes.baseAddress, leftBytes.count) == 0
        }
      }
    #else
      var difference: UInt8 = 0
      for index in left.indices { difference |= left[index] ^ right[index] }
      return difference == 0
    #endif
  }
}
