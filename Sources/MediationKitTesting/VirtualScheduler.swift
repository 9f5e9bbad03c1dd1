import Foundation
import MediationKit

/// A deterministic scheduler on virtual time, for tests and the simulator.
///
/// Time never moves by itself: ``run()``, ``advance(by:)`` and ``runUntilIdle()`` execute due
/// actions in (time, submission order) and jump the clock straight to the next timer only when
/// nothing is runnable. All state sits under one lock; actions run outside it, on the thread that
/// drives the scheduler, and may schedule more work.
public final class VirtualScheduler: VirtualTimeScheduler {
  /// One scheduled action, or the action of a reusable timer; a one-shot slot is also its own
  /// cancellation handle.
  private final class Slot: CancellationTarget {
    let action: @Sendable () -> Void
    /// 0 pending, 1 taken to run, 2 cancelled; one-shot slots only.
    let status = AtomicInt(0)
    let pending: PendingCounter
    /// A timer's slot, armed and disarmed under the scheduler's lock, rather than a one-shot one.
    let isTimer: Bool
    /// Where the slot sits in the heap, -1 when it is not in it. Written only under the scheduler's
    /// lock (read outside it only by a timer's `disarm`, to skip the lock when not armed); an
    /// atomic (relaxed: a plain load or store) because the class is shared.
    let heapIndex = AtomicInt(-1)

    init(_ action: @escaping @Sendable () -> Void, pending: PendingCounter, isTimer: Bool = false) {
      self.action = action
      self.pending = pending
      self.isTimer = isTimer
    }

    func cancel() {
      if status.compareExchange(expected: 0, desired: 2, ordering: .relaxed).exchanged {
        pending.count.subtract(1, ordering: .relaxed)
      }
    }

    var isCancelled: Bool { status.load(ordering: .relaxed) == 2 }

    /// Claims the slot for running; `false` when it was cancelled.
    func claim() -> Bool {
      status.compareExchange(expected: 0, desired: 1, ordering: .relaxed).exchanged
    }
  }

  /// A heap entry. The slot is held unmanaged (retained once on insert, released once on removal)
  /// so that sifting the heap moves plain values instead of retaining and releasing references.
  private struct Entry: MinHeapElement {
    /// Due time in nanoseconds: plain integers compare faster than `Duration`.
    let time: Int64
    let sequence: UInt64
    let slot: Unmanaged<Slot>

    static func == (lhs: Entry, rhs: Entry) -> Bool { lhs.sequence == rhs.sequence }
    static func < (lhs: Entry, rhs: Entry) -> Bool {
      lhs.time != rhs.time ? lhs.time < rhs.time : lhs.sequence < rhs.sequence
    }

    func placed(at index: Int) {
      slot._withUnsafeGuaranteedRef { $0.heapIndex.store(index, ordering: .relaxed) }
    }
  }

  /// A reusable timer: one slot, put into the heap on each arming and taken out on disarming, so
  /// arming allocates nothing and a disarmed timer leaves nothing behind in the heap.
  private final class Timer: SchedulerTimer {
    private let slot: Slot
    private let state: Locked<State>

    init(slot: Slot, state: Locked<State>) {
      self.slot = slot
      self.state = state
    }

    deinit { disarm() }

    func arm(after delay: Duration) {
      let delayNanoseconds = delay > .zero ? VirtualScheduler.nanoseconds(delay) : 0
      state.withLock { state in
        if !takeOut(&state) { slot.pending.count.add(1, ordering: .relaxed) }
        let time = state.nowNanoseconds &+ delayNanoseconds
        state.heap.insert(Entry(time: time, sequence: state.nextSequence, slot: .passRetained(slot)))
        state.nextSequence += 1
      }
    }

    func disarm() {
      // Not armed: nothing to take out, and no lock round. An arming on another thread that this
      // read misses is concurrent with the disarm, so it may as well come after it.
      guard slot.heapIndex.load(ordering: .relaxed) >= 0 else { return }
      state.withLock { state in
        if takeOut(&state) { slot.pending.count.subtract(1, ordering: .relaxed) }
      }
    }

