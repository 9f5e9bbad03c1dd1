import Foundation

/// A value behind a lock: the lock box every MediationKit type (and the simulated SDKs) keeps its
/// shared mutable state in.
///
/// A `pthread` mutex (through `NSLock`) rather than `Synchronization.Mutex`: the thread sanitizer
/// on Linux does not see `Mutex`'s futex-based locking and reports races on correctly locked state,
/// while it understands `pthread` mutexes, so `swift test --sanitize=thread` stays meaningful.
public final class Locked<Value>: @unchecked Sendable {
  // @unchecked Sendable is safe: `value` is read and written only inside `withLock`, while `lock`
  // is held, and never escapes by reference.
  private var value: Value
  private let lock = NSLock()

  /// Creates a lock box holding `value`.
  public init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` with exclusive access to the value and returns its result.
  public func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}

extension Locked {
  /// The value, read under the lock.
  public func get() -> Value { withLock { $0 } }

  /// Replaces the value under the lock.
  public func set(_ newValue: Value) { withLock { $0 = newValue } }

  /// Replaces the value and returns the old one, atomically.
  public func exchange(_ newValue: Value) -> Value {
    withLock { value in
      let old = value
      value = newValue
      return old
    }
  }
}
