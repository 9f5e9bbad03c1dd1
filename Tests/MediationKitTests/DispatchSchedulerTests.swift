import Dispatch
import Testing

@testable import MediationKit

/// `DispatchScheduler` on a real serial queue. No sleeps: the queue is held by a first action
/// until the test has scheduled and cancelled, then drained with `sync`.
@Suite("DispatchScheduler")
struct DispatchSchedulerTests {
  @Test func aCancelledActionNeverRunsAndTheOthersRunInOrder() {
    let queue = DispatchQueue(label: "DispatchSchedulerTests")
    let scheduler = DispatchScheduler(queue: queue)
    let held = DispatchSemaphore(value: 0)
    queue.async { held.wait() }
    let ran = Locked<[String]>([])
    scheduler.schedule(after: .zero) { ran.withLock { $0.append("first") } }
    let cancelled = scheduler.schedule(after: .zero) { ran.withLock { $0.append("cancelled") } }
    scheduler.execute { ran.withLock { $0.append("last") } }
    cancelled.cancel()
    cancelled.cancel()  // idempotent
    held.signal()
    queue.sync {}
    #expect(ran.get() == ["first", "last"])
  }

  @Test func cancellingAfterTheActionRanDoesNothing() {
    let queue = DispatchQueue(label: "DispatchSchedulerTests.after")
    let scheduler = DispatchScheduler(queue: queue)
    let ran = Locked(0)
    let handle = scheduler.schedule(after: .zero) { _ = ran.increment() }
    queue.sync {}
    handle.cancel()
    queue.sync {}
    #expect(ran.get() == 1)
  }

  /// The wake-up path on a real queue. Deadlines are absolute, so actions given the same delay
  /// one after another are due in that order; delays of a nanosecond are due by the time the
  /// held queue is free, so nothing waits for real.
  @Test func delayedActionsRunInDeadlineOrderAndACancelledOneNever() {
    let queue = DispatchQueue(label: "DispatchSchedulerTests.delayed")
    let scheduler = DispatchScheduler(queue: queue)
    let held = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    queue.async { held.wait() }
    let ran = Locked<[String]>([])
    scheduler.schedule(after: .nanoseconds(1)) { ran.withLock { $0.append("first") } }
    let cancelled = scheduler.schedule(after: .nanoseconds(1)) { ran.withLock { $0.append("cancelled") } }
    scheduler.schedule(after: .nanoseconds(1)) { ran.withLock { $0.append("second") } }
    scheduler.schedule(after: .nanoseconds(1)) {
      ran.withLock { $0.append("third") }
      done.signal()
    }
    cancelled.cancel()
    held.signal()
    #expect(done.wait(timeout: .now() + .seconds(60)) == .success)
    queue.sync {}
    #expect(ran.get() == ["first", "second", "third"])
  }
}

/// The deadline list a `DispatchScheduler` keeps, as a pure value: which wake-ups it asks of
/// Dispatch, and which action a wake-up runs.
@Suite("DispatchScheduler's pending actions")
struct PendingActionsTests {
  /// Runs what `next` holds and returns the label it recorded, or describes what else it is.
  private func outcome(_ next: PendingActions.Next, _ ran: Locked<[String]>) -> String {
    switch next {
    case .action(let action):
      action()
      return ran.withLock { $0.removeLast() }
    case .wake(let at): return "wake \(at)"
    case .none: return "none"
    }
  }

  private func labelled(_ label: String, _ ran: Locked<[String]>) -> @Sendable () -> Void {
    { ran.withLock { $0.append(label) } }
  }

  @Test func aWakeUpIsAskedOnlyForADeadlineSoonerThanEveryOutstandingOne() {
    var pending = PendingActions()
    let ran = Locked<[String]>([])
    #expect(pending.add(labelled("a", ran), due: .seconds(10)).wake == .seconds(10))
    #expect(pending.add(labelled("b", ran), due: .seconds(20)).wake == nil)
    #expect(pending.add(labelled("c", ran), due: .seconds(10)).wake == nil)
    #expect(pending.add(labelled("d", ran), due: .seconds(5)).wake == .seconds(5))
  }

  @Test func dueActionsRunInDeadlineOrderThenSchedulingOrder() {
    var pending = PendingActions()
    let ran = Locked<[String]>([])
    _ = pending.add(labelled("late", ran), due: .seconds(3))
    _ = pending.add(labelled("first", ran), due: .seconds(1))
    _ = pending.add(labelled("second", ran), due: .seconds(1))
    pending.woke(.seconds(1))
    pending.woke(.seconds(3))
    #expect(outcome(pending.takeDue(now: .seconds(2)), ran) == "first")
    #expect(outcome(pending.takeDue(now: .seconds(2)), ran) == "second")
    // Nothing else is due and no wake-up is outstanding: ask for one at the next deadline.
    #expect(outcome(pending.takeDue(now: .seconds(2)), ran) == "wake 3.0 seconds")
    #expect(outcome(pending.takeDue(now: .seconds(2)), ran) == "none")
    #expect(outcome(pending.takeDue(now: .seconds(3)), ran) == "late")
    #expect(outcome(pending.takeDue(now: .seconds(3)), ran) == "none")
  }

  @Test func aCancelledActionNeverRunsAndItsDeadlineAsksForNoWakeUp() {
    var pending = PendingActions()
    let ran = Locked<[String]>([])
    let (cancelled, _) = pending.add(labelled("cancelled", ran), due: .seconds(1))
    _ = pending.add(labelled("kept", ran), due: .seconds(2))
    pending.cancel(cancelled)
    pending.cancel(cancelled)  // idempotent
    // The wake-up asked for the cancelled action fires and finds nothing due yet.
    pending.woke(.seconds(1))
    #expect(outcome(pending.takeDue(now: .seconds(1)), ran) == "wake 2.0 seconds")
    #expect(outcome(pending.takeDue(now: .seconds(2)), ran) == "kept")
    #expect(ran.get().isEmpty)
  }

  @Test func aWakeUpThatFiresEarlyAsksAgainForTheSameDeadline() {
    var pending = PendingActions()
    let ran = Locked<[String]>([])
    _ = pending.add(labelled("a", ran), due: .milliseconds(1000))
    pending.woke(.milliseconds(1000))
    #expect(outcome(pending.takeDue(now: .milliseconds(999)), ran) == "wake 1.0 seconds")
    pending.woke(.milliseconds(1000))
    #expect(outcome(pending.takeDue(now: .milliseconds(1000)), ran) == "a")
  }

  @Test func anImmediateActionRunsOnceUnlessCancelled() {
    var pending = PendingActions()
    let ran = Locked<[String]>([])
    let kept = pending.add(labelled("kept", ran))
    let cancelled = pending.add(labelled("cancelled", ran))
    pending.cancel(cancelled)
    #expect(pending.take(cancelled) == nil)
    pending.take(kept)?()
    #expect(pending.take(kept) == nil)
    #expect(ran.get() == ["kept"])
  }
}
