/// Fans events out to subscribers, on the scheduler's executor, in order.
///
/// Delivery is re-entrancy safe: an event published while another is being delivered (a
/// subscriber that loads or shows, and an SDK that answers at once) is queued and delivered to
/// every subscriber after the current one, so all subscribers see the same order.
///
/// With a ledger, the hub also holds each zone's events behind the rewards it is recording, so
/// nothing the zone publishes after a reward (its `closed`) overtakes the `rewarded` that waits for
/// the ledger. A zone's hold is a list of rewards being recorded and events waiting behind them:
/// an event of a zone with a hold joins it; a recorded reward's events take its place; the events
/// at the front are delivered one at a time, the hold staying in place until the last one is
/// taken, so an event a subscriber publishes meanwhile still queues behind the rest.
final class EventHub: Sendable {
  private struct Subscriber {
    let token: Int
    let handler: @Sendable (Mediator.ZoneEvent) -> Void
  }

  private enum Held {
    case recording(ticket: UInt64)
    case event(Mediator.ZoneEvent)
  }

  private struct State {
    var nextToken = 0
    /// In subscription order; replaced (not mutated in place) so delivering only retains it.
    var subscribers: [Subscriber] = []
    /// One delivery at a time: an event published during another's delivery waits its turn.
    var deliveries = TurnQueue<Mediator.ZoneEvent>()
    var nextTicket: UInt64 = 0
    /// The zones holding their events behind a reward being recorded.
    var held: [String: [Held]] = [:]

    /// Queues `event` behind the one being delivered, or starts delivering it: then returns the
    /// subscribers to hand it to.
    mutating func beginDelivery(_ event: Mediator.ZoneEvent) -> [Subscriber]? {
      deliveries.startOrQueue(event) ? subscribers : nil
    }
  }

  private let state = Locked(State())

  func subscribe(_ handler: @escaping @Sendable (Mediator.ZoneEvent) -> Void) -> Cancellable {
    let token = state.withLock { state -> Int in
      state.nextToken += 1
      state.subscribers.append(Subscriber(token: state.nextToken, handler: handler))
      return state.nextToken
    }
    return Cancellable { [weak self] in
      self?.state.withLock { $0.subscribers.removeAll { $0.token == token } }
    }
  }

  /// Delivers `event` to every subscriber, outside the lock, after any event still being
  /// delivered — or, while its zone's reward is being recorded, holds it behind that reward.
  func publish(_ event: Mediator.ZoneEvent) {
    let first = state.withLock { state -> [Subscriber]? in
      if state.held[event.zoneID] != nil {
        state.held[event.zoneID]?.append(.event(event))
        return nil
      }
      return state.beginDelivery(event)
    }
    if let first { deliver(event, to: first) }
  }

  /// Starts holding `zoneID`'s later events behind a reward being recorded.
  ///
  /// - Returns: The reward's ticket, for ``recorded(_:zoneID:events:)``.
  func beginRecording(zoneID: String) -> UInt64 {
    state.withLock { state in
      state.nextTicket += 1
      state.held[zoneID, default: []].append(.recording(ticket: state.nextTicket))
      return state.nextTicket
    }
  }

  /// Puts the events of the reward with `ticket`, now recorded, in its place, then delivers
  /// what the zone holds up to the next reward still being recorded.
  func recorded(_ ticket: UInt64, zoneID: String, events: [Mediator.ZoneEvent]) {
    state.withLock { state in
      guard
        let index = state.held[zoneID]?.firstIndex(where: {
          if case .recording(ticket) = $0 { true } else { false }
        })
      else { return }
      state.held[zoneID]?.replaceSubrange(index...index, with: events.map(Held.event))
    }
    while let next = nextHeld(zoneID: zoneID) {
      if let subscribers = next.subscribers { deliver(next.event, to: subscribers) }
    }
  }

  /// Takes the front of `zoneID`'s hold, unless that is a reward still being recorded, and
  /// queues or starts its delivery. The zone stops holding once its last event is taken.
  private func nextHeld(zoneID: String) -> (event: Mediator.ZoneEvent, subscribers: [Subscriber]?)? {
    state.withLock { state in
      guard case .event(let event) = state.held[zoneID]?.first else { return nil }
      state.held[zoneID]?.removeFirst()
      if state.held[zoneID]?.isEmpty == true { state.held[zoneID] = nil }
      return (event, state.beginDelivery(event))
    }
  }

  /// Hands `event` to `subscribers`, then every event queued meanwhile to the subscribers of
  /// the moment.
  private func deliver(_ event: Mediator.ZoneEvent, to subscribers: [Subscriber]) {
    for subscriber in subscribers { subscriber.handler(event) }
    while let (queued, subscribers) = state.withLock({ state in
      state.deliveries.next().map { ($0, state.subscribers) }
    }) {
      for subscriber in subscribers { subscriber.handler(queued) }
    }
  }
}

extension Mediator {
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
    /// The A/B test arms the event belongs to (experiment id → arm id): those of the ad for the
    /// events of an ad (`ready`, `shown`, `revenue_paid`, `rewarded`, `closed`, `expired`, …),
    /// those of the load for `loading` and `failed`. Empty outside experiments and without a
    /// user id (``Mediator/setUserID(_:)``).
    public var experimentArms: [String: String]

    /// Creates the record of `event` in zone `zoneID` at `time`.
    public init(
      time: Duration, zoneID: String, network: NetworkID?, event: RewardedAdEvent,
      experimentArms: [String: String] = [:]
    ) {
      self.time = time
      self.zoneID = zoneID
      self.network = network
      self.event = event
      self.experimentArms = experimentArms
    }
  }
}
