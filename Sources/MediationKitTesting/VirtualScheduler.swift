import Foundation
import MediationKit

/// A deterministic scheduler on virtual time, for tests and the simulator.
///
/// Time never moves by itself: ``run()``, ``advance(by:)`` and ``runUntilIdle()`` execute due
/// actions in (time, submission order) and jump the clock straight to the next timer only when
/// nothing is runnable. All state sits under one lock; actions run outside it, on the thread that
/// drives the scheduler, and may schedule more work.
public final class VirtualScheduler: VirtualTimeScheduler {
  /// One scheduled action.
  private final class Slot: Sendable {
    enum Status { case pending, running, cancelled }

    let action: @Sendable () -> Void
    private let status = Locked(Status.pending)
    /// The scheduler's count of actions neither run nor cancelled.
    private let pending: Locked<Int>

    init(_ action: @escaping @Sendable () -> Void, pending: Locked<Int>) {
      self.action = action
      self.pending = pending
    }

    func cancel() {
      let cancelled = status.withLock { status -> Bool in
        guard status == .pending else { return false }
        status = .cancelled
        return true
      }
      if cancelled { pending.withLock { $0 -= 1 } }
    }

    var isCancelled: Bool { status.withLock { $0 == .cancelled } }

    /// Claims the slot for running; `false` when it was cancelled.
    func claim() -> Bool {
      status.withLock { status in
        guard status == .pending else { return false }
        status = .running
        return true
      }
    }
  }

  /// A heap entry: due time, then submission order.
  private struct Entry: Comparable {
    /// Due time in nanoseconds.
    let time: Int64
    let sequence: UInt64
    let slot: Slot

    static func == (lhs: Entry, rhs: Entry) -> Bool { lhs.sequence == rhs.sequence }
    static func < (lhs: Entry, rhs: Entry) -> Bool {
      lhs.time != rhs.time ? lhs.time < rhs.time : lhs.sequence < rhs.sequence
    }
  }

  private struct State {
    var now: Duration = .zero
    /// ``now`` in whole nanoseconds, the heap's unit.
    var nowNanoseconds: Int64 = 0
    var nextSequence: UInt64 = 0
    var heap = MinHeap<Entry>()
  }

  private let state = Locked(State())
  private let pending = Locked(0)

  deinit {
    // The slots still in the heap are released outside the lock (see `runNext`).
    var left: [Slot] = []
    state.withLock { state in
      state.heap.removeAll(where: { _ in true }, removed: { left.append($0.slot) })
    }
    left.removeAll()
  }

  /// Creates a scheduler whose clock starts at zero.
  public init() {}

  public var now: Duration { state.withLock { $0.now } }

  /// The number of actions waiting to run (cancelled ones excluded).
  public var pendingCount: Int { pending.get() }

  @discardableResult
  public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Cancellable {
    let slot = Slot(action, pending: pending)
    let live = pending.withLock { count -> Int in
      count += 1
      return count
    }
    let delayNanoseconds = delay > .zero ? Self.nanoseconds(delay) : 0
    var purged: [Slot] = []
    state.withLock { state in
      // Cancelled actions (expiry, timeouts) would otherwise sit in the heap until their time:
      // drop them once they outnumber the live ones.
      if state.heap.count > 64 && state.heap.count > 2 * live {
        state.heap.removeAll(where: { $0.slot.isCancelled }, removed: { purged.append($0.slot) })
      }
      let time = state.nowNanoseconds &+ delayNanoseconds
      state.heap.insert(Entry(time: time, sequence: state.nextSequence, slot: slot))
      state.nextSequence += 1
    }
    // Released outside the lock (see `runNext`).
    purged.removeAll()
    return Cancellable { slot.cancel() }
  }

  /// Runs every action due at or before `now + duration`, then sets the clock to that time.
  public func advance(by duration: Duration) {
    let deadline = now + max(duration, .zero)
    while runNext(notAfter: deadline) {}
    state.withLock { state in
      if deadline > state.now {
        state.now = deadline
        state.nowNanoseconds = Self.nanoseconds(deadline)
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
  /// what its action captured (a zone the app dropped), whose deinitialization may schedule or
  /// cancel, taking the lock again.
  private func runNext(notAfter deadline: Duration?) -> Bool {
    let limit = deadline.map(Self.nanoseconds) ?? .max
    while true {
      var popped: Slot?
      let runs = state.withLock { state -> Bool in
        guard let top = state.heap.peek(), top.time <= limit else { return false }
        state.heap.removeFirst()
        popped = top.slot
        guard top.slot.claim() else { return false }
        if top.time > state.nowNanoseconds {
          state.nowNanoseconds = top.time
          state.now = Self.duration(nanoseconds: top.time)
        }
        return true
      }
      guard let slot = popped else { return false }
      // A cancelled slot is released here, outside the lock, before the next pop.
      guard runs else { continue }
      pending.withLock { $0 -= 1 }
      slot.action()
      return true
    }
  }
}
