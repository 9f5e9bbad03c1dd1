import MediationKit
import MediationKitTesting
import Testing

@Suite("Adapter start-up")
struct StartupTests {
  @Test func adaptersStartInParallelWithStatusesAndLatency() throws {
    let harness = try Harness(zones: [
      zone([item("ok", "o1", ecpm: 5), item("bad", "b1", ecpm: 9), item("slow", "s1", ecpm: 8)])
    ]) {
      s in
      [
        ScriptedAdapter(
          id: "ok", scheduler: s, loads: ["o1": [.fill(after: .zero)]],
          start: .succeed(after: .milliseconds(300))),
        ScriptedAdapter(
          id: "bad", scheduler: s, loads: ["b1": [.fill(after: .zero)]],
          start: .fail(after: .milliseconds(50), AdapterError(.notInitialized, message: "bad app key"))),
        ScriptedAdapter(id: "slow", scheduler: s, loads: ["s1": [.fill(after: .zero)]], start: .never),
      ]
    }
    #expect(harness.mediator.adapterStatuses.map(\.state) == [.initializing, .initializing, .initializing])
    harness.scheduler.advance(by: .seconds(10))
    let statuses = harness.mediator.adapterStatuses
    #expect(statuses.map(\.network) == ["bad", "ok", "slow"])
    #expect(statuses.map(\.state) == [.failed, .ready, .timedOut])
    #expect(statuses.map(\.latency) == [.milliseconds(50), .milliseconds(300), .seconds(10)])
    #expect(statuses[0].description == "not_initialized: bad app key")

    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    let info = try #require(harness.recorder.events(zone: "z").compactMap(\.adInfo).first)
    #expect(info.network == "ok")
    #expect(info.responses.map(\.state) == [.notStarted, .notStarted, .loaded])
    #expect(
      info.responses.map(\.error) == [
        "adapter failed to start: not_initialized: bad app key", "adapter start timed out after 10 s", nil,
      ])
  }
}

@Suite("Preload, retry and expiry")
struct RetryTests {
  @Test func retryDelaysDoubleUpTo64Seconds() {
    #expect(
      (1...9).map { ZoneControllerProbe.retryDelay($0) }
        == [2, 4, 8, 16, 32, 64, 64, 64, 64].map { Duration.seconds($0) })
  }

  @Test func failedPreloadsRetryWithBackoffAndResetOnSuccess() throws {
    let failures = Array(repeating: ScriptedAdapter.LoadScript.fail(after: .zero, noFill), count: 3)
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 1)], autoReload: true)],
      scripts: [
        "a": ["a1": failures + [.fill(after: .zero), .fail(after: .zero, noFill), .fill(after: .zero)]]
      ])
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle(.seconds(100))
    let times = harness.recorder.events.filter { $0.event.name == "failed" || $0.event.name == "ready" }
      .map { "\($0.event.name)@\($0.time.milliseconds / 1000)" }
    #expect(times == ["failed@0", "failed@2", "failed@6", "ready@14"])
    try ad.show(from: HeadlessPresenter())
    harness.settle(.seconds(100))
    let after = harness.recorder.events.filter {
      $0.time > .seconds(14) && ($0.event.name == "failed" || $0.event.name == "ready")
    }
    .map { "\($0.event.name)@\($0.time.milliseconds / 1000 - 114)" }
    // The show ends at 14 + 31 s + grace-free close; the reload fails, then retries after 2 s (reset).
    #expect(after.count == 2)
    #expect(after.first?.hasPrefix("failed") == true)
    let gap =
      harness.recorder.events.filter { $0.event.name == "ready" }.map(\.time).last!
      - harness.recorder.events.filter { $0.event.name == "failed" }.map(\.time).last!
    #expect(gap == .seconds(2))
  }

  @Test func anExplicitLoadCancelsThePendingRetry() throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 1)], autoReload: true)],
      scripts: ["a": ["a1": [.fail(after: .zero, noFill), .fill(after: .zero)]]])
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle(.seconds(1))
    ad.load()
    harness.settle(.seconds(5))
    #expect(harness.names() == ["loading", "failed", "loading", "ready"])
    #expect(harness.adapters["a"]!.loadRequests.count == 2)
  }

  /// A load that replaces a pending retry leaves the cancelled retry in the scheduler's queue,
  /// holding the zone: once the app drops its mediator, the scheduler releases the zone when it
  /// skips that retry, with the ready ad's expiry still armed. That must not deadlock the
  /// scheduler.
  @Test func aMediatorDroppedAfterAReplacedRetryLeavesTheSchedulerRunning() throws {
    let scheduler: VirtualScheduler
    do {
      let harness = try Harness(
        zones: [zone([item("a", "a1", ecpm: 1)], autoReload: true)],
        scripts: ["a": ["a1": [.fail(after: .zero, noFill), .fill(after: .zero)]]])
      scheduler = harness.scheduler
      let ad = try harness.mediator.rewardedAd(zone: "z")
      ad.load()
      harness.settle(.seconds(1))
      ad.load()
      scheduler.runUntilIdle()
      #expect(harness.names() == ["loading", "failed", "loading", "ready"])
    }
    let finished = finishes {
      scheduler.run()
      #expect(scheduler.pendingCount == 0)
    }
    #expect(finished, "the scheduler deadlocked")
  }

  /// A late-signal window that is not a whole number of nanoseconds (a `Duration` is exact to the
  /// attosecond): the virtual clock counts due times in whole nanoseconds, so the window's timer
  /// fires a fraction before the window's exact end. The window must still end there — and its ad be discarded — rather
  /// than the zone re-arming for the remaining fraction, which rounds to zero, for ever.
  @Test func aFractionalLateSignalWindowEndsAndDiscardsTheAd() throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 1)])], scripts: ["a": ["a1": [.fill(after: .zero)]]],
      options: MediatorOptions(lateSignalWindow: .milliseconds(300) + .nanoseconds(1) / 2))
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.scheduler.runUntilIdle()
    try ad.show(from: HeadlessPresenter())
    let finished = finishes { harness.settle() }
    #expect(finished, "the scheduler never got past the window's end")
    #expect(harness.names() == ["loading", "ready", "shown", "revenue_paid", "rewarded", "closed"])
    #expect(harness.adapters["a"]!.discardedAds == 1)
  }

  @Test func expiredAdsAreReplacedInAutoReloadZones() throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 1)], autoReload: true)],
      scripts: ["a": ["a1": [.fill(after: .seconds(1), lifetime: .seconds(3600))]]])
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle(.seconds(3602))
    #expect(harness.names() == ["loading", "ready", "expired", "loading", "ready"])
  }
}

