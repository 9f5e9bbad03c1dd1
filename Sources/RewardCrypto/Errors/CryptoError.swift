/// A cryptographic operation that could not be done: a key or signature that does not parse, a key
/// on the wrong curve, or a failure inside the platform's library (CryptoKit on Apple platforms,
/// OpenSSL elsewhere).
///
/// ``description`` says what was wrong and what was expected, followed by OpenSSL's own reason
/// when OpenSSL reported one; on Apple platforms ``message`` ends with CryptoKit's error instead.
public struct CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What went wrong and what was expected, in words.
  public let message: String
  /// The first reason on OpenSSL's error queue when the failure came from OpenSSL, e.g.
  /// `error:1E08010C:DECODER routines::unsupported`; always `nil` where CryptoKit does the work.
  public let openSSLReason: String?

  /// Creates an error with a message and, optionally, OpenSSL's reason.
  public init(_ message: String, openSSLReason: String? = nil) {
    self.message = message
    self.openSSLReason = openSSLReason
  }

  public var description: String {
    guard let openSSLReason else { return message }
    return "\(message) (OpenSSL: \(openSSLReason))"
  }
}
