/// One awaited answer from a zone's events: the bridge between the event hub and an `async`
/// form of ``RewardedAd``. The first of `finish` (an event, an immediate refusal) or task
/// cancellation wins; the hub subscription ends with it.
final class EventWaiter<Value: Sendable>: Sendable {
  private struct State {
    var continuation: CheckedContinuation<Value, any Error>?
    /// The answer that came before the continuation (cancellation before the wait began).
    var early: Result<Value, any Error>?
    var subscription: Cancellable?
    var finished = false
  }

  private let state = Locked(State())

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

  /// Answers the wait; later answers are ignored.
  func finish(_ result: Result<Value, any Error>) {
    let taken = state.withLock { state -> (CheckedContinuation<Value, any Error>?, Cancellable?)? in
      guard !state.finished else { return nil }
      state.finished = true
      if state.continuation == nil { state.early = result }
      defer {
        state.continuation = nil
        state.subscription = nil
      }
      return (state.continuation, state.subscription)
    }
    guard let (continuation, subscription) = taken else { return }
    subscription?.cancel()
    continuation?.resume(with: result)
  }
}
