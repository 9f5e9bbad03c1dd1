import COpenSSLCrypto

/// Comparisons whose duration does not depend on where two secrets differ.
public enum ConstantTime {
  /// Whether `a` and `b` hold the same bytes, compared with OpenSSL's `CRYPTO_memcmp`.
  ///
  /// Sequences of different lengths are unequal at once, without looking at their contents: the
  /// length of a token or signature is not secret, its bytes are.
  public static func equals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
    let left = Array(a)
    let right = Array(b)
    guard left.count == right.count else { return false }
    guard !left.isEmpty else { return true }
    return left.withUnsafeBytes { leftBytes in
      right.withUnsafeBytes { rightBytes in
        CRYPTO_memcmp(leftBytes.baseAddress, rightBytes.baseAddress, leftBytes.count) == 0
      }
    }
  }
}
