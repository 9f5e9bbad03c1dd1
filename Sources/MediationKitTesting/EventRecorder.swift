import MediationKit

/// Records a mediator's events for assertions. Safe from any thread.
public final class EventRecorder: Sendable {
  private let recorded = Locked<[Mediator.ZoneEvent]>([])
  private let subscription = Locked<Cancellable?>(nil)

  /// Creates a recorder attached to `mediator`.
  public init(_ mediator: Mediator) {
    let token = mediator.observeEvents { [weak self] event in self?.recorded.withLock { $0.append(event) } }
    subscription.withLock { $0 = token }
  }

  deinit { subscription.withLock { $0 }?.cancel() }

  /// Every event so far, in delivery order.
  public var events: [Mediator.ZoneEvent] { recorded.withLock { $0 } }

  /// The events of `zone`, without timestamps.
  public func events(zone: String) -> [RewardedAdEvent] { events.filter { $0.zoneID == zone }.map(\.event) }

  /// The event names of `zone`, e.g. `["loading", "ready", "shown", "rewarded", "closed"]`.
  public func names(zone: String) -> [String] { events(zone: zone).map(\.name) }

  /// Throws unless `zone`'s event names are exactly `expected` (assertions that throw work under
  /// any test framework).
  /// - Throws: ``EventMismatch`` naming the zone, what was expected and what was recorded.
  public func expectNames(_ expected: [String], zone: String) throws(EventMismatch) {
    let actual = names(zone: zone)
    if actual != expected { throw EventMismatch(zone: zone, expected: expected, actual: actual) }
  }

  /// Throws at the first event of any zone that breaks the reward contract.
  /// - Throws: ``RewardContractViolation`` naming the invariant.
  public func verifyContract(requireFinished: Bool = true) throws(RewardContractViolation) {
    try RewardContract.verify(events, requireFinished: requireFinished)
  }

  /// Forgets what was recorded.
  public func reset() { recorded.withLock { $0.removeAll() } }
}

/// A recorded event sequence that differs from the expected one.
public struct EventMismatch: Error, Sendable, Equatable, CustomStringConvertible {
  public var zone: String
  public var expected: [String]
  public var actual: [String]

  public var description: String { "zone '\(zone)': expected events \(expected), recorded \(actual)" }
}
