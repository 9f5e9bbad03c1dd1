/// Keeps a mediator's recent history for a debug screen: per zone, the last auctions (every
/// line item's fate and latency) and the last events. `MediationKitUI`'s `MediationInspectorView`
/// and `MediationInspectorViewController` show it.
///
/// Make it when the app makes its mediator, so the history covers the session by the time a
/// developer opens the screen; it sees the events published from then on.
///
/// ```swift
/// let mediator = try Mediator(config: config, registry: registry, scheduler: DispatchScheduler.main)
/// let inspector = MediationInspector(mediator: mediator)   // keep it with the mediator
/// // From a debug menu:
/// present(MediationInspectorViewController(inspector: inspector), animated: true)
/// ```
///
/// Bounded: per zone, the last `auctionsPerZone` auctions and `eventsPerZone` events; nothing
/// else grows. A `ready` or `failed` carries each line item's outcome, so the size follows the
/// zone's line items: about 60 KB per zone at the default bounds with 10 line items. The
/// history lives on the main actor: events reach it there (at once with
/// ``DispatchScheduler/main``, through the main queue with any other scheduler), so it needs no
/// lock, and it is never read or written from the engine's threads.
@MainActor
public final class MediationInspector {
  /// The mediator inspected.
  public let mediator: Mediator
  private var history: InspectorHistory
  /// The streams ``updates()`` made; each is dropped once its consumer stops.
  private var updateStreams: [AsyncStream<Void>.Continuation] = []
  private var subscription = Cancellable.none

  /// Starts keeping `mediator`'s history.
  ///
  /// - Parameters:
  ///   - mediator: The mediator to inspect.
  ///   - auctionsPerZone: The auctions kept per zone, newest last (at least 1).
  ///   - eventsPerZone: The events kept per zone, newest last (at least 1).
  public init(mediator: Mediator, auctionsPerZone: Int = 10, eventsPerZone: Int = 100) {
    self.mediator = mediator
    self.history = InspectorHistory(maxAuctions: auctionsPerZone, maxEvents: eventsPerZone)
    let mailbox = MainActorMailbox<Mediator.ZoneEvent> { [weak self] event in self?.record(event) }
    subscription = mediator.observeEvents { event in mailbox.post(event) }
  }

  deinit {
    subscription.cancel()
    for stream in updateStreams { stream.finish() }
  }

  /// The auctions kept per zone.
  public var auctionsPerZone: Int { history.maxAuctions }

  /// The events kept per zone.
  public var eventsPerZone: Int { history.maxEvents }

  /// What the mediator holds now (``Mediator/inspect()``), with each zone's last auctions and
  /// events; zones only the history knows come last, by id.
  public func inspect() -> Mediator.Inspection {
    var inspection = mediator.inspect()
    var seen = Set<String>()
    for index in inspection.zones.indices {
      let id = inspection.zones[index].id
      seen.insert(id)
      guard let kept = history.zones[id] else { continue }
      inspection.zones[index].auctions = kept.auctions
      inspection.zones[index].events = kept.events
    }
    for (id, kept) in history.zones.sorted(by: { $0.key < $1.key }) where !seen.contains(id) {
      var zone = Mediator.Inspection.Zone(
        id: id, isConfigured: false, configurationVersion: nil, experimentArms: [:], readyAds: [],
        isLoading: false)
      zone.auctions = kept.auctions
      zone.events = kept.events
      inspection.zones.append(zone)
    }
    return inspection
  }

  /// A stream that yields each time the history changes, to refresh a screen with ``inspect()``
  /// (a SwiftUI `.task { for await _ in inspector.updates() { … } }`). Changes that come while
  /// the consumer is busy yield once. It ends when the consumer stops iterating (its task is
  /// cancelled) or the inspector goes away.
  public func updates() -> AsyncStream<Void> {
    let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    updateStreams.append(continuation)
    return stream
  }

  private func record(_ event: Mediator.ZoneEvent) {
    history.record(event)
    updateStreams.removeAll { continuation in
      if case .terminated = continuation.yield() { true } else { false }
    }
  }
}
