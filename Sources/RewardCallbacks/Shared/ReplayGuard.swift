import Foundation

/// Remembers which event or transaction ids were already accepted, so a callback replayed by an
/// attacker (or re-sent by the network) grants nothing twice.
///
/// Verifiers call ``claim(_:network:)`` only after every other check passed, so a forged callback
/// cannot burn a real id. Each network's ids are claimed in a namespace of their own: a MAX event
/// id and a Google transaction id that happened to be the same text are different rewards.
///
/// ``InMemoryReplayGuard`` forgets everything when its process ends, so it suits tests, tools and a
/// single long-running process; a server that restarts, or runs several processes, needs a durable
/// guard such as `SQLiteReplayGuard` (library `ReplayGuardSQLite`), and several servers one they
/// share, such as `PostgresReplayGuard` (library `ReplayGuardPostgres`).
public protocol ReplayGuard: Sendable {
  /// Records `id` and returns true the first time it is claimed; false every time after.
  ///
  /// Must be atomic: of two concurrent claims of one id, exactly one gets true.
  func claim(_ id: String) -> Bool

  /// Records `id` in `network`'s namespace and returns true the first time it is claimed there;
  /// false every time after. The verifiers call this one.
  ///
  /// Must be atomic: of two concurrent claims of one id in one network, exactly one gets true.
  /// The default implementation claims `"network:id"` (e.g. `max:0123…`) with ``claim(_:)``, which
  /// keeps the namespaces apart and never throws.
  ///
  /// - Throws: ``ReplayGuardError`` when the guard's storage fails: the id was neither recorded nor
  ///   found, so the callback must not be accepted (and is not a known replay either). A verifier
  ///   rejects it with ``CallbackRejection/Reason/storageFailure``.
  func claim(_ id: String, network: CallbackNetwork) throws(ReplayGuardError) -> Bool
}

extension ReplayGuard {
  /// Claims `"network:id"` with ``claim(_:)``.
  public func claim(_ id: String, network: CallbackNetwork) throws(ReplayGuardError) -> Bool {
    claim("\(network.rawValue):\(id)")
  }
}

extension ReplayGuard {
  /// The verifiers' last check: claims `id` for `network`, and turns a replay or a storage failure
  /// into the rejection naming `parameter` (the `what`, e.g. `event id`, in the message).
  func claimOnce(
    _ id: String, network: CallbackNetwork, parameter: String, what: String
  ) throws(CallbackRejection) {
    let claimed: Bool
    do {
      claimed = try claim(id, network: network)
    } catch {
      throw CallbackRejection(
        .storageFailure, parameter: parameter,
        "\(what) \(id) could not be checked for a replay: \(error.message); the callback is not "
          + "accepted (nothing was recorded, so a retry is accepted once the storage works)")
    }
    guard claimed else {
      throw CallbackRejection(
        .replayed, parameter: parameter, "\(what) \(id) was already accepted; a reward is granted once")
    }
  }
}

/// A replay guard that failed: what failed, where (the file, the database) and what was expected.
///
/// Most failures are the storage's — a lock held too long, a full disk, an I/O error, a database
/// that is down or too slow — and pass: ``isRetryable`` is true, and a callback refused for it
/// must be retried (answer the network with a 5xx; `mediate verify-callback` exits 74). A guard
/// that cannot work as configured — a file that is not a replay guard, one with a newer schema
/// version, a path that is a directory — is not retryable: fix the configuration.
public struct ReplayGuardError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What was wrong, where and what was expected.
  public let message: String

  /// Whether the storage failed, so the same operation may work when tried again (true for every
  /// failure of a claim); false when the guard cannot work as it is configured.
  public let isRetryable: Bool

  /// Creates an error; a storage failure (``isRetryable``) unless told otherwise.
  public init(_ message: String, isRetryable: Bool = true) {
    self.message = message
    self.isRetryable = isRetryable
  }

  public var description: String { message }
}

/// What the durable guards share about forgetting old ids.
package enum ReplayGuardRetention {
  /// The least age a durable guard prunes at: one day, the networks' retry window (minutes) with a
  /// wide margin. A smaller age is refused as a likely mistake (seconds given for milliseconds)
  /// that would let the networks' own re-sends through.
  package static let minimumMilliseconds: Int64 = 24 * 60 * 60 * 1000

  /// The wall-clock time before which claims are pruned, for `pruneClaims(olderThanMilliseconds:)`
  /// at `now`; throws (not retryable) for an age under ``minimumMilliseconds``.
  package static func cutoff(now: Int64, age: Int64) throws(ReplayGuardError) -> Int64 {
    guard age >= minimumMilliseconds else {
      throw ReplayGuardError(
        "pruneClaims: an age of \(age) ms; expected at least \(minimumMilliseconds) ms (one day), well past "
          + "the networks' retry window, or replays the networks send could be accepted", isRetryable: false)
    }
    let (cutoff, overflow) = now.subtractingReportingOverflow(age)
    return overflow ? Int64.min : cutoff
  }
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
