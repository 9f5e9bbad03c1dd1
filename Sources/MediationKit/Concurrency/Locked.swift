#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A value behind a lock: the lock box the package's types (the core, the simulated SDKs, the
/// stores) keep their shared mutable state in. An app or adapter brings its own.
///
/// A copy shares the value and the lock with the original (the box is a reference).
///
/// A `pthread` mutex (an `os_unfair_lock` on Apple platforms) rather than `Synchronization.Mutex`:
/// the thread sanitizer on Linux does not see `Mutex`'s futex-based locking and reports races on
/// correctly locked state, while it understands `pthread` mutexes, so
/// `swift test --sanitize=thread` stays meaningful.
package struct Locked<Value>: @unchecked Sendable {
  // @unchecked Sendable is safe: the value is read and written only inside `withLock`, while
  // the lock is held; the pointers into the storage never leave the box, which keeps it alive.
  let storage: Storage
  /// The value and the lock inside `storage`, whose addresses never change: taken once, when the
  /// box is made and not yet shared. Reaching the buffer's header on every call would be a formal
  /// access to it made before the lock is held, which the thread sanitizer reports as a race
  /// with the locked writes.
  let value: UnsafeMutablePointer<Value>
  let lock: UnsafeMutablePointer<PlatformLock>

  /// The value and its lock in one allocation. The lock lives in the buffer's elements, not in a
  /// stored property, so it has the fixed address a `pthread` mutex or `os_unfair_lock` needs.
  final class Storage: ManagedBuffer<Value, PlatformLock> {
    deinit {
      withUnsafeMutablePointerToElements { lock -> Void in
        #if !canImport(Darwin)
          pthread_mutex_destroy(lock)
        #endif
        lock.deinitialize(count: 1)
      }
    }
  }

  /// Creates a lock box holding `value`.
  package init(_ value: Value) {
    let buffer = Storage.create(minimumCapacity: 1) { _ in value }
    storage = unsafeDowncast(buffer, to: Storage.self)
    (self.value, lock) = storage.withUnsafeMutablePointers { ($0, $1) }
    #if canImport(Darwin)
      lock.initialize(to: os_unfair_lock())
    #else
      lock.initialize(to: pthread_mutex_t())
      pthread_mutex_init(lock, nil)
    #endif
  }

  /// Runs `body` with exclusive access to the value and returns its result.
  package func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    // `self`, and with it `storage`, is alive for the whole call: the caller holds it.
    #if canImport(Darwin)
      os_unfair_lock_lock(lock)
      defer { os_unfair_lock_unlock(lock) }
    #else
      pthread_mutex_lock(lock)
      defer { pthread_mutex_unlock(lock) }
    #endif
    return try body(&value.pointee)
  }
}

#if canImport(Darwin)
  /// The lock inside a ``Locked`` box.
  package typealias PlatformLock = os_unfair_lock
#else
  /// The lock inside a ``Locked`` box.
  package typealias PlatformLock = pthread_mutex_t
#endif

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

  /// Whether `other` is a copy of this box (the same value and lock), not just an equal value.
  package func isSameBox(as other: Locked<Value>) -> Bool { storage === other.storage }
}

extension Locked where Value == Int {
  /// Adds one and returns the new value, atomically.
  package func increment() -> Int {
    withLock { value in
      value += 1
      return value
    }
  }
}
