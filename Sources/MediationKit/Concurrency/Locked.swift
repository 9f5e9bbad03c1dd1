import Foundation

/// A value behind a lock: the lock box the package's types (the core, the simulated SDKs, the
/// stores) keep their shared mutable state in. Package access: an app or adapter brings its own.
///
/// A `pthread` mutex (through `NSLock`) rather than `Synchronization.Mutex`: the thread sanitizer
/// on Linux does not see `Mutex`'s futex-based locking and reports races on correctly locked state,
/// while it understands `pthread` mutexes, so `swift test --sanitize=thread` stays meaningful.
package final class Locked<Value>: @unchecked Sendable {
  // @unchecked Sendable is safe: the value is read and written only inside `withLock`, while
  // `lock` is held, and the pointer never escapes.
  // Performance: a pointer, not a `var`, so `withLock` skips the dynamic exclusivity check.
  @usableFromInline let value: UnsafeMutablePointer<Value>
  @usableFromInline let lock = NSLock()

  /// Creates a lock box holding `value`.
  package init(_ value: Value) {
    self.value = .allocate(capacity: 1)
    self.value.initialize(to: value)
  }

  deinit {
    value.deinitialize(count: 1)
    value.deallocate()
  }

  /// Runs `body` with exclusive access to the value and returns its result.
  ///
  /// Inlinable, so that other modules (adapters, simulated SDKs) get it specialized for their
  /// values rather than calling the generic version.
  @inlinable
  package func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value.pointee)
  }
}

extension Locked {
  /// The value, read under the lock.
  package func get() -> Value { withLock { $0 } }

  /// Replaces the value under the lock.
  package func set(_ newValue: Value) { withLock { $0 = newValue } }

  /// Replaces the value and returns the old one, atomically.
  package func exchange(_ newValue: Value) -> Value {
    withLock { value in
      let old = value
      value = newValue
      return old
    }
  }
}
