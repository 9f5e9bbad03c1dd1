/// Fans events out to subscribers, on the scheduler's executor, in order.
///
/// Delivery is re-entrancy safe: an event published while another is being delivered (a
/// subscriber that loads or shows, and an SDK that answers at once) is queued and delivered to
/// every subscriber after the current one, so all subscribers see the same order.
final class EventHub: Sendable {
  private struct Subscriber {
    let token: Int
    let handler: @Sendable (Mediator.ZoneEvent) -> Void
  }

  private struct State {
    var nextToken = 0
    /// In subscription order; replaced (not mutated in place) so publishing only retains it.
    var subscribers: [Subscriber] = []
    var queue: [Mediator.ZoneEvent] = []
    var delivering = false
  }

  private let state = Locked(State())
  /// With a ledger: holds each zone's events behind its rewards being recorded.
  private let hold: RecordingHold?

  /// - Parameter hold: Where a zone's events wait while its reward is being recorded; `nil`
  ///   without a ledger, when every event is delivered at once.
  init(hold: RecordingHold? = nil) {
    self.hold = hold
  }

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

  /// Delivers `event` to every subscriber, outside the lock, after any event still being delivered
  /// — or, while its zone's reward is being recorded, queues it in the hold behind that reward.
  ///
  /// The event is handed to the subscribers as it is (borrowed), not copied into the lock's state:
  /// only an event published while another is being delivered is queued.
  func publish(_ event: Mediator.ZoneEvent) {
    if let hold {
      publish(event, through: hold)
      return
    }
    deliver(event)
  }

  /// Publishes `event` now, or queues it behind its zone's reward being recorded. Out of line,
  /// so that without a ledger publishing costs one check of `hold` and nothing else.
  @inline(never)
  private func publish(_ event: Mediator.ZoneEvent, through hold: RecordingHold) {
    if !hold.holdIfWaiting(event) { deliver(event) }
  }

  /// Delivers `event` (see ``publish(_:)``), past the hold: for the events the hold releases.
  @inline(__always)
  func deliver(_ event: Mediator.ZoneEvent) {
    let first: [Subscriber]? = state.withLock { state in
      if state.delivering {
        state.queue.append(event)
        return nil
      }
      state.delivering = true
      return state.subscribers
    }
    guard var subscribers = first else { return }
    for subscriber in subscribers { subscriber.handler(event) }
    while let queued = nextQueued(&subscribers) {
      for subscriber in subscribers { subscriber.handler(queued) }
    }
  }

  /// The next queued event and the subscribers to deliver it to; `nil` (and delivery over) when
  /// the queue is empty.
  private func nextQueued(_ subscribers: inout [Subscriber]) -> Mediator.ZoneEvent? {
    state.withLock { state in
      guard !state.queue.isEmpty else {
        state.delivering = false
        return nil
      }
      subscribers = state.subscribers
      return state.queue.removeFirst()
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
