import Synchronization

/// An event of one zone, stamped with the scheduler's time and the network involved.
public struct ZoneEvent: Sendable, Equatable {
  /// When it happened, on the mediator's scheduler.
  public var time: Duration
  /// The zone.
  public var zoneID: String
  /// The network serving (or that served) the ad; `nil` for `loading` and `failed`.
  public var network: NetworkID?
  /// What happened.
  public var event: RewardedAdEvent

  public init(time: Duration, zoneID: String, network: NetworkID?, event: RewardedAdEvent) {
    self.time = time
    self.zoneID = zoneID
    self.network = network
    self.event = event
  }
}

/// Fans events out to subscribers, on the scheduler's executor, in order.
///
/// Delivery is re-entrancy safe: an event published while another is being delivered (a
/// subscriber that loads or shows, and an SDK that answers at once) is queued and delivered to
/// every subscriber after the current one, so all subscribers see the same order.
final class EventHub: Sendable {
  private struct Subscriber {
    let token: Int
    let handler: @Sendable (ZoneEvent) -> Void
  }

  private struct State {
    var nextToken = 0
    /// In subscription order; replaced (not mutated in place) so publishing only retains it.
    var subscribers: [Subscriber] = []
    var queue: [ZoneEvent] = []
    var delivering = false
  }

  private let state = Locked(State())

  func subscribe(_ handler: @escaping @Sendable (ZoneEvent) -> Void) -> Cancellable {
    let token = state.withLock { state -> Int in
      state.nextToken += 1
      state.subscribers.append(Subscriber(token: state.nextToken, handler: handler))
      return state.nextToken
    }
    return Cancellable { [weak self] in
      self?.state.withLock { $0.subscribers.removeAll { $0.token == token } }
    }
  }

  /// Delivers `event` to every subscriber, outside the lock, after any event still being delivered.
  func publish(_ event: ZoneEvent) {
    var next: (ZoneEvent, [Subscriber])? = state.withLock { state in
      if state.delivering {
        state.queue.append(event)
        return nil
      }
      state.delivering = true
      return (event, state.subscribers)
    }
    while let (event, subscribers) = next {
      for subscriber in subscribers { subscriber.handler(event) }
      next = state.withLock { state in
        guard !state.queue.isEmpty else {
          state.delivering = false
          return nil
        }
        return (state.queue.removeFirst(), state.subscribers)
      }
    }
  }
}
