import Foundation

/// The one source of time and ordering for everything MediationKit does.
///
/// A scheduler is a clock plus a serial executor: every delay (timeouts, latencies, expiry,
/// grace windows, backoff) is a call to ``schedule(after:_:)``, and every event MediationKit
/// delivers runs as one of its actions. Actions never overlap, so per-zone events arrive in
/// order on one well-defined executor whatever thread an SDK called back on.
///
/// Production code passes a ``DispatchScheduler`` (wall-clock time on a serial queue); tests and
/// the simulator pass a `VirtualScheduler`, whose time moves only when no work is runnable,
/// so the same seed gives the same timeline byte for byte and nothing ever sleeps for real.
///
/// A scheduler is shared by everything that runs on it, so it is an object: conform a class.
public protocol Scheduler: AnyObject, Sendable {
  /// Time elapsed since the scheduler started.
  var now: Duration { get }

  /// Runs `action` once `delay` has elapsed, after every action already due at that time.
  ///
  /// - Parameters:
  ///   - delay: How long to wait; zero or negative means "as soon as possible".
  ///   - action: The work to run on the scheduler's executor.
  /// - Returns: A handle that cancels the action if it has not started yet.
  @discardableResult
  func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Cancellable
}

extension Scheduler {
  /// Runs `action` on the scheduler's executor as soon as possible, after the work already queued.
  public func execute(_ action: @escaping @Sendable () -> Void) {
    schedule(after: .zero, action)
  }
}

/// A scheduler on virtual time (`VirtualScheduler`, in MediationKitTesting): a mediator on one
/// runs its ledger I/O inline (``MediatorOptions/LedgerQueue/automatic``), so a test or a
/// simulation stays deterministic.
package protocol VirtualTimeScheduler: Scheduler {}

/// A handle that cancels work not yet done: a scheduled action, or an adapter's load.
public struct Cancellable: Sendable {
  private let action: (@Sendable () -> Void)?

  /// Creates a handle whose ``cancel()`` runs `cancel`.
  public init(cancel: @escaping @Sendable () -> Void) {
    self.action = cancel
  }

  private init(nothing: Void) { self.action = nil }

  /// A handle for work that cannot be cancelled (or has nothing to cancel).
  public static let none = Cancellable(nothing: ())

  /// Cancels the work if it has not finished yet; does nothing otherwise. Idempotent when the
  /// closure it was made with is.
  public func cancel() { action?() }
}

// Package, not public: an extension of a standard-library type would collide with an app's own.
extension Duration {
  /// This duration in whole milliseconds, rounded toward zero; saturated at `Int64`'s bounds.
  package var milliseconds: Int64 {
    let (seconds, attoseconds) = secondsAndAttoseconds
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
    guard !overflow else { return seconds < 0 ? .min : .max }
    return whole.addingReportingOverflow(attoseconds / 1_000_000_000_000_000).overflow
      ? (seconds < 0 ? .min : .max) : whole + attoseconds / 1_000_000_000_000_000
  }

  /// The longest duration ``milliseconds(roundingSeconds:)`` makes: about 31 years, far past any
  /// timer, yet small enough that a clock plus it never overflows.
  package static let longestDrawn = Duration.milliseconds(1_000_000_000_000)

  /// `seconds` rounded to the millisecond, as the simulated networks time what they draw; a value
  /// from outside no timer can use is never a trap: not a number is zero, and anything beyond
  /// ±``longestDrawn`` is clamped to it.
  package static func milliseconds(roundingSeconds seconds: Double) -> Duration {
    let limit = 1_000_000_000_000.0
    let milliseconds = (seconds * 1000).rounded()
    guard !milliseconds.isNaN else { return .zero }
    return .milliseconds(Int64(min(max(milliseconds, -limit), limit)))
  }

  /// This duration in seconds, as a floating-point number.
  package var seconds: Double {
    let (seconds, attoseconds) = secondsAndAttoseconds
    return Double(seconds) + Double(attoseconds) / 1e18
  }

  /// `components`, the same two parts. On Linux from the 128-bit attosecond count, as
  /// `Duration.components` divides in software (the simulator reads a duration per random draw);
  /// elsewhere `Int128` needs iOS 18 / macOS 15, so `components` itself (tests compare the two).
  package var secondsAndAttoseconds: (seconds: Int64, attoseconds: Int64) {
    #if os(Linux)
      let total = self.attoseconds
      // Below about 9.2 s the count fits 64 bits, whose division by a constant is a multiplication.
      if let small = Int64(exactly: total) {
        let (seconds, fraction) = small.quotientAndRemainder(dividingBy: 1_000_000_000_000_000_000)
        return (seconds, fraction)
      }
      let (seconds, fraction) = total.quotientAndRemainder(dividingBy: 1_000_000_000_000_000_000)
      return (Int64(clamping: seconds), Int64(fraction))
    #else
      return components
    #endif
  }
}
