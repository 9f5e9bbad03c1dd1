import MediationKit
import MediationKitTesting
import Testing

/// No load or bid reaches an adapter whose `start` has not completed: requests that arrive
/// meanwhile wait for it, within their own timeout; a network whose start failed, timed out or was
/// never asked for is skipped, `not_started`, with the reason.
@Suite("Start before load")
struct StartBeforeLoadTests {
  static let badKey = AdapterError(.notInitialized, message: "bad app key")

  /// The line items' fates of the zone's first `ready` or `failed`.
  static func fates(_ harness: Harness, zone: String = "z") -> [AdInfo.NetworkResponse] {
    for event in harness.recorder.events(zone: zone) {
      switch event {
      case .ready(let info): return info.responses
      case .failed(let error): return error.waterfall
      default: continue
      }
    }
    return []
  }

  /// When the first `ready` came.
  static func readyTime(_ harness: Harness) -> Duration? {
    harness.recorder.events.first { $0.event.name == "ready" }?.time
  }

  @Test func aLoadDuringAStartWaitsForItThenFills() throws {
    let harness = try Harness(zones: [zone([item("a", "a1", ecpm: 5, timeout: 5)])]) { s in
      [
        ScriptedAdapter(
          id: "a", scheduler: s, loads: ["a1": [.fill(after: .milliseconds(100))]],
          start: .succeed(after: .seconds(2)))
      ]
    }
    harness.scheduler.advance(by: .milliseconds(500))
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.scheduler.advance(by: .milliseconds(1499))
    #expect(harness.adapters["a"]!.loadRequests.isEmpty, "the load reached the adapter before its start")
    harness.scheduler.advance(by: .milliseconds(1))
    #expect(harness.adapters["a"]!.loadRequests.count == 1)
    harness.settle()
    #expect(Self.readyTime(harness) == .milliseconds(2100))
    // The wait counts against the line item: 1.5 s waiting, 0.1 s loading.
    #expect(Self.fates(harness).map(\.latency) == [.milliseconds(1600)])
  }

  @Test func theWaitCountsAgainstTheLineItemsTimeout() throws {
    let harness = try Harness(zones: [zone([item("a", "a1", ecpm: 9, timeout: 1), item("b", "b1", ecpm: 5)])])
    {
      s in
      [
        ScriptedAdapter(
          id: "a", scheduler: s, loads: ["a1": [.fill(after: .zero)]], start: .succeed(after: .seconds(2))),
        ScriptedAdapter(id: "b", scheduler: s, loads: ["b1": [.fill(after: .zero)]]),
      ]
    }
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    #expect(harness.adapters["a"]!.loadRequests.isEmpty)
    let fates = Self.fates(harness)
    #expect(fates.map(\.state) == [.notStarted, .loaded])
    #expect(fates.first?.error == "adapter start not complete within the line item's 1 s timeout")
    #expect(fates.first?.latency == .seconds(1))
    #expect(Self.readyTime(harness) == .seconds(1))
  }

