import Dispatch
import MediationKit

/// A way a network SDK misbehaves, injected between an adapter and the core by
/// ``FaultInjectingAdapter``.
///
/// Each case is one of the faults the core must survive (the fault list of MediationKit's "The
/// reward contract" article): it never hangs a load, never double-grants and never loses an earned
/// reward, whatever the SDK does.
public enum Fault: Sendable, Equatable, CustomStringConvertible {
  /// No fault: everything passes through unchanged.
  case none
  /// Start-up never answers: the SDK is started but `start`'s completion is never called.
  case startNeverAnswers
  /// Loads never answer: the completion is dropped (a loaded ad is discarded unseen).
  case loadNeverAnswers
  /// The SDK reports an error: every load result is replaced with this failure.
  case loadFails(AdapterError)
  /// Every callback comes twice: start, bid and load completions, and each show signal.
  case duplicateCallbacks
  /// Every callback is delivered from another thread, a real `DispatchQueue`.
  case callbacksFromAnotherThread
  /// Shows never answer: every signal of every show is dropped.
  case showNeverAnswers
  /// The ad is dismissed without ever being displayed: `displayed` is dropped.
  case dismissalWithoutDisplay
  /// The display fails: shows are not passed to the SDK; they report `showFailed` with this error.
  case displayFails(AdapterError)
  /// The reward comes after the dismissal: `rewarded` is held back and delivered `delay` after
  /// the first `dismissed` (or `showFailed`) of the show.
  case rewardAfterDismissal(delay: Duration)

  /// One of every fault, for table-driven tests, with the reward delayed once inside and once
  /// beyond the zone's grace window.
  ///
  /// - Parameter rewardGrace: The zone's `rewardGraceSeconds`, as a duration.
  /// - Returns: Every fault except ``none``.
  public static func catalogue(rewardGrace: Duration) -> [Fault] {
    [
      .startNeverAnswers, .loadNeverAnswers,
      .loadFails(
        AdapterError(.networkError, vendorCode: -1009, message: "injected: the SDK reported an error")),
      .duplicateCallbacks, .callbacksFromAnotherThread, .showNeverAnswers, .dismissalWithoutDisplay,
      .displayFails(
        AdapterError(.internalError, vendorCode: -1, message: "injected: the SDK failed to display")),
      .rewardAfterDismissal(delay: rewardGrace / 2), .rewardAfterDismissal(delay: rewardGrace * 2),
    ]
  }

  public var description: String {
    switch self {
    case .none: "none"
    case .startNeverAnswers: "start never answers"
    case .loadNeverAnswers: "load never answers"
    case .loadFails(let error): "load fails (\(error.kind.rawValue))"
    case .duplicateCallbacks: "duplicate callbacks"
    case .callbacksFromAnotherThread: "callbacks from another thread"
    case .showNeverAnswers: "show never answers"
    case .dismissalWithoutDisplay: "dismissal without display"
    case .displayFails(let error): "display fails (\(error.kind.rawValue))"
    case .rewardAfterDismissal(let delay): "reward \(delay) after dismissal"
    }
  }
}

/// Builds fault-injecting registrations.
public enum FaultInjection {
  /// A registration under the same network id and info as `registration` whose adapters are
  /// ``FaultInjectingAdapter``s wrapping the ones `registration` makes.
  ///
  /// ```swift
  /// let registry = try AdapterRegistry([
  ///   FaultInjection.registration(wrapping: MyNetwork.registration(), fault: .duplicateCallbacks)
  /// ])
  /// let made = MadeAdapters()  // MediationKitSimulation: the adapters a mediator makes, kept
  /// let mediator = try Mediator(config: config, registry: made.recording(registry), scheduler: VirtualScheduler())
  /// let adapter = made["my-network"] as? FaultInjectingAdapter
  /// ```
  /// - Parameters:
  ///   - registration: The adapter to perturb.
  ///   - fault: What to inject (the adapter's ``FaultInjectingAdapter/fault`` can change later).
  public static func registration(wrapping registration: AdapterRegistry.Registration, fault: Fault)
    -> AdapterRegistry.Registration
  {
    AdapterRegistry.Registration(info: registration.info) { environment in
      FaultInjectingAdapter(
        wrapping: registration.makeAdapter(environment), fault: fault, scheduler: environment.scheduler)
    }
  }
}

