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
/// Public only to `@_spi(SharedState) import MediationKit`, not `package`: Swift 6.3 does not
/// inline a `package` function's `@inlinable` body into another module, so every locked access
/// from the simulated SDKs, the test kit and the CLI went through the unspecialized generic code.
///
/// A copy shares the value and the lock with the original (the box is a reference).
///
/// A `pthread` mutex (an `os_unfair_lock` on Apple platforms) rather than `Synchronization.Mutex`:
/// the thread sanitizer on Linux does not see `Mutex`'s futex-based locking and reports races on
/// correctly locked state, while it understands `pthread` mutexes, so
/// `swift test --sanitize=thread` stays meaningful.
@_spi(SharedState) public struct Locked<Value>: @unchecked Sendable {
  // @unchecked Sendable is safe: the value is read and written only inside `withLock`, while
  // the lock is held; the pointers into the storage never leave the box, which keeps it alive.
  @usableFromInline let storage: Storage
  /// The value and the lock inside `storage`, whose addresses never change: taken once, when the
  /// box is made and not yet shared. Reaching the buffer's header on every call would be a formal
  /// access to it made before the lock is held, which the thread sanitizer reports as a race
  /// with the locked writes.
  @usableFromInline let value: UnsafeMutablePointer<Value>
  @usableFromInline let lock: UnsafeMutablePointer<PlatformLock>

  /// The value and its lock in one allocation. The lock lives in the buffer's elements, not in a
  /// stored property, so it has the fixed address a `pthread` mutex or `os_unfair_lock` needs.
  @usableFromInline final class Storage: ManagedBuffer<Value, PlatformLock> {
    deinit {
      withUnsafeMutablePointerToElements { lock in
        #if !canImport(Darwin)
          pthread_mutex_destroy(lock)
        #endif
        lock.deinitialize(count: 1)
      }
    }
  }

  /// Creates a lock box holding `value`.
  ///
  /// Inlinable like ``withLock(_:)``: the generic version looks the storage class up in the
  /// runtime's metadata cache on every box made (the simulated SDKs make one per ad).
  @inlinable
  public init(_ value: Value) {
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
  ///
  /// Inlinable, so that other modules (adapters, simulated SDKs) get it specialized for their
  /// values rather than calling the generic version (which needs it public, see the type).
  @inlinable
  public func withLock<Result, Failure: Error>(
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
  @_spi(SharedState) public typealias PlatformLock = os_unfair_lock
#else
  /// The lock inside a ``Locked`` box.
  @_spi(SharedState) public typealias PlatformLock = pthread_mutex_t
#endif

// Inlinable like `withLock`: otherwise every caller goes through the unspecialized generic code.
extension Locked {
  /// The value, read under the lock.
  @inlinable public func get() -> Value { withLock { $0 } }

  /// Replaces the value under the lock.
  @inlinable public func set(_ newValue: Value) { withLock { $0 = newValue } }

  /// Replaces the value and returns the old one, atomically.
  @inlinable public func exchange(_ newValue: Value) -> Value {
    withLock { value in
      let old = value
      value = newValue
      return old
    }
  }

  /// Whether `other` is a copy of this box (the same value and lock), not just an equal value.
  package func isSameBox(as other: Locked<Value>) -> Bool { storage === other.storage }
}