    /// Removes the slot from the heap; whether it was there.
    private func takeOut(_ state: inout State) -> Bool {
      let index = slot.heapIndex.load(ordering: .relaxed)
      guard index >= 0 else { return false }
      state.heap.remove(at: index).slot.release()
      slot.heapIndex.store(-1, ordering: .relaxed)
      return true
    }
  }

  /// The number of scheduled actions neither run nor cancelled, shared with the slots.
  private final class PendingCounter: Sendable {
    let count = AtomicInt(0)
  }

  private struct State {
    var now: Duration = .zero
    /// ``now`` in nanoseconds, for cheap arithmetic.
    var nowNanoseconds: Int64 = 0
    var nextSequence: UInt64 = 0
    var heap = MinHeap<Entry>()
  }

  private let state = Locked(State())
  /// The clock in nanoseconds, for reading ``now`` without the lock: written under the lock with
  /// every change of `State.now`, so it always holds a time the clock stood at. `Int64.min` while
  /// the clock stands at a time that is not a whole number of nanoseconds (only `advance(by:)`
  /// can set one), when ``now`` reads the exact time under the lock instead.
  /// (An `Int`, 64 bits on every platform the package supports.)
  private let wholeNanoseconds = AtomicInt(0)

  deinit {
    // Release the slots still in the heap, outside the lock (see `runNext`), each marked out of
    // the heap first, so that a timer whose owner goes with a slot does not look for it.
    var left: [Unmanaged<Slot>] = []
    state.withLock { state in
      state.heap.removeAll(
        where: { _ in true },
        removed: { entry in
          entry.slot._withUnsafeGuaranteedRef { $0.heapIndex.store(-1, ordering: .relaxed) }
          left.append(entry.slot)
        })
    }
    for slot in left { slot.release() }
  }

  private let pending = PendingCounter()
  /// The thread running an action right now (0 when none).
  private let executingThread = AtomicInt(0)

  /// Whether the caller is inside an action this scheduler is running.
  public var isCurrentExecutor: Bool {
    let thread = executingThread.load(ordering: .relaxed)
    return thread != 0 && thread == Self.currentThread
  }

  private static var currentThread: Int { Int(bitPattern: pthread_self()) }

  /// Creates a scheduler whose clock starts at zero.
  public init() {}

  public var now: Duration {
    let nanoseconds = Int64(wholeNanoseconds.load(ordering: .acquiring))
    if nanoseconds != Self.notWhole { return Self.duration(nanoseconds: nanoseconds) }
    return state.withLock { $0.now }
  }

  /// The value of `wholeNanoseconds` while the clock is not at a whole number of nanoseconds.
  private static var notWhole: Int64 { .min }

  /// The number of actions waiting to run (cancelled ones excluded).
  public var pendingCount: Int { pending.count.load(ordering: .relaxed) }

  @discardableResult
  public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Cancellable {
    let slot = Slot(action, pending: pending)
    pending.count.add(1, ordering: .relaxed)
    let delayNanoseconds = delay > .zero ? Self.nanoseconds(delay) : 0
    let live = pending.count.load(ordering: .relaxed)
    // Optional, so that the usual scheduling, which purges nothing, has no array to release.
    var purged: [Unmanaged<Slot>]?
    state.withLock { state in
      // Cancelled timers (expiry, timeouts) would otherwise sit in the heap until their time:
      // drop them once they outnumber the live ones.
      if state.heap.count > 64 && state.heap.count > 2 * live {
        var removed: [Unmanaged<Slot>] = []
        state.heap.removeAll(
          where: { $0.slot.takeUnretainedValue().isCancelled }, removed: { removed.append($0.slot) })
        purged = removed
      }
      let time = state.nowNanoseconds &+ delayNanoseconds
      state.heap.insert(Entry(time: time, sequence: state.nextSequence, slot: .passRetained(slot)))
      state.nextSequence += 1
    }
    // Outside the lock (see `runNext`).
    purged?.forEach { $0.release() }
    return Cancellable(slot)
  }

