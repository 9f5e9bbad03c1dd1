import MediationKit

/// What became of one server-to-server callback: every attempt, and the final outcome.
public struct CallbackDelivery: Sendable, Equatable, CustomStringConvertible {
  /// How a delivery ended.
  public enum Outcome: Sendable, Equatable {
    /// A 2xx answer, with its status.
    case delivered(status: Int)
    /// Every attempt failed; the last one's outcome says why.
    case failed(HTTPGetOutcome)
    /// The URL could not be sent at all (not a valid absolute http or https URL).
    case invalidURL
  }

  /// The network whose server sent it.
  public var network: NetworkID
  /// The URL sent.
  public var url: String
  /// Each attempt's outcome, in order.
  public var attempts: [HTTPGetOutcome]
  /// How it ended.
  public var outcome: Outcome

  /// Creates a delivery record.
  public init(network: NetworkID, url: String, attempts: [HTTPGetOutcome], outcome: Outcome) {
    self.network = network
    self.url = url
    self.attempts = attempts
    self.outcome = outcome
  }

  /// Whether a 2xx answer arrived.
  public var isDelivered: Bool {
    if case .delivered = outcome { return true }
    return false
  }

  /// The final HTTP status, if the last attempt got an answer.
  public var finalStatus: Int? {
    if case .response(let status) = attempts.last { return status }
    return nil
  }

  /// `max GET https://… → HTTP 200 after 3 attempts`.
  public var description: String {
    let result: String
    switch outcome {
    case .delivered(let status): result = "HTTP \(status)"
    case .failed(let last): result = "not delivered (\(last))"
    case .invalidURL: result = "not sent: not an absolute http or https URL"
    }
    let count = attempts.count == 1 ? "1 attempt" : "\(attempts.count) attempts"
    return "\(network) GET \(url) → \(result) after \(count)"
  }
}
