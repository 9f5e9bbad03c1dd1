/// When a server-to-server callback counts as delivered, how long each attempt may take, and how
/// often it is tried.
///
/// AppLovin documents its S2S callbacks as timing out after 5 s without a response, and as
/// retried after a non-200 answer "twice right away and then once more about 60 seconds later";
/// Google retries SSV callbacks too without documenting a schedule. ``standard`` follows the part
/// both share and a short-lived process can honour: a 5 s timeout per attempt and up to two
/// retries right away (three attempts in all) after a timeout, a connection error or a non-2xx
/// status. The late 60 s retry is left out (``retryDelay`` can add one between every attempt).
public struct RetryPolicy: Sendable, Equatable {
  /// What to do after an attempt.
  public enum Decision: Sendable, Equatable {
    /// The callback was delivered (a 2xx answer): stop.
    case delivered
    /// Try again after this delay.
    case retry(after: Duration)
    /// The last attempt failed: stop, undelivered.
    case giveUp
  }

  /// How long one attempt may wait for the response status.
  public var attemptTimeout: Duration
  /// How many attempts in all, the first included (at least 1).
  public var maxAttempts: Int
  /// How long to wait before each retry.
  public var retryDelay: Duration

  /// Creates a policy; `maxAttempts` below 1 counts as 1, and a negative delay or a timeout below
  /// 1 ms as those bounds.
  public init(attemptTimeout: Duration = .seconds(5), maxAttempts: Int = 3, retryDelay: Duration = .zero) {
    self.attemptTimeout = max(.milliseconds(1), attemptTimeout)
    self.maxAttempts = max(1, maxAttempts)
    self.retryDelay = max(.zero, retryDelay)
  }

  /// AppLovin's and Google's shared behaviour: 5 s per attempt, up to two immediate retries.
  public static let standard = RetryPolicy()

  /// Whether `status` means delivered: any 2xx.
  public static func isSuccess(status: Int) -> Bool { (200...299).contains(status) }

  /// What to do after attempt number `attempt` (1 for the first) came to `outcome`.
  public func decision(after outcome: HTTPGetOutcome, attempt: Int) -> Decision {
    if case .response(let status) = outcome, Self.isSuccess(status: status) { return .delivered }
    return attempt < maxAttempts ? .retry(after: retryDelay) : .giveUp
  }

  /// The longest one delivery can take: every attempt timing out, with the delays between them.
  public var longestDelivery: Duration {
    attemptTimeout * maxAttempts + retryDelay * (maxAttempts - 1)
  }
}
