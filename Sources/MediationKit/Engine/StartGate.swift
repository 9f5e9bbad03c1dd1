/// One network's start-up as a pure value: where its `start` stands, and the loads and bids
/// waiting for it.
///
/// Nothing reaches an adapter before its start has completed. A request that arrives while the
/// start is under way waits here; when the start ends, every waiter is released at once, to go on
/// or to be skipped with the reason. Once a start has failed or timed out, or when the app chose
/// never to start the network, requests are refused at once. A start that times out and answers
/// later still opens the gate for the requests after it. The owner (``EngineContext``, which keeps every gate in ``NetworkStarts``) holds the
/// lock, calls the adapter and runs the timers; this type only decides.
struct StartGate<Waiter> {
  enum Phase: Equatable {
    /// Not asked to start yet: it starts with the first request (``MediatorOptions/NetworkStart/onFirstUse``).
    case deferred
    /// The app chose never to start it (``MediatorOptions/NetworkStart/never``).
    case disabled
    /// `start` was called at `since`; no answer yet.
    case starting(since: Duration)
    /// Started: requests go straight through.
    case started(latency: Duration)
    /// The adapter reported `error`.
    case failed(error: String, latency: Duration)
    /// No answer within the start timeout `after` of the start called at `since` (it may still
    /// answer).
    case timedOut(since: Duration, after: Duration)
  }

  /// What to do with a new request.
  enum Admission {
    /// Go ahead: the network has started.
    case proceed
    /// Skip it, `not_started`, for this reason.
    case refuse(String)
    /// Wait for the start; `ticket` withdraws the request (``cancel(_:)``). When `callStart`, the
    /// owner must call the adapter's `start` now (the first request of a lazily started network).
    case wait(ticket: Int, callStart: Bool)
  }

  /// The waiters a start outcome releases, and whether they go on (`refusal == nil`) or are refused.
  struct Release {
    var waiters: [Waiter]
    var refusal: String?
  }

  private(set) var phase: Phase
  let network: NetworkID
  let mode: MediatorOptions.NetworkStart
  private var waiting: [(ticket: Int, waiter: Waiter)] = []
  private var nextTicket = 0

  init(network: NetworkID, mode: MediatorOptions.NetworkStart) {
    self.network = network
    self.mode = mode
    phase = mode == .never ? .disabled : .deferred
  }

  /// The requests waiting for the start.
  var waiterCount: Int { waiting.count }

  /// Marks the start as called at `now`; `false` (and no change) when it was called already or the
  /// network is never to be started.
  mutating func beginStart(now: Duration) -> Bool {
    guard phase == .deferred else { return false }
    phase = .starting(since: now)
    return true
  }

  /// Admits a request at `now`; `waiter` is made only when it waits.
  mutating func admit(_ waiter: () -> Waiter, now: Duration) -> Admission {
    switch phase {
    case .started:
      return .proceed
    case .disabled, .failed, .timedOut:
      return .refuse(refusal!)
    case .deferred, .starting:
      let callStart = beginStart(now: now)
      nextTicket += 1
      waiting.append((nextTicket, waiter()))
      return .wait(ticket: nextTicket, callStart: callStart)
    }
  }

  /// Withdraws a waiting request (its own timeout ended, or its load did); `nil` when it was
  /// released already.
  mutating func cancel(_ ticket: Int) -> Waiter? {
    guard let index = waiting.firstIndex(where: { $0.ticket == ticket }) else { return nil }
    return waiting.remove(at: index).waiter
  }

  /// Takes every waiting request out, for a network that is going away (unregistered).
  mutating func removeWaiters() -> [Waiter] {
    defer { waiting.removeAll() }
    return waiting.map(\.waiter)
  }

  /// The adapter answered at `now`. A success opens the gate even after a time-out; a failure after
  /// a time-out or a success changes nothing.
  mutating func completed(_ result: Result<Void, AdapterError>, now: Duration) -> Release {
    let since: Duration
    switch phase {
    case .starting(let start): since = start
    case .timedOut(let start, _):
      guard case .success = result else { return Release(waiters: [], refusal: nil) }
      phase = .started(latency: now - start)
      return releaseAll()
    case .deferred, .disabled, .started, .failed:
      return Release(waiters: [], refusal: nil)
    }
    switch result {
    case .success: phase = .started(latency: now - since)
    case .failure(let error): phase = .failed(error: "\(error)", latency: now - since)
    }
    return releaseAll()
  }

  /// The start timeout `timeout` ended: a start still under way is marked timed out and its
  /// waiters are refused.
  mutating func startTimedOut(after timeout: Duration) -> Release {
    guard case .starting(let since) = phase else { return Release(waiters: [], refusal: nil) }
    phase = .timedOut(since: since, after: timeout)
    return releaseAll()
  }

  private mutating func releaseAll() -> Release {
    defer { waiting.removeAll() }
    return Release(waiters: waiting.map(\.waiter), refusal: refusal)
  }

  /// Why requests are refused now; `nil` when they are not.
  var refusal: String? {
    switch phase {
    case .disabled: "not started: MediatorOptions.networkStarts says .never for '\(network)'"
    case .failed(let error, _): "adapter failed to start: \(error)"
    case .timedOut(_, let after): "adapter start timed out after \(MessageFormat.duration(after))"
    case .deferred, .starting, .started: nil
    }
  }

  /// The start-up as ``Mediator/adapterStatuses`` reports it.
  var status: Mediator.AdapterStatus {
    let (state, description, latency): (Mediator.AdapterStatus.State, String, Duration?) =
      switch phase {
      case .deferred: (.notStarted, "starts on first use", nil)
      case .disabled: (.notStarted, "never started (MediatorOptions.networkStarts)", nil)
      case .starting: (.initializing, "initializing", nil)
      case .started(let latency): (.ready, "ready", latency)
      case .failed(let error, let latency): (.failed, error, latency)
      case .timedOut(_, let after): (.timedOut, "no answer within \(MessageFormat.duration(after))", after)
      }
    return Mediator.AdapterStatus(
      of: network, state: state, description: description, latency: latency, start: mode)
  }
}
