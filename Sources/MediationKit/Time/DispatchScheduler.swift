import Dispatch
import Foundation

/// A scheduler on wall-clock time: a serial `DispatchQueue` (the main queue in an app).
///
/// Delayed actions wait in the scheduler's own deadline list, and Dispatch is asked for a
/// wake-up only when an action is due sooner than every wake-up already asked for: the engine
/// arms and cancels several timeouts per ad, and each `asyncAfter` would wake Dispatch's timer
/// thread, which costs an app more CPU than the engine's own work.
public final class DispatchScheduler: Scheduler {
  private let queue: DispatchQueue
  private let start = ContinuousClock.now
  private let pending = Locked(PendingActions())

  /// Creates a scheduler that runs its actions serially on `queue`.
  ///
  /// - Parameter queue: A serial queue; pass `.main` to receive events on the main thread.
  public init(queue: DispatchQueue = DispatchQueue(label: "MediationKit.scheduler")) {
    self.queue = queue
  }

  public var now: Duration { ContinuousClock.now - start }

  @discardableResult
  public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Cancellable {
    if delay <= .zero {
      let id = pending.withLock { $0.add(action) }
      queue.async { [self] in
        if let action = pending.withLock({ $0.take(id) }) { action() }
      }
      return Cancellable { [weak self] in self?.pending.withLock { $0.cancel(id) } }
    }
    let now = self.now
    let (id, wake) = pending.withLock { $0.add(action, due: now + delay) }
    if let wake { ask(wakeAt: wake, now: now) }
    return Cancellable { [weak self] in self?.pending.withLock { $0.cancel(id) } }
  }

  /// Asks Dispatch to run the due actions at `wake` (at least that long from `now`).
  private func ask(wakeAt wake: Duration, now: Duration) {
    // Rounded up: a wake-up a nanosecond early would find nothing due and ask again.
    let nanoseconds = Int(min(((wake - now).seconds * 1e9).rounded(.up), Double(Int.max / 2)))
    queue.asyncAfter(deadline: .now() + .nanoseconds(max(nanoseconds, 0))) { [self] in
      runDue(wokenFor: wake)
    }
  }

  /// Runs every delayed action due now, in deadline order, one lock round each (an action may
  /// cancel another that is also due); then asks for the next wake-up if none is outstanding.
  private func runDue(wokenFor wake: Duration) {
    pending.withLock { $0.woke(wake) }
    while true {
      let now = self.now
      switch pending.withLock({ $0.takeDue(now: now) }) {
      case .action(let action): action()
      case .wake(let next): return ask(wakeAt: next, now: now)
      case .none: return
      }
    }
  }
}
