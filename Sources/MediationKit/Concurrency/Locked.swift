#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A value behind a lock: the lock box the package's types (the core, the simulated SDKs, the
/// stores) keep their shared mutable state in. Package access: an app or adapter brings its own.
///
/// A copy shares the value and the lock with the original (the box is a reference).
///
/// A `pthread` mutex (an `os_unfair_lock` on Apple platforms) rather than `Synchronization.Mutex`:
/// the thread sanitizer on Linux does not see `Mutex`'s futex-based locking and reports races on
/// correctly locked state, while it understands `pthread` mutexes, so
/// `swift test --sanitize=thread` stays meaningful.
package struct Locked<Value>: @unchecked Sendable {
  // @unchecked Sendable is safe: the value is read and written only inside `withLock`, while
  // the lock is held, and no pointer into the storage escapes it.
  @usableFromInline let storage: Storage

  /// The lock and the value in one allocation, as the buffer's one element: the lock first, at the
  /// element's address, which is fixed as a `pthread` mutex or `os_unfair_lock` needs. Not the
  /// buffer's header: reaching a header takes a formal access to it, made before the lock is
  /// held, which the thread sanitizer reports as a race with the locked writes.
  @usableFromInline final class Storage: ManagedBuffer<Void, (lock: PlatformLock, value: Value)> {
    deinit {
      withUnsafeMutablePointerToElements { slot in
        #if !canImport(Darwin)
          pthread_mutex_destroy(Locked.lock(in: slot))
        #endif
        slot.deinitialize(count: 1)
      }
    }
  }

  /// Creates a lock box holding `value`.
  package init(_ value: Value) {
    let buffer = Storage.create(minimumCapacity: 1) { _ in }
    storage = unsafeDowncast(buffer, to: Storage.self)
    storage.withUnsafeMutablePointerToElements { slot in
      #if canImport(Darwin)
        slot.initialize(to: (os_unfair_lock(), value))
      #else
        slot.initialize(to: (pthread_mutex_t(), value))
        pthread_mutex_init(Locked.lock(in: slot), nil)
      #endif
    }
  }

  /// The lock, reached without a formal access to the element (a tuple's first element is at
  /// its start).
  @inlinable static func lock(
    in slot: UnsafeMutablePointer<(lock: PlatformLock, value: Value)>
  ) -> UnsafeMutablePointer<PlatformLock> {
    UnsafeMutableRawPointer(slot).assumingMemoryBound(to: PlatformLock.self)
  }

  /// Runs `body` with exclusive access to the value and returns its result.
  ///
  /// Inlinable, so that other modules (adapters, simulated SDKs) get it specialized for their
  /// values rather than calling the generic version.
  @inlinable
  package func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try storage.withUnsafeMutablePointerToElements { slot throws(Failure) -> Result in
      let lock = Locked.lock(in: slot)
      #if canImport(Darwin)
        os_unfair_lock_lock(lock)
        defer { os_unfair_lock_unlock(lock) }
      #else
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
      #endif
      return try body(&slot.pointee.value)
    }
  }
}

#if canImport(Darwin)
  /// The lock inside a ``Locked`` box.
  package typealias PlatformLock = os_unfair_lock
#else
  /// The lock inside a ``Locked`` box.
  package typealias PlatformLock = pthread_mutex_t
#endif

// Inlinable like `withLock`: otherwise every caller goes through the unspecialized generic code.
extension Locked {
  /// The value, read under the lock.
  @inlinable package func get() -> Value { withLock { $0 } }

  /// Replaces the value under the lock.
  @inlinable package func set(_ newValue: Value) { withLock { $0 = newValue } }

  /// Replaces the value and returns the old one, atomically.
  @inlinable package func exchange(_ newValue: Value) -> Value {
    withLock { value in
      let old = value
      value = newValue
      return old
    }
  }

  /// Whether `other` is a copy of this box (the same value and lock), not just an equal value.
  package func isSameBox(as other: Locked<Value>) -> Bool { storage === other.storage }
}
