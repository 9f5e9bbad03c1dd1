import Foundation
import MediationKit

/// Why a remote configuration (or its cached copy) was not used. The configuration in use stays.
public enum ConfigFetchFailure: Error, Sendable, Equatable, CustomStringConvertible {
  /// The server answered with this status (not `200` or `304`).
  case httpStatus(Int)
  /// No complete answer within the request timeout.
  case timedOut(after: Duration)
  /// The request failed before an answer: no connection, DNS, TLS; what the system said.
  case transport(String)
  /// The body is longer than the limit, in bytes; the download was stopped there.
  case tooLarge(limit: Int)
  /// The connection closed before the body's declared length arrived.
  case truncated(expected: Int, received: Int)
  /// The body is not a valid configuration: every problem, with its path in the document.
  case invalid(MediationConfig.LoadError)
  /// The server answered `304 Not Modified` but there is no cached copy it could refer to.
  case notModifiedWithoutCache
  /// No cache directory was given, or it holds no copy yet.
  case noCache
  /// The cache file is damaged (bad checksum, wrong length, unreadable); it is never trusted and
  /// is replaced by the next good remote configuration.
  case corruptCache(String)
  /// A valid configuration the mediator it is applied to refused (``Mediator/apply(_:)``'s error:
  /// for example a network its registry does not have).
  case refusedByMediator(String)

  public var description: String {
    switch self {
    case .httpStatus(let status): "HTTP \(status)"
    case .timedOut(let after): "no complete answer within \(after.seconds) s (timed out)"
    case .transport(let reason): "request failed: \(reason)"
    case .tooLarge(let limit): "body larger than the \(limit)-byte limit"
    case .truncated(let expected, let received):
      "truncated body: \(received) of \(expected) bytes arrived"
    case .invalid(let error): "not a valid configuration:\n" + error.description
    case .notModifiedWithoutCache: "304 Not Modified, but there is no cached copy"
    case .noCache: "no cached copy"
    case .corruptCache(let reason): "cache file ignored: \(reason)"
    case .refusedByMediator(let reason): "refused by the mediator: \(reason)"
    }
  }

  /// Whether trying again later may succeed: time-outs, transport errors and `408`, `429`, `5xx`.
  var isTransient: Bool {
    switch self {
    case .timedOut, .transport, .truncated: true
    case .httpStatus(let status): status == 408 || status == 429 || (500...599).contains(status)
    default: false
    }
  }
}

/// How a ``RemoteConfigSource`` fetches: timeout, retries, size limit, refresh interval.
public struct RemoteConfigPolicy: Sendable, Equatable {
  /// The longest one request may take, from sending it to the body's last byte (real time).
  public var requestTimeout: Duration
  /// Requests per fetch, the first included; transient failures (``ConfigFetchFailure``'s time-outs,
  /// transport errors, `408`, `429`, `5xx`) are retried, others are not.
  public var maxAttempts: Int
  /// The wait before the first retry; each further retry waits twice as long as the one before.
  /// Measured on the source's ``Scheduler``.
  public var initialBackoff: Duration
  /// The longest body accepted, in bytes.
  public var maxBodyBytes: Int
  /// How long a fetched configuration is fresh when the server sends no `Cache-Control: max-age`.
  public var defaultMaxAge: Duration
  /// How long to wait before trying again after a failed refresh.
  public var retryAfterFailure: Duration

  /// Creates a policy; the defaults suit an app: 10 s timeout, 3 attempts from 1 s backoff, 1 MB,
  /// fresh for 15 minutes without `max-age`, 1 minute after a failure.
  public init(
    requestTimeout: Duration = .seconds(10), maxAttempts: Int = 3, initialBackoff: Duration = .seconds(1),
    maxBodyBytes: Int = 1_048_576, defaultMaxAge: Duration = .seconds(900),
    retryAfterFailure: Duration = .seconds(60)
  ) {
    self.requestTimeout = requestTimeout
    self.maxAttempts = max(1, maxAttempts)
    self.initialBackoff = initialBackoff
    self.maxBodyBytes = maxBodyBytes
    self.defaultMaxAge = defaultMaxAge
    self.retryAfterFailure = retryAfterFailure
  }

  /// The wait before attempt `attempt` (2 is the first retry).
  func backoff(beforeAttempt attempt: Int) -> Duration {
    initialBackoff * (1 << min(max(0, attempt - 2), 20))
  }
}

/// The `max-age` of a `Cache-Control` header, if it has one; `no-cache` and `no-store` mean 0.
func maxAge(cacheControl: String?) -> Duration? {
  guard let cacheControl else { return nil }
  for directive in cacheControl.split(separator: ",") {
    let parts = directive.split(separator: "=", maxSplits: 1).map {
      $0.trimmingCharacters(in: .whitespaces).lowercased()
    }
    if parts[0] == "no-cache" || parts[0] == "no-store" { return .zero }
    if parts[0] == "max-age", parts.count == 2,
      let seconds = Int(parts[1].trimmingCharacters(in: ["\""])), seconds >= 0
    {
      return .seconds(seconds)
    }
  }
  return nil
}
