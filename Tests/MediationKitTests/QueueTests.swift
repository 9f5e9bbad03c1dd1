import MediationKit
import MediationKitTesting
import Testing

/// A zone keeping up to `queueDepth` ads ready, on virtual time with scripted networks: depth,
/// each ad's own expiry, the show's choice, refills, exclusivity and configuration changes.
@Suite("Queue of ready ads")
struct QueueTests {
  let lost = AdapterWithdrawal(.availabilityLost, message: "availability turned false")

  func queued(_ items: [ZoneConfig.LineItem], depth: Int, autoReload: Bool = true, expiry: Double = 3600)
    -> ZoneConfig
  {
    var zone = zone(items, expiry: expiry, autoReload: autoReload)
    zone.queueDepth = depth
    return zone
  }

  /// Line items `a1`…`aN` of network `a`, one placement each (a network keeps one ad per
  /// placement, so a queue of N needs N placements), in that waterfall order.
  func placements(_ count: Int, ecpm: Double = 4) -> [ZoneConfig.LineItem] {
    (1...count).map { item("a", "a\($0)", priority: $0, ecpm: ecpm) }
  }

  /// The same script for each of placements `a1`…`aN`.
  func scripts(_ count: Int, _ script: [ScriptedAdapter.LoadScript]) -> [String: [ScriptedAdapter.LoadScript]]
  {
    Dictionary(uniqueKeysWithValues: (1...count).map { ("a\($0)", script) })
  }

  func loads(_ harness: Harness) -> [Int] {
    harness.recorder.events.filter { $0.event.name == "loading" }.map { Int($0.time.milliseconds / 1000) }
  }

  func readyPrices(_ harness: Harness) -> [Double] {
    harness.recorder.events(zone: "z").compactMap { if case .ready(let info) = $0 { info.ecpm } else { nil } }
  }

  func shownPrices(_ harness: Harness) -> [Double] {
    harness.recorder.events(zone: "z").compactMap { if case .shown(let info) = $0 { info.ecpm } else { nil } }
  }

  func names(_ harness: Harness) -> [String] { harness.names().filter { $0 != "diagnostic" } }

  func expiries(_ harness: Harness) -> [Duration] {
    harness.recorder.events.filter { $0.event.name == "expired" }.map(\.time)
  }

  @Test(arguments: [1, 2, 3, 5])
  func aZoneFillsUpToItsDepthOneLoadAtATimeAndNoMore(depth: Int) throws {
    let harness = try Harness(
      zones: [queued(placements(depth), depth: depth)],
      scripts: ["a": scripts(depth, [.fill(after: .seconds(1))])])
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle(.seconds(120))
    #expect(harness.adapters["a"]!.loadRequests.count == depth)
    // One auction at a time: each load starts as the previous one fills.
    #expect(loads(harness) == Array(0..<depth))
    #expect(names(harness) == Array(repeating: ["loading", "ready"], count: depth).flatMap { $0 })
    #expect(ad.isReady)
    // The app asking for a load with the queue full hears the existing "already ready" answer.
    ad.load()
    harness.settle(.seconds(1))
    #expect(harness.adapters["a"]!.loadRequests.count == depth)
    #expect(names(harness).suffix(2) == ["ready", "ready"])
  }

