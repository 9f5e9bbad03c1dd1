import Foundation

/// A tiny lock box for the caller's non-`Sendable` callbacks (delegates, handlers) that the
/// simulated SDK must carry into its scheduler's `@Sendable` actions.
///
/// Why `@unchecked Sendable` is safe here: the stored value is only read and written under
/// `lock`, and the SDK invokes the callbacks it takes out only from its scheduler's serial
/// executor — the simulated counterpart of the main thread, where the real Google Mobile Ads SDK
/// calls every completion handler and delegate method. The box never exposes the value any other
/// way.
final class SchedulerConfined<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  /// Reads the value under the lock.
  func get() -> Value { lock.withLock { value } }

  /// Replaces the value under the lock.
  func set(_ newValue: Value) { lock.withLock { value = newValue } }

  /// Changes the value in place under the lock.
  func modify(_ change: (inout Value) -> Void) { lock.withLock { change(&value) } }

  /// Replaces the value and returns the old one, atomically.
  func exchange(_ newValue: Value) -> Value {
    lock.withLock {
      let old = value
      value = newValue
      return old
    }
  }
}
