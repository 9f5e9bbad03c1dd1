/// One awaited answer from a zone's events: the bridge between the event hub and an `async`
/// form of ``RewardedAd``. The first of an answering event, `finish` (an immediate refusal) or
/// task cancellation wins; the hub subscription ends with it.
///
/// What the events so far add up to (a show's reward, before its `closed`) is a `Partial` the
/// waiter keeps with the rest of its state, so each event is read, accumulated and, when it is
/// the answer, taken in one lock round.
final class EventWaiter<Partial: Sendable, Value: Sendable>: Sendable {
  private struct State {
    var continuation: CheckedContinuation<Value, any Error>?
    /// The answer that came before the continuation (cancellation before the wait began).
    var early: Result<Value, any Error>?
    var subscription: Cancellable?
    var finished = false
    var partial: Partial

    /// Ends the wait with `result`, unless it has ended already; what is left to do outside
    /// the lock.
    mutating func take(_ result: Result<Value, any Error>) -> Taken? {
      guard !finished else { return nil }
      finished = true
      if continuation == nil { early = result }
      defer {
        continuation = nil
        subscription = nil
      }
      return Taken(continuation: continuation, subscription: subscription, result: result)
    }
  }

  private let state: Locked<State>

  /// A waiter whose events start accumulating from `partial`.
  init(partial: Partial) {
    state = Locked(State(partial: partial))
  }

  /// Starts waiting; `false` (and `continuation` resumed) when the answer is already known.
  func begin(_ continuation: CheckedContinuation<Value, any Error>) -> Bool {
    let early = state.withLock { state -> Result<Value, any Error>? in
      if state.early == nil { state.continuation = continuation }
      return state.early
    }
    guard let early else { return true }
    continuation.resume(with: early)
    return false
  }

  /// Keeps the hub subscription until the answer comes; `false` (and the subscription ended)
  /// when the answer already came — a cancellation — so the caller starts nothing.
  func hold(_ subscription: Cancellable) -> Bool {
    let finished = state.withLock { state -> Bool in
      if !state.finished { state.subscription = subscription }
      return state.finished
    }
    if finished { subscription.cancel() }
    return !finished
  }

  /// Hands an event to `answer`, under the lock with the partial state: the wait ends with the
  /// answer it gives, if any. Ignored once the wait has ended. `answer` is the facade's own pure
  /// reading of an event; no app or adapter code runs under the lock.
  func offer(_ answer: (inout Partial) -> Result<Value, MediationError>?) {
    let taken = state.withLock { state -> Taken? in
      guard !state.finished, let result = answer(&state.partial) else { return nil }
      return state.take(result.mapError { $0 })
    }
    taken?.run()
  }

  /// Answers the wait; later answers are ignored.
  func finish(_ result: Result<Value, any Error>) {
    state.withLock { $0.take(result) }?.run()
  }

  /// What ending the wait leaves to do outside the lock: end the subscription, then resume the
  /// continuation (none when the answer came before the wait began; `begin` resumes it).
  private struct Taken {
    let continuation: CheckedContinuation<Value, any Error>?
    let subscription: Cancellable?
    let result: Result<Value, any Error>

    func run() {
      subscription?.cancel()
      continuation?.resume(with: result)
    }
  }
}
