import Dispatch
import Foundation

/// A scheduler on wall-clock time: a serial `DispatchQueue` (the main queue in an app).
public final class DispatchScheduler: Scheduler {
  private let queue: DispatchQueue
  private let start = ContinuousClock.now

  /// Creates a scheduler that runs its actions serially on `queue`.
  ///
  /// - Parameter queue: A serial queue; pass `.main` to receive events on the main thread.
  public init(queue: DispatchQueue = DispatchQueue(label: "MediationKit.scheduler")) {
    self.queue = queue
  }

  public var now: Duration { ContinuousClock.now - start }

  @discardableResult
  public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Cancellable {
    let flag = CancellationFlag()
    let work: @Sendable () -> Void = { if !flag.isCancelled { action() } }
    if delay <= .zero {
      queue.async(execute: work)
    } else {
      let nanoseconds = Int(min(delay.seconds * 1e9, Double(Int.max / 2)))
      queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: work)
    }
    return Cancellable { flag.cancel() }
  }
}

/// A one-way flag, set once when work is cancelled.
///
/// A lock box rather than `DispatchWorkItem.cancel()`: `DispatchWorkItem` is not `Sendable` in
/// swift-corelibs-libdispatch (Linux), so a ``Cancellable`` could not hold one without an
/// unchecked conformance.
final class CancellationFlag: Sendable {
  private let cancelled = Locked(false)
  var isCancelled: Bool { cancelled.get() }
  func cancel() { cancelled.set(true) }
}
