import Foundation
import MediationKit

/// A transport for tests: records every GET and answers each from a script, at once, without any
/// network.
///
/// ```swift
/// let client = RecordingHTTPGetClient(script: [.response(status: 500), .timedOut])
/// // the first GET answers 500, the second times out, every later one answers 200
/// ```
public final class RecordingHTTPGetClient: HTTPGetClient {
  /// One GET the client received.
  public struct Request: Sendable, Equatable {
    /// The URL asked for.
    public var url: URL
    /// The timeout it was sent with.
    public var timeout: Duration
  }

  private struct State {
    var script: [HTTPGetOutcome]
    var requests: [Request] = []
  }

  private let state: Locked<State>
  private let fallback: HTTPGetOutcome

  /// Creates a client.
  ///
  /// - Parameters:
  ///   - script: The outcomes of the first GETs, in order.
  ///   - fallback: The outcome of every GET after the script ran out (200 by default).
  public init(script: [HTTPGetOutcome] = [], fallback: HTTPGetOutcome = .response(status: 200)) {
    self.state = Locked(State(script: script))
    self.fallback = fallback
  }

  /// Every GET received so far, oldest first.
  public var requests: [Request] { state.withLock { $0.requests } }

  public func get(_ url: URL, timeout: Duration, completion: @escaping @Sendable (HTTPGetOutcome) -> Void) {
    let outcome = state.withLock { state -> HTTPGetOutcome in
      state.requests.append(Request(url: url, timeout: timeout))
      return state.script.isEmpty ? fallback : state.script.removeFirst()
    }
    completion(outcome)
  }
}
