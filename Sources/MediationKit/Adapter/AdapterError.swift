/// A failure an adapter reports: a normalized kind plus the network's own code and message.
public struct AdapterError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The normalized kind of failure, which the core acts on.
  public enum Kind: String, Sendable, Equatable, Codable {
    /// The network had no ad to serve.
    case noFill = "no_fill"
    /// The network did not answer in time.
    case timeout
    /// The ad was not ready (not loaded, or already used).
    case notReady = "not_ready"
    /// The ad expired before it was shown.
    case expired
    /// Another full-screen ad is already on screen.
    case anotherAdShowing = "another_ad_showing"
    /// The network's SDK is not initialized, or failed to.
    case notInitialized = "not_initialized"
    /// The request was invalid for the network (bad placement id, …).
    case invalidRequest = "invalid_request"
    /// A network or server error.
    case networkError = "network_error"
    /// Anything else the SDK reported.
    case internalError = "internal_error"
  }

  /// The normalized kind.
  public var kind: Kind
  /// The network's own error code, if it has one (e.g. MAX's 204, AdMob's 18).
  public var vendorCode: Int?
  /// The network's message.
  public var message: String

  /// Creates an error of `kind`, with the network's own code and message.
  public init(_ kind: Kind, vendorCode: Int? = nil, message: String) {
    self.kind = kind
    self.vendorCode = vendorCode
    self.message = message
  }

  public var description: String {
    if let vendorCode { return "\(kind.rawValue) (\(vendorCode)): \(message)" }
    return "\(kind.rawValue): \(message)"
  }
}
