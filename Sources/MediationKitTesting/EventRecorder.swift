import MediationKit
import Synchronization

/// Records a mediator's events for assertions. Safe from any thread.
public final class EventRecorder: Sendable {
  private let recorded = Mutex<[ZoneEvent]>([])
  private let subscription = Mutex<Cancellable?>(nil)

  /// Creates a recorder attached to `mediator`.
  public init(_ mediator: Mediator) {
    let token = mediator.observeEvents { [weak self] event in self?.recorded.withLock { $0.append(event) } }
    subscription.withLock { $0 = token }
  }

  deinit { subscription.withLock { $0 }?.cancel() }

  /// Every event so far, in delivery order.
  public var events: [ZoneEvent] { recorded.withLock { $0 } }

  /// The events of `zone`, without timestamps.
  public func events(zone: String) -> [RewardedAdEvent] { events.filter { $0.zoneID == zone }.map(\.event) }

  /// The event names of `zone`, e.g. `["loading", "ready", "shown", "rewarded", "closed"]`.
  public func names(zone: String) -> [String] { events(zone: zone).map(\.name) }

  /// Forgets what was recorded.
  public func reset() { recorded.withLock { $0.removeAll() } }
}