@Suite("Frequency caps and pacing")
struct CapsTests {
  static func harness(_ caps: ZoneConfig.FrequencyCaps) throws -> (Harness, RewardedAd) {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 1)], autoReload: true, caps: caps)],
      scripts: ["a": ["a1": [.fill(after: .zero)]]],
      show: ScriptedAdapter.ShowScript([
        (.zero, .displayed), (.seconds(1), .rewarded(nil)), (.seconds(1), .dismissed),
      ]))
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle(.seconds(1))
    return (harness, ad)
  }

  @Test func hourlyCapSaysWhenTheNextShowIsAllowed() throws {
    let (harness, ad) = try Self.harness(ZoneConfig.FrequencyCaps(maxPerHour: 2))
    try ad.show(from: HeadlessPresenter())  // t = 1 s
    harness.settle(.seconds(600))
    try ad.show(from: HeadlessPresenter())  // t = 601 s
    harness.settle(.seconds(600))  // t = 1201 s
    let error = #expect(throws: MediationError.self) { try ad.show(from: HeadlessPresenter()) }
    #expect(error?.code == .capped)
    #expect(error?.retryAfter == .seconds(2400))  // the first show leaves the hour at 3601 s
    #expect(error?.message == "zone 'z': at most 2 shows per hour; next show allowed in 2400 s")
    #expect(ad.isReady)
    harness.settle(.seconds(2400))
    try ad.show(from: HeadlessPresenter())
  }

  @Test func pacingEnforcesTheMinimumInterval() throws {
    let (harness, ad) = try Self.harness(ZoneConfig.FrequencyCaps(minIntervalSeconds: 90))
    try ad.show(from: HeadlessPresenter())
    harness.settle(.seconds(30))
    let error = #expect(throws: MediationError.self) { try ad.show(from: HeadlessPresenter()) }
    #expect(error?.retryAfter == .seconds(60))
    harness.settle(.seconds(60))
    try ad.show(from: HeadlessPresenter())
  }

  @Test func dailyCapAndTheLongestWaitWins() {
    let caps = ZoneConfig.FrequencyCaps(maxPerHour: 10, maxPerDay: 3, minIntervalSeconds: 10)
    let shows: [Duration] = [.seconds(0), .seconds(100), .seconds(200)]
    let wait = CapProbe.wait(caps: caps, showTimes: shows, now: .seconds(205))
    #expect(wait?.duration == .seconds(86_400 - 205))
    #expect(wait?.reason == "at most 3 shows per day")
  }
}

