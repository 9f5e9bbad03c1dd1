import Dispatch
import Foundation

/// Hands values to main-actor code in the order they were posted, from any thread: at once when
/// posted on the main thread (a mediator on ``DispatchScheduler/main``), otherwise through the
/// main queue — the facade's hop to the main actor for ``RewardedAd/Delegate``.
final class MainActorMailbox<Value: Sendable>: Sendable {
  private struct State {
    var pending: [Value] = []
    var drainScheduled = false
  }

  private let state = Locked(State())
  private let deliver: @MainActor @Sendable (Value) -> Void

  init(deliver: @escaping @MainActor @Sendable (Value) -> Void) {
    self.deliver = deliver
  }

  /// Delivers `value` on the main actor after every value posted before it.
  func post(_ value: Value) {
    if Thread.isMainThread {
      MainActor.assumeIsolated {
        drain()  // values posted earlier from other threads go first
        deliver(value)
      }
      return
    }
    let scheduleDrain = state.withLock { state -> Bool in
      state.pending.append(value)
      defer { state.drainScheduled = true }
      return !state.drainScheduled
    }
    if scheduleDrain {
      DispatchQueue.main.async { MainActor.assumeIsolated { self.drain() } }
    }
  }

  @MainActor private func drain() {
    while let next = state.withLock({ state -> Value? in
      guard !state.pending.isEmpty else {
        state.drainScheduled = false
        return nil
      }
      return state.pending.removeFirst()
    }) {
      deliver(next)
    }
  }
}
