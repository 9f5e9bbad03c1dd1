import Synchronization

/// A deterministic scheduler on virtual time, for tests and the simulator.
///
/// Time never moves by itself: ``run()``, ``advance(by:)`` and ``runUntilIdle()`` execute due
/// actions in (time, submission order) and jump the clock straight to the next timer only when
/// nothing is runnable. All state sits under one lock; actions run outside it, on the thread that
/// drives the scheduler, and may schedule more work.
public final class VirtualScheduler: Scheduler {
  private struct Entry {
    let time: Duration
    let sequence: UInt64
  }

  private struct State {
    var now: Duration = .zero
    var nextSequence: UInt64 = 0
    var heap = MinHeap<Entry>(areInIncreasingOrder: { ($0.time, $0.sequence) < ($1.time, $1.sequence) })
    /// The actions not yet run nor cancelled, by sequence number.
    var actions: [UInt64: @Sendable () -> Void] = [:]
  }

  private let state = Mutex(State())

  /// Creates a scheduler whose clock starts at zero.
  public init() {}

  public var now: Duration { state.withLock { $0.now } }

  /// The number of actions waiting to run (cancelled ones excluded).
  public var pendingCount: Int { state.withLock { $0.actions.count } }

  @discardableResult
  public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Cancellable {
    let sequence = state.withLock { state -> UInt64 in
      let sequence = state.nextSequence
      state.nextSequence += 1
      let time = state.now + max(delay, .zero)
      state.heap.insert(Entry(time: time, sequence: sequence))
      state.actions[sequence] = action
      return sequence
    }
    return Cancellable { [weak self] in
      self?.state.withLock { state in _ = state.actions.removeValue(forKey: sequence) }
    }
  }

  /// Runs every action due at or before `now + duration`, then sets the clock to that time.
  public func advance(by duration: Duration) {
    let deadline = now + max(duration, .zero)
    while runNext(notAfter: deadline) {}
    state.withLock { $0.now = max($0.now, deadline) }
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

  /// Pops and runs the earliest action due at or before `deadline` (any, when `nil`).
  private func runNext(notAfter deadline: Duration?) -> Bool {
    let action = state.withLock { state -> (@Sendable () -> Void)? in
      while let top = state.heap.peek() {
        if let deadline, top.time > deadline { return nil }
        _ = state.heap.removeFirst()
        guard let action = state.actions.removeValue(forKey: top.sequence) else { continue }
        state.now = max(state.now, top.time)
        return action
      }
      return nil
    }
    guard let action else { return false }
    action()
    return true
  }
}