@Suite("Impression revenue")
struct RevenueTests {
  @Test func networksWithoutRevenueReportingGetAnEstimateFromTheWinningPrice() throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 12)])], scripts: ["a": ["a1": [.fill(after: .zero)]]])
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    try ad.show(from: HeadlessPresenter())
    harness.settle()
    let revenue = harness.recorder.events(zone: "z").compactMap { event -> RewardedAdEvent.Revenue? in
      if case .revenuePaid(let revenue) = event { revenue } else { nil }
    }
    #expect(
      revenue == [
        RewardedAdEvent.Revenue(
          network: "a", zoneID: "z", placementID: "a1", usd: 0.012, precision: .publisherDefined)
      ])
  }

  @Test func networksThatReportRevenueAreNotEstimated() throws {
    let script = ScriptedAdapter.ShowScript([
      (.zero, .displayed),
      (.zero, .revenuePaid(AdapterSignal.ImpressionRevenue(usd: 0.02, precision: .exact))),
      (.seconds(1), .rewarded(nil)), (.seconds(1), .dismissed),
    ])
    let harness = try Harness(zones: [zone([item("a", "a1", ecpm: 12)])]) { s in
      [
        ScriptedAdapter(
          id: "a", scheduler: s, loads: ["a1": [.fill(after: .zero)]], show: script,
          capabilities: [.rewarded, .impressionRevenue])
      ]
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    try ad.show(from: HeadlessPresenter())
    harness.settle()
    let revenue = harness.recorder.events(zone: "z").compactMap { event -> RewardedAdEvent.Revenue? in
      if case .revenuePaid(let revenue) = event { revenue } else { nil }
    }
    #expect(revenue.map(\.usd) == [0.02])
    #expect(revenue.map(\.precision) == [.exact])
  }

  /// Plays `steps` on a network declaring `capabilities` and returns the show's events (names,
  /// diagnostics left out) and its revenue.
  static func show(
    _ steps: [(Duration, AdapterSignal)], capabilities: Set<AdapterInfo.Capability>
  ) throws -> (names: [String], revenue: [RewardedAdEvent.Revenue]) {
    let script = ScriptedAdapter.ShowScript(steps.map { (offset: $0.0, signal: $0.1) })
    let harness = try Harness(zones: [zone([item("a", "a1", ecpm: 12)], grace: 5)]) { s in
      [
        ScriptedAdapter(
          id: "a", scheduler: s, loads: ["a1": [.fill(after: .zero)]], show: script,
          capabilities: capabilities)
      ]
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    let before = harness.recorder.events(zone: "z").count
    try ad.show(from: HeadlessPresenter())
    harness.scheduler.advance(by: .seconds(200))
    let events = Array(harness.recorder.events(zone: "z")[before...])
    try RewardContract.verify(events)
    let revenue = events.compactMap { event -> RewardedAdEvent.Revenue? in
      if case .revenuePaid(let revenue) = event { revenue } else { nil }
    }
    let names = events.map(\.name).filter { $0 != "diagnostic" && $0 != "loading" && $0 != "ready" }
    return (names, revenue)
  }

  static let networkFigure = AdapterSignal.ImpressionRevenue(usd: 0.02, precision: .exact)
  static let estimate = RewardedAdEvent.Revenue(
    network: "a", zoneID: "z", placementID: "a1", usd: 0.012, precision: .publisherDefined)

  /// Issue 13: a network that reports revenue without declaring `.impressionRevenue` got the
  /// core's estimate and its own figure: two `revenue_paid` for one impression.
  @Test func anUndeclaredNetworkFigureReplacesTheEstimate() throws {
    let (names, revenue) = try Self.show(
      [
        (.zero, .displayed), (.zero, .revenuePaid(Self.networkFigure)), (.seconds(20), .rewarded(nil)),
        (.seconds(21), .dismissed),
      ], capabilities: [.rewarded])
    #expect(names == ["shown", "revenue_paid", "rewarded", "closed"])
    #expect(revenue.map(\.usd) == [0.02])
    #expect(revenue.map(\.precision) == [.exact])
  }

  @Test func aDeclaringNetworkThatReportsNothingGetsTheEstimateAtTheEnd() throws {
    let (names, revenue) = try Self.show(
      [(.zero, .displayed), (.seconds(20), .rewarded(nil)), (.seconds(21), .dismissed)],
      capabilities: [.rewarded, .impressionRevenue])
    #expect(names == ["shown", "rewarded", "revenue_paid", "closed"])
    #expect(revenue == [Self.estimate])
  }

  @Test func aFigureAfterTheEstimateIsNotASecondRevenue() throws {
    let (names, revenue) = try Self.show(
      [
        (.zero, .displayed), (.seconds(20), .rewarded(nil)), (.seconds(20), .revenuePaid(Self.networkFigure)),
        (.seconds(21), .dismissed),
      ], capabilities: [.rewarded])
    #expect(names == ["shown", "revenue_paid", "rewarded", "closed"])
    #expect(revenue == [Self.estimate])
  }
}