/// A ``RewardedAdapter`` that wraps any other adapter and perturbs what flows between it and the
/// core, per a ``Fault``: it drops, duplicates, replaces, reorders, delays or re-threads the
/// adapter's completions and show signals.
///
/// The wrapped adapter and its SDK still do their work (started, loading, showing); only what
/// reaches the core changes. The fault is read at each call, so a test can ``fault`` `= .none`
/// to heal the network and check that the next load works.
///
/// With ``Fault/callbacksFromAnotherThread`` each callback is handed to the core on a private
/// serial `DispatchQueue`; the calling thread waits (up to ``hopTimeout``, a safety net) until the
/// core has received it. The core's scheduler never waits, and on a ``VirtualScheduler`` the
/// clock cannot move past a callback still in flight, so runs stay deterministic.
public final class FaultInjectingAdapter: RewardedAdapter {
  private struct State {
    var fault: Fault
    var received: [AdapterSignal] = []
    var delivered: [TimedSignal] = []
    var droppedCallbacks = 0
  }

  /// A show signal as the core received it, with the scheduler's time.
  public struct TimedSignal: Sendable, Equatable {
    /// When it was handed to the core.
    public var time: Duration
    /// The signal.
    public var signal: AdapterSignal
  }

  /// The adapter being perturbed.
  public let wrapped: any RewardedAdapter
  /// How long a callback hopping threads may take before the caller stops waiting for it.
  public let hopTimeout: Duration
  private let scheduler: any Scheduler
  private let state: Locked<State>
  private let hop = ThreadHop(label: "MediationKitTesting.FaultInjectingAdapter.hop")

  /// Wraps `adapter`.
  ///
  /// - Parameters:
  ///   - adapter: The adapter to perturb.
  ///   - fault: What to inject.
  ///   - scheduler: The mediator's scheduler (the adapter environment's), for delayed rewards.
  ///   - hopTimeout: With ``Fault/callbacksFromAnotherThread``, the longest the caller waits for
  ///     a callback to reach the core before it moves on anyway.
  public init(
    wrapping adapter: any RewardedAdapter, fault: Fault, scheduler: any Scheduler,
    hopTimeout: Duration = .seconds(5)
  ) {
    self.wrapped = adapter
    self.scheduler = scheduler
    self.hopTimeout = hopTimeout
    self.state = Locked(State(fault: fault))
  }

  /// The wrapped adapter's info, unchanged (same network id).
  public var info: AdapterInfo { wrapped.info }

  /// The fault injected from now on; set ``Fault/none`` to heal the network.
  public var fault: Fault {
    get { state.withLock { $0.fault } }
    set { state.withLock { $0.fault = newValue } }
  }

  /// Every show signal the wrapped adapter sent, in order, before perturbation.
  public var receivedSignals: [AdapterSignal] { state.withLock { $0.received } }

  /// Every show signal handed to the core, in order, with when it was handed over.
  public var deliveredSignals: [TimedSignal] { state.withLock { $0.delivered } }

  /// How many completions and signals were dropped.
  public var droppedCallbacks: Int { state.withLock { $0.droppedCallbacks } }

  /// Forgets the recorded signals and drop count.
  public func resetTrace() {
    state.withLock { state in
      state.received.removeAll()
      state.delivered.removeAll()
      state.droppedCallbacks = 0
    }
  }

  public func start(
    _ request: AdapterStartRequest, completion: @escaping @Sendable (Result<Void, AdapterError>) -> Void
  ) {
    let fault = self.fault
    wrapped.start(request) { [self] result in
      if fault == .startNeverAnswers {
        noteDropped()
        return
      }
      forward(fault) { completion(result) }
    }
  }

  /// Privacy changes are not perturbed: they reach the wrapped adapter as they come.
  public func privacyDidChange(_ privacy: PrivacySettings) { wrapped.privacyDidChange(privacy) }

  public func bid(
    _ request: AdapterLoadRequest, completion: @escaping @Sendable (Result<AdapterBid, AdapterError>) -> Void
  ) -> Cancellable {
    let fault = self.fault
    return wrapped.bid(request) { [self] result in forward(fault) { completion(result) } }
  }

  public func load(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void
  ) -> Cancellable {
    let fault = self.fault
    return wrapped.load(request) { [self] result in
      switch fault {
      case .loadNeverAnswers:
        if case .success(let loaded) = result { loaded.ad.discard() }
        noteDropped()
      case .loadFails(let error):
        if case .success(let loaded) = result { loaded.ad.discard() }
        forward(fault) { completion(.failure(error)) }
      default:
        let result = result.map { loaded in
          AdapterLoadedAd(
            ad: FaultInjectingAd(loaded.ad, adapter: self), ecpm: loaded.ecpm, lifetime: loaded.lifetime)
        }
        forward(fault) { completion(result) }
      }
    }
  }

  // MARK: Plumbing for FaultInjectingAd

  /// Runs `deliver` as `fault` says: once, twice, or from the hop queue.
  fileprivate func forward(_ fault: Fault, _ deliver: @escaping @Sendable () -> Void) {
    switch fault {
    case .duplicateCallbacks:
      deliver()
      deliver()
    case .callbacksFromAnotherThread:
      hop.run(deliver, timeout: hopTimeout)
    default:
      deliver()
    }
  }

