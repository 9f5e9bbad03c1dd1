import Dispatch
import Foundation
import MediationKit
import MediationKitSimulation

/// Delivers simulated networks' server-to-server reward callbacks over HTTP: one GET per callback,
/// retried under a ``RetryPolicy``, each delivery's result kept and observable.
///
/// Pass it as ``MediatorOptions/serverCallbacks`` so the simulated MAX and Google servers send
/// what they build; before the process exits, wait for the deliveries in flight:
/// ```swift
/// let dispatcher = ServerCallbackDispatcher()
/// let mediator = try Mediator(config: config, registry: registry, scheduler: scheduler,
///                             options: MediatorOptions(serverCallbacks: dispatcher))
/// // … shows …
/// _ = dispatcher.waitUntilIdleBlocking(timeout: dispatcher.policy.longestDelivery + .seconds(1))
/// for delivery in dispatcher.deliveries { print(delivery) }
/// ```
/// Thread-safe; every method may be called from any thread. Observers run on the thread that
/// finished the delivery (the transport's), outside any lock.
public final class ServerCallbackDispatcher: ServerCallbackSender {
  private struct State {
    var inFlight = 0
    var finished: [CallbackDelivery] = []
    var finishedCount = 0
    var nextToken: UInt64 = 0
    var idleWaiters: [UInt64: @Sendable () -> Void] = [:]
    var observers: [UInt64: @Sendable (CallbackDelivery) -> Void] = [:]
  }

  /// The transport every GET goes through.
  public let client: any HTTPGetClient
  /// The timeout and retries of every delivery.
  public let policy: RetryPolicy
  /// How many finished deliveries ``deliveries`` keeps (the oldest are dropped first).
  public let historyLimit: Int
  private let state = Locked(State())

  /// Creates a dispatcher.
  ///
  /// - Parameters:
  ///   - client: The transport (real HTTP by default).
  ///   - policy: The timeout and retries (``RetryPolicy/standard`` by default).
  ///   - historyLimit: How many finished deliveries to keep for ``deliveries`` (at least 0).
  public init(
    client: any HTTPGetClient = URLSessionHTTPGetClient(), policy: RetryPolicy = .standard,
    historyLimit: Int = 1024
  ) {
    self.client = client
    self.policy = policy
    self.historyLimit = max(0, historyLimit)
  }

  // MARK: Sending

  /// Starts delivering `callback` and returns at once.
  public func send(_ callback: ServerCallbackRequest) {
    state.withLock { $0.inFlight += 1 }
    guard let url = Self.httpURL(callback.url) else {
      finish(
        CallbackDelivery(network: callback.network, url: callback.url, attempts: [], outcome: .invalidURL))
      return
    }
    attempt(callback, url: url, previous: [])
  }

  /// `text` as a URL when it is an absolute `http` or `https` URL with a host.
  static func httpURL(_ text: String) -> URL? {
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
      scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
    else { return nil }
    return url
  }

  private func attempt(_ callback: ServerCallbackRequest, url: URL, previous: [HTTPGetOutcome]) {
    client.get(url, timeout: policy.attemptTimeout) { [self] outcome in
      let attempts = previous + [outcome]
      switch policy.decision(after: outcome, attempt: attempts.count) {
      case .delivered:
        guard case .response(let status) = outcome else { return }
        finish(
          CallbackDelivery(
            network: callback.network, url: callback.url, attempts: attempts,
            outcome: .delivered(status: status)))
      case .giveUp:
        finish(
          CallbackDelivery(
            network: callback.network, url: callback.url, attempts: attempts, outcome: .failed(outcome)))
      case .retry(let delay):
        if delay <= .zero {
          attempt(callback, url: url, previous: attempts)
        } else {
          DispatchQueue.global().asyncAfter(deadline: .now() + delay.seconds) { [self] in
            attempt(callback, url: url, previous: attempts)
          }
        }
      }
    }
  }

  private func finish(_ delivery: CallbackDelivery) {
    let (observers, waiters) = state.withLock { state in
      state.finishedCount += 1
      if historyLimit > 0 {
        if state.finished.count == historyLimit { state.finished.removeFirst() }
        state.finished.append(delivery)
      }
      state.inFlight -= 1
      var waiters: [@Sendable () -> Void] = []
      if state.inFlight == 0 {
        waiters = Array(state.idleWaiters.values)
        state.idleWaiters = [:]
      }
      return (Array(state.observers.values), waiters)
    }
    for observer in observers { observer(delivery) }
    for waiter in waiters { waiter() }
  }

  // MARK: Results

  /// The finished deliveries, oldest first (at most ``historyLimit``).
  public var deliveries: [CallbackDelivery] { state.withLock { $0.finished } }

  /// How many deliveries finished in all.
  public var finishedCount: Int { state.withLock { $0.finishedCount } }

  /// How many deliveries are in flight (attempting or waiting to retry).
  public var inFlightCount: Int { state.withLock { $0.inFlight } }

  /// Calls `handler` with every delivery that finishes from now on.
  ///
  /// - Returns: A handle that stops the observation.
  @discardableResult
  public func observe(_ handler: @escaping @Sendable (CallbackDelivery) -> Void) -> Cancellable {
    let token = state.withLock { state in
      state.nextToken += 1
      state.observers[state.nextToken] = handler
      return state.nextToken
    }
    return Cancellable { [weak self] in self?.state.withLock { _ = $0.observers.removeValue(forKey: token) } }
  }

  // MARK: Waiting

  /// Waits until no delivery is in flight, or `timeout` passed.
  ///
  /// - Parameter timeout: The longest to wait (``RetryPolicy/longestDelivery`` covers one delivery).
  /// - Returns: `true` when idle, `false` when deliveries were still in flight at the deadline.
  public func waitUntilIdle(timeout: Duration) async -> Bool {
    await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
      let resume = Locked<CheckedContinuation<Bool, Never>?>(continuation)
      whenIdle(timeout: timeout) { idle in resume.exchange(nil)?.resume(returning: idle) }
    }
  }

  /// ``waitUntilIdle(timeout:)`` for synchronous callers (a command-line tool before it exits):
  /// blocks the calling thread. Never call it from the thread the transport calls back on.
  ///
  /// - Parameter timeout: The longest to wait.
  /// - Returns: `true` when idle, `false` when deliveries were still in flight at the deadline.
  public func waitUntilIdleBlocking(timeout: Duration) -> Bool {
    let semaphore = DispatchSemaphore(value: 0)
    let result = Locked(false)
    whenIdle(timeout: timeout) { idle in
      result.set(idle)
      semaphore.signal()
    }
    semaphore.wait()
    return result.get()
  }

  /// Calls `done` once: with `true` as soon as nothing is in flight (at once if nothing is), or
  /// with `false` when `timeout` passes first.
  private func whenIdle(timeout: Duration, _ done: @escaping @Sendable (Bool) -> Void) {
    let once = Locked<(@Sendable (Bool) -> Void)?>(done)
    let token = state.withLock { state -> UInt64? in
      guard state.inFlight > 0 else { return nil }
      state.nextToken += 1
      state.idleWaiters[state.nextToken] = { once.exchange(nil)?(true) }
      return state.nextToken
    }
    guard let token else {
      done(true)
      return
    }
    // After an idle report the deadline finds `once` empty and does nothing.
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout.seconds) { [weak self] in
      self?.state.withLock { _ = $0.idleWaiters.removeValue(forKey: token) }
      once.exchange(nil)?(false)
    }
  }
}
