import MediationKit
import MediationKitTesting
import Testing

@Suite("Waterfall")
struct WaterfallTests {
  @Test func ordersByPriorityThenECPMDescendingThenConfigOrder() {
    let items = [
      item("a", "a1", priority: 1, ecpm: 50),
      item("b", "b1", priority: 0, ecpm: 5),
      item("c", "c1", priority: 0, ecpm: 9),
      item("d", "d1", priority: 0, ecpm: 5),
      item("e", "e1", priority: 2, ecpm: 100),
    ]
    #expect(WaterfallOrder.sorted(items).map(\.placementId) == ["c1", "b1", "d1", "a1", "e1"])
  }

  @Test func firstFillWinsAndEveryTryIsRecorded() throws {
    let harness = try Harness(
      zones: [
        zone([item("a", "a1", ecpm: 10), item("b", "b1", ecpm: 8), item("c", "c1", priority: 1, ecpm: 20)])
      ],
      scripts: [
        "a": ["a1": [.fail(after: .milliseconds(300), noFill)]],
        "b": ["b1": [.fill(after: .milliseconds(500))]],
        "c": ["c1": [.fill(after: .milliseconds(10))]],
      ])
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    #expect(harness.names() == ["loading", "ready"])
    let info = try #require(harness.recorder.events(zone: "z").last?.adInfo)
    #expect(info.network == "b")
    #expect(info.latency == .milliseconds(800))
    #expect(info.responses.map(\.state) == [.failed, .loaded, .notAttempted])
    #expect(info.responses.map(\.latency) == [.milliseconds(300), .milliseconds(500), nil])
    #expect(info.responses[0].error == "no_fill (204): no fill")
    #expect(harness.adapters["c"]!.loadRequests.isEmpty)
    #expect(ad.isReady)
  }

  @Test func aNetworkThatNeverAnswersIsTimedOutCancelledAndSkipped() throws {
    let harness = try Harness(
      zones: [zone([item("slow", "s1", ecpm: 10, timeout: 4), item("fast", "f1", ecpm: 5)])],
      scripts: ["slow": ["s1": [.never]], "fast": ["f1": [.fill(after: .seconds(1))]]])
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.scheduler.advance(by: .seconds(3.999))
    #expect(harness.names() == ["loading"])
    #expect(harness.adapters["fast"]!.loadRequests.isEmpty)
    harness.scheduler.advance(by: .seconds(1.001))
    #expect(harness.names() == ["loading", "ready"])
    let info = try #require(harness.recorder.events(zone: "z").last?.adInfo)
    #expect(info.responses.map(\.state) == [.timedOut, .loaded])
    #expect(info.responses[0].latency == .seconds(4))
    #expect(harness.adapters["slow"]!.cancelledLoads == 1)
  }

  @Test func theZoneBudgetBoundsTheWholeLoad() throws {
    let harness = try Harness(
      zones: [
        zone([item("a", "a1", ecpm: 10, timeout: 8), item("b", "b1", ecpm: 5, timeout: 8)], loadTimeout: 10)
      ],
      scripts: ["a": ["a1": [.never]], "b": ["b1": [.never]]])
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    #expect(harness.recorder.events.last?.time == .seconds(10))
    guard case .failed(let error) = harness.recorder.events(zone: "z").last else {
      Issue.record("expected failed, got \(harness.names())")
      return
    }
    #expect(error.code == .loadTimeout)
    #expect(error.waterfall.map(\.state) == [.timedOut, .timedOut])
    #expect(error.waterfall.map(\.latency) == [.seconds(8), .seconds(2)])
  }

  @Test func noFillAnywhereFailsWithEveryResponse() throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 10), item("b", "b1", ecpm: 5)])],
      scripts: [
        "a": ["a1": [.fail(after: .milliseconds(100), noFill)]], "b": ["b1": [.fail(after: .zero, noFill)]],
      ])
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    guard case .failed(let error) = harness.recorder.events(zone: "z").last else {
      Issue.record("expected failed")
      return
    }
    #expect(error.code == .noFill)
    #expect(error.waterfall.map(\.state) == [.failed, .failed])
  }

  @Test func unregisteredNetworksAreSkippedAndSaySo() throws {
    let harness = try Harness(
      zones: [zone([item("gone", "g1", ecpm: 50), item("a", "a1", ecpm: 5)])],
      scripts: ["a": ["a1": [.fill(after: .zero)]]])
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    let info = try #require(harness.recorder.events(zone: "z").last?.adInfo)
    #expect(info.responses.map(\.state) == [.skipped, .loaded])
    #expect(info.responses[0].error == "no adapter registered for 'gone'")
  }

  @Test func aFillAfterTimeoutFromAnSDKThatIgnoresCancellationIsDiscarded() throws {
    let harness = try Harness(
      zones: [zone([item("late", "l1", ecpm: 10, timeout: 2), item("b", "b1", ecpm: 5)])],
      scripts: ["late": ["l1": [.fill(after: .seconds(3))]], "b": ["b1": [.fill(after: .seconds(5))]]])
    harness.adapters["late"]!.ignoresCancellation = true
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    #expect(harness.adapters["late"]!.cancelledLoads == 1)
    #expect(harness.adapters["late"]!.discardedAds == 1)
    #expect(harness.names() == ["loading", "diagnostic", "ready"])
    #expect(harness.recorder.events(zone: "z").last?.adInfo?.network == "b")
  }

  @Test func loadsCoalesceAndAReadyAdIsReportedAgain() throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 1)])], scripts: ["a": ["a1": [.fill(after: .seconds(1))]]])
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    ad.load()
    harness.settle()
    ad.load()
    harness.settle()
    #expect(harness.names() == ["loading", "ready", "ready"])
    #expect(harness.adapters["a"]!.loadRequests.count == 1)
  }
}

@Suite("Stale answers")
struct StaleAnswerTests {
  /// A late fill from a previous load (an SDK that ignores cancellation) must not cancel the
  /// request of the load running now, whose entry has the same number.
  @Test func aStaleFillDoesNotCancelTheCurrentLoadsRequest() throws {
    let harness = try Harness(
      zones: [zone([item("late", "l1", ecpm: 10, timeout: 8), item("b", "b1", ecpm: 5)])],
      scripts: [
        "late": ["l1": [.fill(after: .seconds(45)), .never]],
        "b": ["b1": [.fill(after: .seconds(0.5))]],
      ])
    harness.adapters["late"]!.ignoresCancellation = true
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()  // load 1: "late" times out at 8 s, "b" fills at 8.5 s
    harness.scheduler.advance(by: .milliseconds(8600))
    try ad.show(from: HeadlessPresenter())  // the show ends at 39.6 s
    harness.scheduler.advance(by: .seconds(31))
    ad.load()  // load 2 at 39.6 s: "late" never answers and must time out at 47.6 s
    harness.settle()  // load 1's stale fill lands at 45 s, during load 2
    let outcomes = harness.recorder.events(zone: "z").filter { $0.name == "ready" || $0.name == "failed" }
    #expect(outcomes.count == 2, "\(harness.names())")
    #expect(harness.recorder.events(zone: "z").compactMap(\.adInfo).last?.network == "b")
    #expect(harness.recorder.events.last { $0.event.name == "ready" }?.time == .milliseconds(48_100))
  }
}
