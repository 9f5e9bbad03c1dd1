import MediationKit
import MediationKitTesting
import Testing

/// `MediationInspector` and `Mediator.inspect()`: the history is bounded, each auction carries
/// every line item's fate and latency, the events come in order, and the snapshot shows the
/// adapters, privacy signals and zones. The suite runs on the main actor, where the inspector
/// lives; each test lets the main queue deliver the events before it inspects.
@MainActor
@Suite("Inspector", .timeLimit(.minutes(1)))
struct InspectorTests {
  /// Three line items: `a1` fails after 1 s, `b1` never answers (timed out at 2 s), `c1` fills
  /// after 500 ms.
  static func threeItems(autoReload: Bool = false) -> ZoneConfig {
    zone(
      [
        item("a", "a1", priority: 0, ecpm: 9), item("b", "b1", priority: 1, ecpm: 8, timeout: 2),
        item("c", "c1", priority: 2, ecpm: 7),
      ], autoReload: autoReload)
  }

  static let scripts: [NetworkID: [String: [ScriptedAdapter.LoadScript]]] = [
    "a": ["a1": [.fail(after: .seconds(1), noFill)]], "b": ["b1": [.never]],
    "c": ["c1": [.fill(after: .milliseconds(500))]],
  ]

  /// Loads `zone` and lets the load run to its end (not the awaiting `load()` of async code).
  static func loadAndSettle(_ harness: Harness, zone: String = "z") throws {
    try harness.mediator.rewardedAd(zone: zone).load()
    harness.settle()
  }

  /// An inspector of `harness`'s mediator, with a stream of its updates made before anything
  /// happens.
  static func inspector(
    _ harness: Harness, auctionsPerZone: Int = 10, eventsPerZone: Int = 100
  ) -> (MediationInspector, AsyncStream<Void>.Iterator) {
    let inspector = MediationInspector(
      mediator: harness.mediator, auctionsPerZone: auctionsPerZone, eventsPerZone: eventsPerZone)
    return (inspector, inspector.updates().makeAsyncIterator())
  }