  fileprivate func noteReceived(_ signal: AdapterSignal) {
    state.withLock { $0.received.append(signal) }
  }

  fileprivate func noteDropped() { state.withLock { $0.droppedCallbacks += 1 } }

  /// Hands `signal` to the core through `sink`, as `fault` says.
  fileprivate func send(_ signal: AdapterSignal, to sink: AdapterSignal.Sink, fault: Fault) {
    forward(fault) { [self] in
      state.withLock { $0.delivered.append(TimedSignal(time: scheduler.now, signal: signal)) }
      sink.send(signal)
    }
  }

  /// Sends `signal` after `delay` on the scheduler.
  fileprivate func send(_ signal: AdapterSignal, to sink: AdapterSignal.Sink, after delay: Duration) {
    scheduler.schedule(after: delay) { [self] in send(signal, to: sink, fault: .none) }
  }

  fileprivate var now: Duration { scheduler.now }
}

/// The ad a ``FaultInjectingAdapter`` hands the core: perturbs its show's signals.
private final class FaultInjectingAd: AdapterAd {
  /// Per-show state of ``Fault/rewardAfterDismissal(delay:)``.
  private struct Reorder {
    var held: [AdapterSignal] = []
    var dismissedAt: Duration?
  }

  private let inner: any AdapterAd
  private let adapter: FaultInjectingAdapter
  private let reorder = Locked(Reorder())

  init(_ inner: any AdapterAd, adapter: FaultInjectingAdapter) {
    self.inner = inner
    self.adapter = adapter
  }

  func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {
    let fault = adapter.fault
    if case .displayFails(let error) = fault {
      adapter.send(.showFailed(error), to: signals, fault: fault)
      return
    }
    inner.show(
      request, from: presenter,
      signals: AdapterSignal.Sink { [self] signal in
        adapter.noteReceived(signal)
        perturb(signal, fault: fault, sink: signals)
      })
  }

  func discard() { inner.discard() }

  private func perturb(_ signal: AdapterSignal, fault: Fault, sink: AdapterSignal.Sink) {
    switch (fault, signal) {
    case (.showNeverAnswers, _), (.dismissalWithoutDisplay, .displayed):
      adapter.noteDropped()
    case (.rewardAfterDismissal(let delay), _):
      reorderReward(signal, delay: delay, sink: sink)
    default:
      adapter.send(signal, to: sink, fault: fault)
    }
  }

  /// Holds rewards until the first dismissal, then delivers them `delay` after it.
  private func reorderReward(_ signal: AdapterSignal, delay: Duration, sink: AdapterSignal.Sink) {
    let now = adapter.now
    enum Step {
      case hold
      case sendLater(Duration)
      case dismiss(flush: [AdapterSignal])
      case pass
    }
    let step = reorder.withLock { state -> Step in
      switch signal {
      case .rewarded:
        guard let dismissedAt = state.dismissedAt else {
          state.held.append(signal)
          return .hold
        }
        return .sendLater(max(.zero, dismissedAt + delay - now))
      case .dismissed, .showFailed:
        guard state.dismissedAt == nil else { return .pass }
        state.dismissedAt = now
        defer { state.held.removeAll() }
        return .dismiss(flush: state.held)
      case .displayed, .clicked, .revenuePaid:
        return .pass
      }
    }
    switch step {
    case .hold: break
    case .sendLater(let wait): adapter.send(signal, to: sink, after: wait)
    case .pass: adapter.send(signal, to: sink, fault: .none)
    case .dismiss(let held):
      adapter.send(signal, to: sink, fault: .none)
      for reward in held { adapter.send(reward, to: sink, after: delay) }
    }
  }
}

/// Runs closures on a private serial queue and waits, with a timeout, until each has run.
private final class ThreadHop: Sendable {
  private let queue: DispatchQueue
  private let key = DispatchSpecificKey<Bool>()

  init(label: String) {
    queue = DispatchQueue(label: label)
    queue.setSpecific(key: key, value: true)
  }

  /// Runs `body` on the queue; returns once it ran or `timeout` passed. Already on the queue (a
  /// callback made from inside another hopped callback), runs it at once.
  func run(_ body: @escaping @Sendable () -> Void, timeout: Duration) {
    if DispatchQueue.getSpecific(key: key) == true {
      body()
      return
    }
    let done = DispatchSemaphore(value: 0)
    queue.async {
      body()
      done.signal()
    }
    let nanoseconds = Int(min(max(timeout.seconds, 0), 3600) * 1e9)
    _ = done.wait(timeout: .now() + .nanoseconds(nanoseconds))
  }
}
