import Foundation

/// A value behind a lock: the state this adapter and its simulated SDK share across threads.
///
/// An adapter brings its own lock box (MediationKit keeps its own to itself), as an adapter
/// outside this repository would.
final class Locked<Value>: @unchecked Sendable {
  // @unchecked Sendable is safe: `value` is read and written only inside `withLock`, while `lock`
  // is held, and no reference to it escapes.
  private var value: Value
  private let lock = NSLock()

  /// Creates a lock box holding `value`.
  init(_ value: Value) { self.value = value }

  /// Runs `body` with exclusive access to the value and returns its result.
  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