  /// The inspection once the inspector has every event the harness saw. Off the main thread
  /// (the main actor of a test on Linux) events reach it through the main queue: waiting for
  /// its updates, the test leaves the main actor free for them.
  static func settled(
    _ inspector: MediationInspector, _ harness: Harness, _ updates: inout AsyncStream<Void>.Iterator
  ) async -> Mediator.Inspection {
    let last = harness.recorder.events.last
    while !inspector.inspect().zones.contains(where: { $0.events.last == last }) {
      guard await updates.next(isolation: #isolation) != nil else { break }
    }
    return inspector.inspect()
  }

  @Test func anAuctionCarriesEveryLineItemsFateAndLatency() async throws {
    let harness = try Harness(zones: [Self.threeItems()], scripts: Self.scripts)
    let (inspector, iterator) = Self.inspector(harness)
    var updates = iterator
    try Self.loadAndSettle(harness)

    let zone = try #require(await Self.settled(inspector, harness, &updates).zones.first)
    let auction = try #require(zone.auctions.last)
    #expect(zone.auctions.count == 1)
    guard case .success(let info) = auction.outcome else {
      Issue.record("expected a ready ad, got \(auction.outcome)")
      return
    }
    #expect(info.network == "c")
    let fates = auction.responses.map {
      "\($0.network) \($0.state.rawValue) \($0.latency.map(InspectionText.seconds) ?? "-")"
    }
    #expect(fates == ["a failed 1.000 s", "b timed_out 2.000 s", "c loaded 0.500 s"])
    #expect(auction.responses.first?.error?.contains("no fill") == true)
    #expect(auction.duration == .milliseconds(3_500))
    #expect(auction.time == info.latency + (zone.events.first?.time ?? .zero))
    #expect(zone.readyAds.map(\.network) == ["c"])
  }

  @Test func aFailedAuctionKeepsItsWaterfallAndDuration() async throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 9), item("b", "b1", priority: 1, ecpm: 8, timeout: 2)])],
      scripts: ["a": ["a1": [.fail(after: .seconds(1), noFill)]], "b": ["b1": [.never]]])
    let (inspector, iterator) = Self.inspector(harness)
    var updates = iterator
    try Self.loadAndSettle(harness)

    let auction = try #require(await Self.settled(inspector, harness, &updates).zones.first?.auctions.last)
    guard case .failure(let error) = auction.outcome else {
      Issue.record("expected a failed load, got \(auction.outcome)")
      return
    }
    #expect(error.code == .noFill)
    #expect(auction.responses.map(\.state) == [.failed, .timedOut])
    #expect(auction.responses.map(\.latency) == [.seconds(1), .seconds(2)])
    #expect(auction.duration == .seconds(3))
  }

  @Test func theHistoryIsBoundedAndKeepsTheNewest() async throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 9)])], scripts: ["a": ["a1": [.fail(after: .seconds(1), noFill)]]])
    let (inspector, iterator) = Self.inspector(harness, auctionsPerZone: 3, eventsPerZone: 5)
    var updates = iterator
    for _ in 0..<10 { try Self.loadAndSettle(harness) }

    let zone = try #require(await Self.settled(inspector, harness, &updates).zones.first)
    let all = harness.recorder.events.filter { $0.zoneID == "z" }
    #expect(all.count == 20)  // loading, failed: ten times
    #expect(zone.events == Array(all.suffix(5)))
    #expect(zone.auctions.count == 3)
    #expect(zone.auctions.map(\.time) == all.filter { $0.event.name == "failed" }.suffix(3).map(\.time))
    let defaults = MediationInspector(mediator: harness.mediator)
    #expect(defaults.auctionsPerZone == 10 && defaults.eventsPerZone == 100, "the documented bounds")
  }

  @Test func eventsComeInPublicationOrderAcrossAShow() async throws {
    let harness = try Harness(zones: [Self.threeItems()], scripts: Self.scripts)
    let (inspector, iterator) = Self.inspector(harness)
    var updates = iterator
    try harness.loadShowAndLoadAgain(try harness.mediator.rewardedAd(zone: "z"))

    let events = try #require(await Self.settled(inspector, harness, &updates).zones.first?.events)
    #expect(events == harness.recorder.events)
    #expect(
      events.map(\.event.name) == [
        "loading", "ready", "shown", "revenue_paid", "rewarded", "closed", "loading", "ready",
      ])
    #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time })
  }

  @Test func aReadyReportedAgainIsNotANewAuction() async throws {
    let harness = try Harness(zones: [Self.threeItems()], scripts: Self.scripts)
    let (inspector, iterator) = Self.inspector(harness)
    var updates = iterator
    try Self.loadAndSettle(harness)
    try Self.loadAndSettle(harness)  // an ad is ready: `ready` again, at once

    let zone = try #require(await Self.settled(inspector, harness, &updates).zones.first)
    #expect(zone.events.map(\.event.name) == ["loading", "ready", "ready"])
    #expect(zone.auctions.count == 1)
  }

  @Test func theSnapshotShowsAdaptersPrivacyAndZones() throws {
    var config = zone([item("a", "a1", ecpm: 9)], autoReload: true)
    config.queueDepth = 2
    let harness = try Harness(
      zones: [config, zone([item("a", "a2", ecpm: 9)], id: "other")],
      scripts: ["a": ["a1": [.fill(after: .seconds(1))], "a2": [.never]]])
    harness.mediator.updatePrivacy {
      $0.hasUserConsent = false
      $0.iab.usPrivacyString = "1YNN"
    }
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle(.seconds(5))

    let inspection = harness.mediator.inspect()
    #expect(inspection.time == harness.scheduler.now)
    let adapter = try #require(inspection.adapters.first)
    #expect(inspection.adapters.count == 1)
    #expect(adapter.info.id == "a" && adapter.info.sdkVersion == "1.0.0-scripted")
    #expect(adapter.compatibility.isCompatible && adapter.compatibilityProblem == nil)
    #expect(adapter.status?.state == .ready)
    #expect(inspection.privacy == harness.mediator.privacy)
    #expect(inspection.privacy.iab.usPrivacyString == "1YNN")
    #expect(inspection.zones.map(\.id) == ["z", "other"])
    let first = inspection.zones[0]
    #expect(first.isConfigured && first.readyAds.count == 1 && first.auctions.isEmpty && first.events.isEmpty)
    #expect(inspection.zones[1].readyAds.isEmpty && !inspection.zones[1].isLoading)
  }

  @Test func aRemovedZoneIsMarkedAndKeepsItsHistory() async throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 9)]), zone([item("a", "a2", ecpm: 9)], id: "gone")],
      scripts: ["a": ["a1": [.fill(after: .seconds(1))], "a2": [.fill(after: .seconds(1))]]])
    let (inspector, iterator) = Self.inspector(harness)
    var updates = iterator
    try Self.loadAndSettle(harness, zone: "gone")
    try harness.mediator.apply(MediationConfig(zones: [zone([item("a", "a1", ecpm: 9)])], version: "v2"))
    harness.settle()

    let inspection = await Self.settled(inspector, harness, &updates)
    #expect(inspection.zones.map(\.id) == ["z", "gone"])
    #expect(inspection.zones.map(\.isConfigured) == [true, false])
    let gone = inspection.zones[1]
    #expect(gone.auctions.count == 1)
    #expect(gone.events.map(\.event.name).prefix(2) == ["loading", "ready"])
  }

  @Test func updatesYieldWhenTheHistoryChanges() async throws {
    let harness = try Harness(zones: [Self.threeItems()], scripts: Self.scripts)
    let inspector = MediationInspector(mediator: harness.mediator)
    var updates = inspector.updates().makeAsyncIterator()
    try Self.loadAndSettle(harness)
    // Two events, one buffered update: the stream coalesces.
    let update: Void? = await updates.next()
    #expect(update != nil)
  }

  @Test func updatesEndWhenTheInspectorGoesAway() async throws {
    let harness = try Harness(zones: [Self.threeItems()], scripts: Self.scripts)
    var inspector: MediationInspector? = MediationInspector(mediator: harness.mediator)
    var updates = try #require(inspector).updates().makeAsyncIterator()
    inspector = nil
    let update: Void? = await updates.next(isolation: #isolation)
    #expect(update == nil)
    try Self.loadAndSettle(harness)  // the mediator publishes to no one in particular: no crash
    #expect(harness.names() == ["loading", "ready"])
  }
}
