/// What a ``MediationInspector`` remembers of the events it saw: per zone, the last auctions and
/// the last events, each list bounded. A pure value: the inspector keeps it on the main actor.
package struct InspectorHistory: Sendable, Equatable {
  /// Auctions kept per zone (at least 1).
  package let maxAuctions: Int
  /// Events kept per zone (at least 1).
  package let maxEvents: Int
  /// By zone id.
  package private(set) var zones: [String: ZoneHistory] = [:]

  /// One zone's history.
  package struct ZoneHistory: Sendable, Equatable {
    /// The last auctions, oldest first.
    package var auctions: [Mediator.Inspection.Auction] = []
    /// The last events, oldest first.
    package var events: [Mediator.ZoneEvent] = []
    /// When the zone's load under way published `loading`.
    var loadStartedAt: Duration?
  }

  package init(maxAuctions: Int, maxEvents: Int) {
    self.maxAuctions = max(1, maxAuctions)
    self.maxEvents = max(1, maxEvents)
  }

  /// Notes `event`: every event joins its zone's events; `ready` and `failed` end an auction.
  /// A `ready` that reports again an ad already noted (``RewardedAd/load()`` while an ad is
  /// ready) is an event, not a new auction.
  package mutating func record(_ event: Mediator.ZoneEvent) {
    // In place: a copy of the zone's history taken out and put back would copy its lists.
    zones[event.zoneID, default: ZoneHistory()].record(event, maxAuctions: maxAuctions, maxEvents: maxEvents)
  }
}

extension InspectorHistory.ZoneHistory {
  fileprivate mutating func record(_ event: Mediator.ZoneEvent, maxAuctions: Int, maxEvents: Int) {
    Self.append(event, to: &events, keeping: maxEvents)
    switch event.event {
    case .loading:
      loadStartedAt = event.time
    case .ready(let info):
      // A load under way ends here; without one, a `ready` of an auction already kept reports
      // its ad again.
      let known = auctions.contains {
        if case .success(let earlier) = $0.outcome { earlier.auctionID == info.auctionID } else { false }
      }
      if loadStartedAt != nil || !known { endAuction(at: event.time, .success(info), keeping: maxAuctions) }
    case .failed(let error):
      endAuction(at: event.time, .failure(error), keeping: maxAuctions)
    default:
      break
    }
  }

  private mutating func endAuction(
    at time: Duration, _ outcome: Result<AdInfo, MediationError>, keeping maxAuctions: Int
  ) {
    let duration = loadStartedAt.map { time - $0 }
    loadStartedAt = nil
    Self.append(
      Mediator.Inspection.Auction(time: time, outcome: outcome, duration: duration), to: &auctions,
      keeping: maxAuctions)
  }

  private static func append<Element>(_ element: Element, to list: inout [Element], keeping limit: Int) {
    list.append(element)
    if list.count > limit { list.removeFirst(list.count - limit) }
  }
}
