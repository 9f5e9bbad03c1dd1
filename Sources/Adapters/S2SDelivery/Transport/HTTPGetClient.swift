import Foundation
import MediationKit

/// What one HTTP GET attempt came to.
public enum HTTPGetOutcome: Sendable, Equatable, CustomStringConvertible {
  /// The server answered with this status code (any code: 2xx or not).
  case response(status: Int)
  /// No answer within the attempt's timeout.
  case timedOut
  /// The request failed before an answer: connection refused, DNS, TLS… with the reason.
  case failed(String)

  public var description: String {
    switch self {
    case .response(let status): "HTTP \(status)"
    case .timedOut: "timed out"
    case .failed(let reason): "failed: \(reason)"
    }
  }
}

/// The transport a ``ServerCallbackDispatcher`` sends its GETs through.
///
/// ``URLSessionHTTPGetClient`` sends real requests; ``RecordingHTTPGetClient`` records them and
/// answers from a script, for tests.
public protocol HTTPGetClient: Sendable {
  /// Sends one GET of `url` and reports its outcome once, from any thread.
  ///
  /// - Parameters:
  ///   - url: The URL to GET.
  ///   - timeout: How long to wait for the response status; past it, report ``HTTPGetOutcome/timedOut``.
  ///   - completion: Called exactly once with the outcome.
  func get(_ url: URL, timeout: Duration, completion: @escaping @Sendable (HTTPGetOutcome) -> Void)
}
