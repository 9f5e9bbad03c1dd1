import Dispatch
import MediationKit
import Testing

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
}