  /// A timer whose armings and disarmings allocate nothing and leave nothing in the queue.
  public func makeTimer(_ action: @escaping @Sendable () -> Void) -> any SchedulerTimer {
    Timer(slot: Slot(action, pending: pending, isTimer: true), state: state)
  }

  /// Runs every action due at or before `now + duration`, then sets the clock to that time.
  public func advance(by duration: Duration) {
    let deadline = now + max(duration, .zero)
    while runNext(notAfter: deadline) {}
    state.withLock { state in
      if deadline > state.now {
        state.now = deadline
        state.nowNanoseconds = Self.nanoseconds(deadline)
        let exact = Self.duration(nanoseconds: state.nowNanoseconds) == deadline
        wholeNanoseconds.store(Int(exact ? state.nowNanoseconds : Self.notWhole), ordering: .releasing)
      }
    }
  }

  /// Runs actions, jumping the clock from timer to timer, until none are left.
  public func run() {
    while runNext(notAfter: nil) {}
  }

  /// Runs actions until none are left or the clock would pass `deadline`.
  ///
  /// - Returns: `true` when the queue drained, `false` when work remains after `deadline`.
  @discardableResult
  public func run(until deadline: Duration) -> Bool {
    while runNext(notAfter: deadline) {}
    return pendingCount == 0
  }

  /// Runs every action already due at the current time, without moving the clock.
  public func runUntilIdle() {
    let current = now
    while runNext(notAfter: current) {}
  }

  /// `duration` in whole nanoseconds, rounded toward zero (wrapping past `Int64`'s range).
  ///
  /// On Linux from the 128-bit attosecond count, as `Duration.components` would divide and multiply
  /// in software; elsewhere `Int128` and `Duration.attoseconds` need iOS 18 / macOS 15, so from
  /// the components (``nanosecondsFromComponents(_:)``, the same result: tests compare the two).
  package static func nanoseconds(_ duration: Duration) -> Int64 {
    #if os(Linux)
      Int64(truncatingIfNeeded: duration.attoseconds / 1_000_000_000)
    #else
      nanosecondsFromComponents(duration)
    #endif
  }

  /// `duration` in whole nanoseconds, rounded toward zero, from `Duration.components` (whose two
  /// parts share the duration's sign, so truncating the attoseconds truncates the whole).
  package static func nanosecondsFromComponents(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
  }

  /// `nanoseconds` as a duration; exact, as `Int64.max` nanoseconds fit the duration's range. On
  /// Linux one 128-bit multiplication (fewer instructions than `Duration.nanoseconds`'s checks).
  package static func duration(nanoseconds: Int64) -> Duration {
    #if os(Linux)
      Duration(attoseconds: Int128(nanoseconds) &* 1_000_000_000)
    #else
      .nanoseconds(nanoseconds)
    #endif
  }

  /// Pops and runs the earliest action due at or before `deadline` (any, when `nil`).
  ///
  /// A slot is never released under the lock: releasing it can release the last reference to
  /// what its action captured (a zone the app dropped), whose timers then disarm, taking the
  /// lock again.
  private func runNext(notAfter deadline: Duration?) -> Bool {
    let limit = deadline.map(Self.nanoseconds) ?? .max
    while true {
      let popped = state.withLock { state -> (slot: Slot, runs: Bool)? in
        guard let top = state.heap.peek(), top.time <= limit else { return nil }
        state.heap.removeFirst()
        let slot = top.slot.takeRetainedValue()
        slot.heapIndex.store(-1, ordering: .relaxed)
        guard slot.isTimer || slot.claim() else { return (slot, false) }
        if top.time > state.nowNanoseconds {
          state.nowNanoseconds = top.time
          state.now = Self.duration(nanoseconds: top.time)
          wholeNanoseconds.store(Int(top.time), ordering: .releasing)
        }
        return (slot, true)
      }
      guard let popped else { return false }
      // A cancelled slot is released here, outside the lock, before the next pop.
      guard popped.runs else { continue }
      pending.count.subtract(1, ordering: .relaxed)
      let outer = executingThread.exchange(Self.currentThread, ordering: .relaxed)
      popped.slot.action()
      executingThread.store(outer, ordering: .relaxed)
      return true
    }
  }
}