  @Test func aFailedStartSkipsTheLineItemAtOnceWithTheError() throws {
    let harness = try Harness(zones: [zone([item("a", "a1", ecpm: 9), item("b", "b1", ecpm: 5)])]) { s in
      [
        ScriptedAdapter(
          id: "a", scheduler: s, loads: ["a1": [.fill(after: .zero)]],
          start: .fail(after: .milliseconds(700), Self.badKey)),
        ScriptedAdapter(id: "b", scheduler: s, loads: ["b1": [.fill(after: .zero)]]),
      ]
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    #expect(harness.adapters["a"]!.loadRequests.isEmpty)
    let fates = Self.fates(harness)
    #expect(fates.map(\.state) == [.notStarted, .loaded])
    #expect(fates.first?.error == "adapter failed to start: not_initialized: bad app key")
    // The waterfall moved on the moment the start failed.
    #expect(Self.readyTime(harness) == .milliseconds(700))
  }

  @Test func aStartThatNeverAnswersNeverGetsALoad() throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 9, timeout: 3), item("b", "b1", ecpm: 5)], autoReload: false)],
      options: MediatorOptions(startTimeout: .seconds(10))
    ) { s in
      [
        ScriptedAdapter(id: "a", scheduler: s, loads: ["a1": [.fill(after: .zero)]], start: .never),
        ScriptedAdapter(id: "b", scheduler: s, loads: ["b1": [.fill(after: .zero)]]),
      ]
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    #expect(harness.adapters["a"]!.loadRequests.isEmpty)
    #expect(Self.fates(harness).map(\.state) == [.notStarted, .loaded])
    #expect(
      Self.fates(harness).first?.error == "adapter start not complete within the line item's 3 s timeout")

    // Once the start has timed out, the line item is skipped at once.
    try ad.show(from: HeadlessPresenter())
    harness.settle(.seconds(120))
    ad.load()
    harness.settle()
    #expect(harness.adapters["a"]!.loadRequests.isEmpty)
    let last = harness.recorder.events(zone: "z").compactMap(\.adInfo).last
    #expect(last?.responses.map(\.state) == [.notStarted, .loaded])
    #expect(last?.responses.first?.error == "adapter start timed out after 10 s")
    #expect(last?.latency == .zero)
  }

  @Test func aLateStartOpensTheNetworkForLaterLoads() throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 9)])], options: MediatorOptions(startTimeout: .seconds(1))
    ) { s in
      [
        ScriptedAdapter(
          id: "a", scheduler: s, loads: ["a1": [.fill(after: .zero)]], start: .succeed(after: .seconds(3)))
      ]
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    #expect(harness.names() == ["loading", "failed"])
    #expect(Self.fates(harness).first?.error == "adapter start timed out after 1 s")
    ad.load()
    harness.settle()
    #expect(harness.names() == ["loading", "failed", "loading", "ready"])
  }

  @Test func bidsWaitForTheStartToo() throws {
    let harness = try Harness(zones: [zone([bidder("a", "a-p"), bidder("b", "b-p")], strategy: .bidding)]) {
      s in
      [
        ScriptedAdapter(
          id: "a", scheduler: s, loads: ["a-p": [.fill(after: .zero)]],
          bids: ["a-p": [.bid(after: .milliseconds(100), price: 8)]], start: .succeed(after: .seconds(1))),
        ScriptedAdapter(
          id: "b", scheduler: s, loads: ["b-p": [.fill(after: .zero)]],
          bids: ["b-p": [.bid(after: .milliseconds(100), price: 4)]], start: .never),
      ]
    }
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.scheduler.advance(by: .milliseconds(999))
    #expect(harness.adapters["a"]!.bidRequests.isEmpty, "the bid reached the adapter before its start")
    harness.scheduler.advance(by: .milliseconds(1))
    #expect(harness.adapters["a"]!.bidRequests.count == 1)
    harness.settle()
    #expect(harness.adapters["b"]!.bidRequests.isEmpty)
    let fates = Self.fates(harness)
    #expect(fates.map(\.network) == ["a", "b"])
    #expect(fates.map(\.state) == [.loaded, .notStarted])
    #expect(fates.last?.error == "adapter start not complete within the auction timeout")
  }

  @Test func aBidderWhoseStartFailedIsSkipped() throws {
    let harness = try Harness(zones: [zone([bidder("a", "a-p"), bidder("b", "b-p")], strategy: .bidding)]) {
      s in
      [
        ScriptedAdapter(
          id: "a", scheduler: s, loads: ["a-p": [.fill(after: .zero)]],
          bids: ["a-p": [.bid(after: .milliseconds(100), price: 8)]],
          start: .fail(after: .milliseconds(300), Self.badKey)),
        ScriptedAdapter(
          id: "b", scheduler: s, loads: ["b-p": [.fill(after: .zero)]],
          bids: ["b-p": [.bid(after: .milliseconds(100), price: 4)]]),
      ]
    }
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    #expect(harness.adapters["a"]!.bidRequests.isEmpty)
    let fates = Self.fates(harness)
    #expect(fates.map(\.state) == [.loaded, .notStarted])
    #expect(fates.last?.error == "adapter failed to start: not_initialized: bad app key")
    #expect(Self.readyTime(harness) == .milliseconds(300))
  }

  @Test func aLazyNetworkStartsOnFirstUseAndTheLoadWaits() throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 9)])], options: MediatorOptions(networkStarts: ["a": .onFirstUse])
    ) { s in
      [
        ScriptedAdapter(
          id: "a", scheduler: s, loads: ["a1": [.fill(after: .zero)]], start: .succeed(after: .seconds(1)))
      ]
    }
    harness.settle()
    let before = try #require(harness.mediator.adapterStatuses.first)
    #expect(before.state == .notStarted)
    #expect(before.start == .onFirstUse)
    #expect(before.description == "starts on first use")
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.scheduler.advance(by: .zero)
    #expect(harness.mediator.adapterStatuses.first?.state == .initializing)
    harness.scheduler.advance(by: .milliseconds(999))
    #expect(harness.adapters["a"]!.loadRequests.isEmpty)
    harness.settle()
    #expect(harness.adapters["a"]!.loadRequests.count == 1)
    #expect(harness.mediator.adapterStatuses.first?.state == .ready)
    #expect(harness.mediator.adapterStatuses.first?.latency == .seconds(1))
    #expect(Self.readyTime(harness) == .seconds(61))
  }

  @Test func aNetworkNeverStartedIsSkippedWithAClearReason() throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 9), item("b", "b1", ecpm: 5)])],
      options: MediatorOptions(networkStarts: ["a": .never])
    ) { s in
      [
        ScriptedAdapter(id: "a", scheduler: s, loads: ["a1": [.fill(after: .zero)]]),
        ScriptedAdapter(id: "b", scheduler: s, loads: ["b1": [.fill(after: .zero)]]),
      ]
    }
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    #expect(harness.adapters["a"]!.loadRequests.isEmpty)
    let status = try #require(harness.mediator.adapterStatuses.first)
    #expect(status.state == .notStarted)
    #expect(status.start == .never)
    let fates = Self.fates(harness)
    #expect(fates.map(\.state) == [.notStarted, .loaded])
    #expect(fates.first?.error == "not started: MediatorOptions.networkStarts says .never for 'a'")
  }

  @Test func namingAnUnregisteredNetworkIsRefused() throws {
    #expect(throws: MediationError.self) {
      try Harness(
        zones: [zone([item("a", "a1", ecpm: 9)])], options: MediatorOptions(networkStarts: ["nope": .never])
      ) { s in [ScriptedAdapter(id: "a", scheduler: s, loads: [:])] }
    }
    do {
      _ = try Harness(
        zones: [zone([item("a", "a1", ecpm: 9)])],
        options: MediatorOptions(networkStarts: ["nope": .onFirstUse])
      ) { s in [ScriptedAdapter(id: "a", scheduler: s, loads: [:])] }
    } catch let error as MediationError {
      #expect(error.code == .invalidConfiguration)
      #expect(
        error.message
          == "MediatorOptions.networkStarts names 'nope', which is not registered; registered: a")
    }
  }
}
