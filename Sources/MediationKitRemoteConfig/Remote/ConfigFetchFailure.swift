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
  /// The server redirected to another origin (scheme, host or port) than the configuration URL's:
  /// not followed.
  case redirectRefused(to: String)
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
  /// Something other than a regular file (a directory, a symbolic link, a FIFO, a device) is where
  /// the cache file goes: it is not read, not replaced and not removed, and nothing is cached.
  case cacheUnusable(String)
  /// The cache file was filled from another configuration URL (this one): it is not served for
  /// this URL, and the next good configuration from this URL replaces it.
  case cacheForAnotherURL(String)
  /// The cache could not be written (a read-only directory, a full disk): the configuration in use
  /// stays, but it will not be there for the next start.
  case cacheWriteFailed(String)
  /// The candidate the previous run put in use was never confirmed to have run (the run ended
  /// before a load completed, or before ``RemoteConfigSource/confirmRunning()``): it is not tried
  /// again; the last-known-good (else the bundled configuration) is used instead.
  case candidateNeverRan(etag: String?, savedAt: Date)
  /// The server's configuration is one that was put in use on this device and never confirmed to
  /// have run: it is not tried again until the server sends a different one.
  case neverRanBefore(etag: String?)
  /// A valid configuration the mediator it is applied to refused (``Mediator/apply(_:)``'s error:
  /// for example a network its registry does not have).
  case refusedByMediator(String)

  public var description: String {
    switch self {
    case .httpStatus(let status): "HTTP \(status)"
    case .timedOut(let after): "no complete answer within \(after.seconds) s (timed out)"
    case .transport(let reason): "request failed: \(reason)"
    case .redirectRefused(let target):
      "redirect to \(target) refused: only redirects within the configuration URL's origin are followed"
    case .tooLarge(let limit): "body larger than the \(limit)-byte limit"
    case .truncated(let expected, let received):
      "truncated body: \(received) of \(expected) bytes arrived"
    case .invalid(let error): "not a valid configuration:\n" + error.description
    case .notModifiedWithoutCache: "304 Not Modified, but there is no cached copy"
    case .noCache: "no cached copy"
    case .corruptCache(let reason): "cache file ignored: \(reason)"
    case .cacheUnusable(let reason): "cache not used: \(reason)"
    case .cacheForAnotherURL(let url): "cache file not used: it was filled from \(url)"
    case .cacheWriteFailed(let reason): "cache not updated: \(reason)"
    case .candidateNeverRan(let etag, let savedAt):
      "the configuration fetched \(savedAt.formatted(.iso8601)) (\(etag.map { "ETag \($0)" } ?? "no ETag")) "
        + "was put in use and never confirmed to run (the previous run ended first); not tried again"
    case .neverRanBefore(let etag):
      "this configuration (\(etag.map { "ETag \($0)" } ?? "no ETag")) was put in use before and never "
        + "confirmed to run; not tried again until the server sends another"
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
  /// The shortest wait between two of ``RemoteConfigSource/startRefreshing()``'s refreshes, whatever
  /// the server's `max-age` (a server answering `max-age=0` or `no-store` would otherwise be asked
  /// again at once, in a loop). ``RemoteConfigSource/refresh(force:)`` called by the app is not held back.
  public var minimumRefreshInterval: Duration

  /// Creates a policy; the defaults suit an app: 10 s timeout, 3 attempts from 1 s backoff, 1 MB,
  /// fresh for 15 minutes without `max-age`, 1 minute after a failure, refreshed at most once a
  /// minute.
  public init(
    requestTimeout: Duration = .seconds(10), maxAttempts: Int = 3, initialBackoff: Duration = .seconds(1),
    maxBodyBytes: Int = 1_048_576, defaultMaxAge: Duration = .seconds(900),
    retryAfterFailure: Duration = .seconds(60), minimumRefreshInterval: Duration = .seconds(60)
  ) {
    self.minimumRefreshInterval = max(.zero, minimumRefreshInterval)
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

/// The longest freshness a `Cache-Control: max-age` gives: 2^31 seconds (about 68 years), the
/// value RFC 9111 §1.2.2 says a cache uses for a delta-seconds it cannot represent. A larger value
/// (any number of digits) is read as this one, so no header can overflow a clock.
let maxAgeLimit: Int = 1 << 31

/// The freshness a `Cache-Control` header gives, if it gives one; never traps, whatever the header.
///
/// - `no-cache` or `no-store` anywhere in the header: `0` (refetch at the next refresh).
/// - `max-age=N` with `N` ASCII digits (optionally in one pair of double quotes): `N` seconds,
///   at most ``maxAgeLimit``. Two `max-age` directives that disagree make the header contradictory,
///   and the configuration is treated as stale (`0`), as RFC 9111 §4.2.1 allows.
/// - A directive without a valid value (`max-age=`, `max-age=-1`, `max-age=1e30`, `max-age=1.5`,
///   non-ASCII digits), a lone `=`, an empty header or unknown directives: ignored; with nothing
///   left the caller's default applies.
func maxAge(cacheControl: String?) -> Duration? {
  guard let cacheControl else { return nil }
  var seconds: Int?
  var contradictory = false
  for directive in cacheControl.split(separator: ",", omittingEmptySubsequences: true) {
    let name: Substring
    let value: Substring?
    if let equals = directive.firstIndex(of: "=") {
      name = directive[..<equals]
      value = directive[directive.index(after: equals)...]
    } else {
      name = directive
      value = nil
    }
    switch name.trimmingCharacters(in: .whitespaces).lowercased() {
    case "no-cache", "no-store": return .zero
    case "max-age":
      guard let value, let parsed = deltaSeconds(value) else { continue }
      if let seconds, seconds != parsed { contradictory = true }
      seconds = seconds ?? parsed
    default: continue
    }
  }
  if contradictory { return .zero }
  return seconds.map { .seconds($0) }
}

/// A `delta-seconds` value (RFC 9111 §1.2.2: one or more ASCII digits), optionally quoted, capped at
/// ``maxAgeLimit``; `nil` for anything else.
private func deltaSeconds(_ text: Substring) -> Int? {
  var digits = Substring(text.trimmingCharacters(in: .whitespaces)).utf8
  if digits.count >= 2, digits.first == UInt8(ascii: "\""), digits.last == UInt8(ascii: "\"") {
    digits = digits.dropFirst().dropLast()
  }
  guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
    return nil
  }
  var value = 0
  for digit in digits {
    value = value * 10 + Int(digit - UInt8(ascii: "0"))
    if value >= maxAgeLimit { return maxAgeLimit }
  }
  return value
}
