#if os(Linux)
  import Synchronization
#endif

// `Synchronization.Atomic` needs iOS 18 / macOS 15, above the package's floor (iOS 16, macOS 13).
// Our targets share `AtomicInt` and `AtomicFlag` instead: on Linux each is an `Atomic` stored
// inline (the figures in the README are measured with it), and on Apple platforms a `LockedAtomic`,
// a lock box with the same operations. Orderings mean what they mean for `Atomic`; the lock box
// gives every operation at least the ordering asked for.
//
// Public only to `@_spi(SharedState) import MediationKit`, for our targets (apps do not see them),
// and `@inlinable` so other modules still inline each operation as they did `Atomic`: Swift 6.3
// does not inline a `package` declaration's `@inlinable` body into another module (see `Locked`).

/// A memory ordering for an atomic load.
package enum AtomicLoadOrder: Sendable {
  case relaxed, acquiring, sequentiallyConsistent
}

/// A memory ordering for an atomic store.
package enum AtomicStoreOrder: Sendable {
  case relaxed, releasing, sequentiallyConsistent
}

/// A memory ordering for an atomic read-modify-write operation.
package enum AtomicUpdateOrder: Sendable {
  case relaxed, acquiring, releasing, acquiringAndReleasing, sequentiallyConsistent
}

#if os(Linux)
  /// An `Int` updated atomically (a `Synchronization.Atomic<Int>` on Linux).
  package struct AtomicInt: ~Copyable, Sendable {
    @usableFromInline let atomic: Atomic<Int>

    package init(_ value: Int) { atomic = Atomic(value) }

    @inlinable @inline(__always)
    package func load(ordering: AtomicLoadOrder) -> Int {
      switch ordering {
      case .relaxed: atomic.load(ordering: .relaxed)
      case .acquiring: atomic.load(ordering: .acquiring)
      case .sequentiallyConsistent: atomic.load(ordering: .sequentiallyConsistent)
      }
    }

    @inlinable @inline(__always)
    package func store(_ value: Int, ordering: AtomicStoreOrder) {
      switch ordering {
      case .relaxed: atomic.store(value, ordering: .relaxed)
      case .releasing: atomic.store(value, ordering: .releasing)
      case .sequentiallyConsistent: atomic.store(value, ordering: .sequentiallyConsistent)
      }
    }

    /// Stores `value` and returns the value it replaced.
    @discardableResult
    @inlinable @inline(__always)
    package func exchange(_ value: Int, ordering: AtomicUpdateOrder) -> Int {
      switch ordering {
      case .relaxed: atomic.exchange(value, ordering: .relaxed)
      case .acquiring: atomic.exchange(value, ordering: .acquiring)
      case .releasing: atomic.exchange(value, ordering: .releasing)
      case .acquiringAndReleasing: atomic.exchange(value, ordering: .acquiringAndReleasing)
      case .sequentiallyConsistent: atomic.exchange(value, ordering: .sequentiallyConsistent)
      }
    }

    /// Stores `desired` if the value is `expected`; whether it did, and the value found.
    @discardableResult
    @inlinable @inline(__always)
    package func compareExchange(expected: Int, desired: Int, ordering: AtomicUpdateOrder) -> (
      exchanged: Bool, original: Int
    ) {
      switch ordering {
      case .relaxed: atomic.compareExchange(expected: expected, desired: desired, ordering: .relaxed)
      case .acquiring: atomic.compareExchange(expected: expected, desired: desired, ordering: .acquiring)
      case .releasing: atomic.compareExchange(expected: expected, desired: desired, ordering: .releasing)
      case .acquiringAndReleasing:
        atomic.compareExchange(expected: expected, desired: desired, ordering: .acquiringAndReleasing)
      case .sequentiallyConsistent:
        atomic.compareExchange(expected: expected, desired: desired, ordering: .sequentiallyConsistent)
      }
    }

    /// Adds `operand` (trapping on overflow); the values before and after.
    @discardableResult
    @inlinable @inline(__always)
    package func add(_ operand: Int, ordering: AtomicUpdateOrder) -> (oldValue: Int, newValue: Int) {
      switch ordering {
      case .relaxed: atomic.add(operand, ordering: .relaxed)
      case .acquiring: atomic.add(operand, ordering: .acquiring)
      case .releasing: atomic.add(operand, ordering: .releasing)
      case .acquiringAndReleasing: atomic.add(operand, ordering: .acquiringAndReleasing)
      case .sequentiallyConsistent: atomic.add(operand, ordering: .sequentiallyConsistent)
      }
    }

    /// Subtracts `operand` (trapping on overflow); the values before and after.
    @discardableResult
    @inlinable @inline(__always)
    package func subtract(_ operand: Int, ordering: AtomicUpdateOrder) -> (oldValue: Int, newValue: Int) {
      switch ordering {
      case .relaxed: atomic.subtract(operand, ordering: .relaxed)
      case .acquiring: atomic.subtract(operand, ordering: .acquiring)
      case .releasing: atomic.subtract(operand, ordering: .releasing)
      case .acquiringAndReleasing: atomic.subtract(operand, ordering: .acquiringAndReleasing)
      case .sequentiallyConsistent: atomic.subtract(operand, ordering: .sequentiallyConsistent)
      }
    }
  }

  /// A `Bool` updated atomically (on Linux an ``AtomicInt`` holding 0 or 1, which keeps the
  /// ordering plumbing in one place).
  package struct AtomicFlag: ~Copyable, Sendable {
    @usableFromInline let cell: AtomicInt

    package init(_ value: Bool) { cell = AtomicInt(value ? 1 : 0) }

    @inlinable @inline(__always)
    package func load(ordering: AtomicLoadOrder) -> Bool { cell.load(ordering: ordering) != 0 }

    @inlinable @inline(__always)
    package func store(_ value: Bool, ordering: AtomicStoreOrder) {
      cell.store(value ? 1 : 0, ordering: ordering)
    }

    /// Stores `value` and returns the value it replaced.
    @discardableResult
    @inlinable @inline(__always)
    package func exchange(_ value: Bool, ordering: AtomicUpdateOrder) -> Bool {
      cell.exchange(value ? 1 : 0, ordering: ordering) != 0
    }
  }
