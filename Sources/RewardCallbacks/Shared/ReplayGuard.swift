import Foundation

/// Remembers which event or transaction ids were already accepted, so a callback replayed by an
/// attacker (or re-sent by the network) grants nothing twice.
///
/// Verifiers call ``claim(_:)`` only after every other check passed, so a forged callback cannot
/// burn a real id. A server keeps its guard durable (e.g. a table keyed by the id, in the same
/// transaction that credits the user); ``InMemoryReplayGuard`` is for tests, tools and
/// single-process servers.
public protocol ReplayGuard: Sendable {
  /// Records `id` and returns true the first time it is claimed; false every time after.
  ///
  /// Must be atomic: of two concurrent claims of one id, exactly one gets true.
  func claim(_ id: String) -> Bool
}

/// A ``ReplayGuard`` in memory, bounded: it remembers the most recent `capacity` ids and forgets
/// the oldest first. An id older than the last `capacity` claims would be accepted again, so size
/// it above the number of callbacks a network may re-send over its retry window (or use a durable
/// guard). Safe to share between threads.
public final class InMemoryReplayGuard: ReplayGuard {
  private struct State {
    var seen = Set<String>()
    var order: [String] = []
    var oldest = 0
  }

  private let capacity: Int
  private let state = LockBox(State())

  /// Creates an empty guard.
  ///
  /// - Parameter capacity: How many ids it remembers (default 100,000; at least 1).
  public init(capacity: Int = 100_000) {
    self.capacity = max(1, capacity)
  }

  public func claim(_ id: String) -> Bool {
    state.withLock { state in
      guard !state.seen.contains(id) else { return false }
      state.seen.insert(id)
      if state.order.count < capacity {
        state.order.append(id)
      } else {
        state.seen.remove(state.order[state.oldest])
        state.order[state.oldest] = id
        state.oldest = (state.oldest + 1) % capacity
      }
      return true
    }
  }

  /// How many ids it remembers now.
  public var count: Int { state.withLock { $0.seen.count } }
}

/// A value behind an `NSLock`. (RewardCallbacks does not depend on MediationKit, whose `Locked`
/// is the same box.)
private final class LockBox<Value>: @unchecked Sendable {
  // @unchecked Sendable is safe: `value` is read and written only inside `withLock`, while `lock`
  // is held, and never escapes by reference.
  private var value: Value
  private let lock = NSLock()

  init(_ value: Value) { self.value = value }

  func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return body(&value)
  }
}
