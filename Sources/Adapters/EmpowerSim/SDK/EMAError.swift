/// An error the simulated Empower SDK reports in ``AdStatus/failed(_:)``.
public struct EMAError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What went wrong, with a stable numeric code.
  public enum Code: Int, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// The ad server had no ad for the zone.
    case noFill = 204
    /// The request to the ad server failed.
    case networkError = 500
    /// The zone id is not configured in the dashboard.
    case invalidZone = 404
    /// `showRewarded` was called while the zone had no ad loaded (never loaded, still loading,
    /// failed, already shown, or destroyed).
    case notReady = 1001
    /// `showRewarded` was called while another full-screen ad was on screen.
    case anotherAdShowing = 1002
    /// Simulation extension (server-side bidding): a load named a bid token the server does not
    /// know — never issued, for another zone, already loaded, or expired.
    case invalidBid = 400

    /// The code's name, e.g. `no_fill`.
    public var description: String {
      switch self {
      case .noFill: "no_fill"
      case .networkError: "network_error"
      case .invalidZone: "invalid_zone"
      case .notReady: "not_ready"
      case .anotherAdShowing: "another_ad_showing"
      case .invalidBid: "invalid_bid"
      }
    }
  }

  /// The error's code.
  public var code: Code
  /// A human-readable explanation.
  public var message: String

  /// Creates an error with `code` and `message`.
  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  /// `code (number): message`.
  public var description: String { "\(code) (\(code.rawValue)): \(message)" }
}