#else
  /// An `Int` updated atomically (a lock box on Apple platforms, where `Atomic` needs iOS 18).
  package typealias AtomicInt = LockedAtomic<Int>
  /// A `Bool` updated atomically (a lock box on Apple platforms, where `Atomic` needs iOS 18).
  package typealias AtomicFlag = LockedAtomic<Bool>
#endif

/// The lock-based stand-in for `Synchronization.Atomic` on Apple platforms below iOS 18 / macOS 15:
/// the same operations as ``AtomicInt`` and ``AtomicFlag``, each done under one lock, which is at
/// least as strong as any ordering asked for. Compiled everywhere, so Linux tests check it too.
package struct LockedAtomic<Value: Equatable & Sendable>: ~Copyable, Sendable {
  @usableFromInline let box: Locked<Value>

  package init(_ value: Value) { box = Locked(value) }

  @inlinable
  package func load(ordering: AtomicLoadOrder) -> Value { box.withLock { $0 } }

  @inlinable
  package func store(_ value: Value, ordering: AtomicStoreOrder) { box.withLock { $0 = value } }

  /// Stores `value` and returns the value it replaced.
  @discardableResult
  @inlinable
  package func exchange(_ value: Value, ordering: AtomicUpdateOrder) -> Value {
    box.withLock { current in
      defer { current = value }
      return current
    }
  }

  /// Stores `desired` if the value is `expected`; whether it did, and the value found.
  @discardableResult
  @inlinable
  package func compareExchange(expected: Value, desired: Value, ordering: AtomicUpdateOrder) -> (
    exchanged: Bool, original: Value
  ) {
    box.withLock { current in
      let original = current
      guard original == expected else { return (false, original) }
      current = desired
      return (true, original)
    }
  }
}

extension LockedAtomic where Value: FixedWidthInteger {
  /// Adds `operand` (trapping on overflow); the values before and after.
  @discardableResult
  @inlinable
  package func add(_ operand: Value, ordering: AtomicUpdateOrder) -> (oldValue: Value, newValue: Value) {
    box.withLock { current in
      let old = current
      current = old + operand
      return (old, current)
    }
  }

  /// Subtracts `operand` (trapping on overflow); the values before and after.
  @discardableResult
  @inlinable
  package func subtract(_ operand: Value, ordering: AtomicUpdateOrder) -> (oldValue: Value, newValue: Value) {
    box.withLock { current in
      let old = current
      current = old - operand
      return (old, current)
    }
  }
}