  @Test func anAwaitedLoadReturnsAtOnceWhenAQueuedAdIsReadyWhileTheQueueFills() async throws {
    let harness = try Harness(
      zones: [queued(placements(2), depth: 2)],
      scripts: ["a": ["a1": [.fill(after: .seconds(1))], "a2": [.fill(after: .seconds(5))]]])
    let ad = try harness.mediator.rewardedAd(zone: "z")
    let startLoading: () -> Void = ad.load  // the synchronous load, in this async test
    startLoading()
    harness.settle(.seconds(2))
    #expect(ad.isReady && ad.isLoading)
    // No time passes: the ready ad answers, not the load still filling the queue.
    let answer = Locked<AdInfo?>(nil)
    let task = Task { answer.set(try await ad.load()) }
    #expect(
      await eventually(isolation: nil) { answer.get() != nil },
      "the awaited load waited for the queue to fill")
    #expect(answer.get()?.placementID == "a1")
    harness.settle(.seconds(120))
    try await task.value
    #expect(readyPrices(harness).count == 2)  // a1, then a2: the awaited load started nothing
    #expect(harness.adapters["a"]!.loadRequests.count == 2)
  }

  @Test func withoutAutoReloadEachLoadTheAppAsksForAddsOneAdUpToTheDepth() throws {
    let harness = try Harness(
      zones: [queued(placements(2), depth: 2, autoReload: false)],
      scripts: ["a": scripts(2, [.fill(after: .seconds(1))])])
    let ad = try harness.mediator.rewardedAd(zone: "z")
    for _ in 0..<3 {
      ad.load()
      harness.settle(.seconds(5))
    }
    #expect(harness.adapters["a"]!.loadRequests.count == 2)
    #expect(names(harness) == ["loading", "ready", "loading", "ready", "ready"])
  }

  @Test func aQueueHoldsOneAdPerPlacementAndSkipsAQueuedPlacementWithItsReason() throws {
    // Depth 3 on two placements: the zone keeps two ads, one per placement.
    let harness = try Harness(
      zones: [queued(placements(2), depth: 3)], scripts: ["a": scripts(2, [.fill(after: .seconds(1))])])
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    #expect(harness.adapters["a"]!.loadRequests.map(\.placementID) == ["a1", "a2"])
    let second = harness.recorder.events(zone: "z").compactMap {
      if case .ready(let info) = $0 { info } else { nil }
    }
    .last
    #expect(second?.responses.map(\.state) == [.skipped, .loaded])
    #expect(second?.responses.first?.error?.contains("already in the zone's queue") == true)
    ad.load()
    harness.settle()
    #expect(harness.adapters["a"]!.loadRequests.count == 2)
    // A show frees its placement, which the refill asks again.
    try ad.show(from: HeadlessPresenter())
    harness.settle()
    #expect(harness.adapters["a"]!.loadRequests.map(\.placementID) == ["a1", "a2", "a1"])
  }

  @Test func aShowTakesTheBestPricedAdThenTheNextBestAndNeverTheSameAdTwice() throws {
    let harness = try Harness(
      zones: [queued(placements(3, ecpm: 1), depth: 3, autoReload: false)],
      scripts: [
        "a": [
          "a1": [.fill(after: .seconds(1), ecpm: 2)], "a2": [.fill(after: .seconds(1), ecpm: 5)],
          "a3": [.fill(after: .seconds(1), ecpm: 3)],
        ]
      ])
    let ad = try harness.mediator.rewardedAd(zone: "z")
    for _ in 0..<3 {
      ad.load()
      harness.settle(.seconds(2))
    }
    #expect(readyPrices(harness) == [2, 5, 3])
    for _ in 0..<3 {
      try ad.show(from: HeadlessPresenter())
      // One show at a time: a second show while the first is on screen is refused, taking no ad.
      #expect(throws: MediationError.self) { try ad.show(from: HeadlessPresenter()) }
      harness.settle(.seconds(60))
    }
    #expect(shownPrices(harness) == [5, 3, 2])
    #expect(harness.adapters["a"]!.shows == 3)
    #expect(!ad.isReady)
    do {
      try ad.show(from: HeadlessPresenter())
      Issue.record("a fourth show found an ad")
    } catch {
      #expect(error.code == .alreadyUsed)
    }
    try harness.recorder.verifyContract()
  }

  @Test func onEqualPricesTheShowTakesTheAdThatExpiresFirst() throws {
    let harness = try Harness(
      zones: [queued(placements(2), depth: 2, autoReload: false)],
      scripts: [
        "a": [
          "a1": [.fill(after: .seconds(1), ecpm: 4, lifetime: .seconds(600))],
          "a2": [.fill(after: .seconds(1), ecpm: 4, lifetime: .seconds(100))],
        ]
      ])
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle(.seconds(2))
    ad.load()
    harness.settle(.seconds(2))
    try ad.show(from: HeadlessPresenter())
    // The ad left is the 600 s one: still ready after the other's 100 s, and never expired.
    harness.settle(.seconds(160))
    #expect(ad.isReady)
    #expect(expiries(harness).isEmpty)
    harness.settle(.seconds(600))
    #expect(expiries(harness) == [.seconds(601)])
  }

  @Test func eachAdExpiresOnItsOwnAndAShowTakesAnUnexpiredOne() throws {
    let harness = try Harness(
      zones: [queued(placements(3, ecpm: 1), depth: 3, autoReload: false)],
      scripts: [
        "a": [
          "a1": [.fill(after: .zero, ecpm: 3, lifetime: .seconds(300))],
          "a2": [.fill(after: .zero, ecpm: 9, lifetime: .seconds(100))],
          "a3": [.fill(after: .zero, ecpm: 5, lifetime: .seconds(200))],
        ]
      ])
    let ad = try harness.mediator.rewardedAd(zone: "z")
    for _ in 0..<3 {
      ad.load()
      harness.settle(.zero)
    }
    #expect(readyPrices(harness) == [3, 9, 5])
    harness.settle(.seconds(150))
    // The 9 expired at 100 s on its own; the show skips it and takes the best unexpired one.
    #expect(expiries(harness) == [.seconds(100)])
    #expect(ad.isReady)
    try ad.show(from: HeadlessPresenter())
    harness.settle(.seconds(400))
    #expect(shownPrices(harness) == [5])
    #expect(expiries(harness) == [.seconds(100), .seconds(300)])
    #expect(!ad.isReady)
    try harness.recorder.verifyContract()
  }

  @Test func theQueueRefillsAfterAShowAndAWithdrawal() throws {
    let harness = try Harness(
      zones: [queued(placements(2, ecpm: 1), depth: 2)],
      scripts: [
        "a": [
          "a1": [.fill(after: .seconds(1), lifetime: .seconds(3600))],
          "a2": [
            .fill(after: .seconds(1), lifetime: .seconds(200)),
            // The refill after the show, withdrawn 10 s after its fill.
            .fillThenWithdraw(after: .seconds(1), withdrawnAfter: .seconds(10), lost),
            .fill(after: .seconds(1), lifetime: .seconds(3600)),
          ],
        ]
      ])
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle(.seconds(10))
    #expect(loads(harness) == [0, 1])
    // Equal prices: the show takes a2's 200 s ad; its end (at 41 s) refills a2, whose ad is
    // withdrawn 10 s after its fill and reloaded at once.
    try ad.show(from: HeadlessPresenter())
    harness.settle(.seconds(60))
    #expect(loads(harness) == [0, 1, 41, 52])
    #expect(expiries(harness) == [.seconds(52)])
    #expect(ad.isReady)
    harness.settle(.seconds(600))
    #expect(loads(harness).count == 4)
    try harness.recorder.verifyContract()
  }

  @Test func anExpiryRefillsTheQueue() throws {
    let harness = try Harness(
      zones: [queued(placements(2), depth: 2, expiry: 100)],
      scripts: ["a": scripts(2, [.fill(after: .seconds(1))])])
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle(.seconds(150))
    // Filled at 1 and 2 s, expiring at 101 and 102 s: each expiry starts a refill.
    #expect(loads(harness) == [0, 1, 101, 102])
    #expect(expiries(harness) == [.seconds(101), .seconds(102)])
  }

  @Test func failuresBackOffAsTodayWhileTheQueueHasRoom() throws {
    let harness = try Harness(
      zones: [queued(placements(3), depth: 3)],
      scripts: [
        "a": [
          "a1": [.fill(after: .zero)], "a2": [.fail(after: .zero, noFill)],
          "a3": [.fail(after: .zero, noFill)],
        ]
      ])
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle(.seconds(20))
    // A fill, then failures retried after 2, 4, 8 s: the queue's room does not shorten the backoff.
    #expect(loads(harness) == [0, 0, 2, 6, 14])
  }

  @Test func anApplyRemovingALineItemWithdrawsOnlyItsQueuedAdsAndKeepsTheOthers() throws {
    let items = [
      item("a", "a1", ecpm: 9), item("b", "b1", priority: 1, ecpm: 5), item("a", "a2", priority: 2, ecpm: 3),
    ]
    let harness = try LiveHarness(liveConfig(queued(items, depth: 3))) { s in
      [
        ScriptedAdapter(
          id: "a", scheduler: s,
          loads: ["a1": [.fill(after: .seconds(1))], "a2": [.fill(after: .seconds(1))]]),
        ScriptedAdapter(id: "b", scheduler: s, loads: ["b1": [.fill(after: .seconds(1))]]),
      ]
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    #expect(harness.readyNetworks() == ["a", "b", "a"])
    let kept = [item("a", "a1", ecpm: 9), item("a", "a2", priority: 2, ecpm: 3)]
    try harness.mediator.apply(liveConfig(queued(kept, depth: 3), version: "v2"))
    harness.settle()
    // b's ad went (expired, with the configuration as its reason); a's two stayed, and with both
    // of a's placements queued there is nothing to refill: the reload after the withdrawal finds
    // the queue full and answers "already ready" with the best ad, a1's.
    #expect(harness.names().filter { $0 == "expired" }.count == 1)
    #expect(harness.readyNetworks() == ["a", "b", "a", "a"])
    #expect(harness.adapters["a"]!.loadRequests.count == 2)
    #expect(harness.adapters["b"]!.discardedAds == 1)
    #expect(harness.diagnostics().contains { $0.kind == .adWithdrawn && $0.message.contains("v2") })
    #expect(ad.isReady)
    for _ in 0..<3 {
      try ad.show(from: HeadlessPresenter())
      harness.settle()
    }
    #expect(harness.adapters["b"]!.shows == 0)
    #expect(harness.adapters["a"]!.shows == 3)
    try harness.recorder.verifyContract()
  }

  @Test func aLoweredDepthKeepsTheExtraAdsAndDoesNotRefillPastTheNewDepth() throws {
    let harness = try LiveHarness(liveConfig(queued(placements(3), depth: 3))) { s in
      [ScriptedAdapter(id: "a", scheduler: s, loads: scripts(3, [.fill(after: .seconds(1))]))]
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    #expect(harness.adapters["a"]!.loadRequests.count == 3)
    try harness.mediator.apply(liveConfig(queued(placements(3), depth: 1), version: "v2"))
    harness.settle()
    #expect(harness.names().filter { $0 == "expired" }.isEmpty)
    // Three shows from the three kept ads; the first two leave the queue at or above the new
    // depth, so only the last one is refilled.
    for _ in 0..<3 {
      try ad.show(from: HeadlessPresenter())
      harness.settle()
    }
    #expect(harness.adapters["a"]!.shows == 3)
    #expect(harness.adapters["a"]!.loadRequests.count == 4)
    #expect(ad.isReady)
    // Raised again: refills to the new depth.
    try harness.mediator.apply(liveConfig(queued(placements(3), depth: 2), version: "v3"))
    ad.load()
    harness.settle()
    #expect(harness.adapters["a"]!.loadRequests.count == 5)
  }

  @Test func atDepthOneTheZoneKeepsOneAdAsBefore() throws {
    let harness = try Harness(
      zones: [queued(placements(3), depth: 1)], scripts: ["a": scripts(3, [.fill(after: .seconds(1))])])
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    #expect(harness.adapters["a"]!.loadRequests.map(\.placementID) == ["a1"])
    try ad.show(from: HeadlessPresenter())
    harness.settle()
    // The refill asks a1 again: nothing is queued, so nothing is skipped.
    #expect(harness.adapters["a"]!.loadRequests.map(\.placementID) == ["a1", "a1"])
    #expect(
      names(harness) == [
        "loading", "ready", "shown", "revenue_paid", "rewarded", "closed", "loading", "ready",
      ])
  }
}
