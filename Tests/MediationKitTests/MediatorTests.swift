import Dispatch
import MediationKit
import MediationKitTesting
import Testing

@Suite("Mediator: show, reward contract, exclusivity, expiry")
struct MediatorTests {
  static let presenter = HeadlessPresenter()

  static func single(
    show: ScriptedAdapter.ShowScript = .completes, grace: Double = 5, expiry: Double = 3600,
    autoReload: Bool = false,
    options: MediatorOptions = MediatorOptions()
  ) throws -> (Harness, RewardedAd) {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 10)], expiry: expiry, grace: grace, autoReload: autoReload)],
      scripts: ["a": ["a1": [.fill(after: .milliseconds(200))]]], show: show, options: options)
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    return (harness, ad)
  }

  @Test func completedShowGrantsTheZoneRewardOnceThenCloses() throws {
    let (harness, ad) = try Self.single()
    try ad.show(from: Self.presenter)
    harness.settle()
    #expect(harness.names() == ["loading", "ready", "shown", "revenue_paid", "rewarded", "closed"])
    guard case .rewarded(let reward) = harness.recorder.events(zone: "z")[3] else { return }
    #expect(reward.type == "coins")
    #expect(reward.amount == 100)
    #expect(reward.network == "a")
    #expect(reward.transactionID.count == 36)
    try RewardContract.verify(harness.recorder.events)
  }

  @Test func skippedShowNeverGrants() throws {
    let (harness, ad) = try Self.single(show: .skips)
    try ad.show(from: Self.presenter)
    harness.settle()
    #expect(harness.names() == ["loading", "ready", "shown", "revenue_paid", "skipped"])
  }

  @Test func rewardAfterDismissInsideGraceStillGrantsBeforeClose() throws {
    let script = ScriptedAdapter.ShowScript([
      (.zero, .displayed), (.seconds(20), .dismissed), (.seconds(23), .rewarded(nil)),
    ])
    let (harness, ad) = try Self.single(show: script, grace: 5)
    try ad.show(from: Self.presenter)
    harness.settle()
    #expect(harness.names() == ["loading", "ready", "shown", "revenue_paid", "rewarded", "closed"])
    #expect(harness.recorder.events.last?.time == harness.recorder.events[2].time + .seconds(23))
  }

  @Test func rewardAfterGraceIsReportedAsDiagnosticAndNotGranted() throws {
    let script = ScriptedAdapter.ShowScript([
      (.zero, .displayed), (.seconds(20), .dismissed), (.seconds(26), .rewarded(nil)),
    ])
    let (harness, ad) = try Self.single(show: script, grace: 5)
    try ad.show(from: Self.presenter)
    harness.settle()
    #expect(harness.names() == ["loading", "ready", "shown", "revenue_paid", "skipped", "diagnostic"])
    guard case .diagnostic(let diagnostic) = harness.recorder.events(zone: "z").last else { return }
    #expect(diagnostic.kind == .lateReward)
  }

  @Test func doubleRewardIsGrantedOnce() throws {
    let script = ScriptedAdapter.ShowScript([
      (.zero, .displayed), (.seconds(30), .rewarded(nil)), (.seconds(30), .rewarded(nil)),
      (.seconds(31), .dismissed),
    ])
    let (harness, ad) = try Self.single(show: script)
    try ad.show(from: Self.presenter)
    harness.settle()
    #expect(
      harness.names() == ["loading", "ready", "shown", "revenue_paid", "rewarded", "diagnostic", "closed"])
  }

  @Test func showingWhatIsNotThereFailsAtOnceWithATypedError() throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 1)])], scripts: ["a": ["a1": [.fill(after: .seconds(1))]]])
    let ad = try harness.mediator.rewardedAd(zone: "z")
    #expect(throws: MediationError(.notReady, "zone 'z': no ad loaded")) { try ad.show(from: Self.presenter) }
    ad.load()
    harness.scheduler.runUntilIdle()
    #expect(throws: MediationError(.notReady, "zone 'z': still loading")) {
      try ad.show(from: Self.presenter)
    }
    harness.settle()
    try ad.show(from: Self.presenter)
    let used = #expect(throws: MediationError.self) { try ad.show(from: Self.presenter) }
    #expect(used?.code == .alreadyUsed)
  }

  @Test func expiredAdsEmitExpiredAndCannotBeShown() throws {
    let (harness, ad) = try Self.single(expiry: 100)
    #expect(ad.isReady)
    harness.settle()  // t = 120 s, past the expiry at 100.2 s
    #expect(harness.names() == ["loading", "ready", "expired"])
    #expect(!ad.isReady)
    let error = #expect(throws: MediationError.self) { try ad.show(from: Self.presenter) }
    #expect(error?.code == .expired)
    #expect(harness.adapters["a"]!.discardedAds == 1)
  }

  @Test func theNetworksOwnShorterLifetimeWins() throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 1)], expiry: 3600)],
      scripts: ["a": ["a1": [.fill(after: .zero, lifetime: .seconds(30))]]])
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    #expect(harness.names() == ["loading", "ready", "expired"])
    #expect(harness.recorder.events.last?.time == .seconds(30))
  }

  @Test func autoReloadLoadsAfterExpiryAndAfterEachShow() throws {
    let (harness, ad) = try Self.single(expiry: 50, autoReload: true)
    #expect(harness.names() == ["loading", "ready", "expired", "loading", "ready"])
    try ad.show(from: Self.presenter)
    harness.settle(.seconds(40))
    #expect(harness.names().suffix(6) == ["shown", "revenue_paid", "rewarded", "closed", "loading", "ready"])
  }

  @Test func onlyOneFullScreenAdAcrossZones() throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 1)], id: "z1"), zone([item("a", "a2", ecpm: 1)], id: "z2")],
      scripts: ["a": ["a1": [.fill(after: .zero)], "a2": [.fill(after: .zero)]]])
    let first = try harness.mediator.rewardedAd(zone: "z1")
    let second = try harness.mediator.rewardedAd(zone: "z2")
    first.load()
    second.load()
    harness.settle(.seconds(1))
    try first.show(from: Self.presenter)
    #expect(harness.mediator.isAnyAdShowing)
    #expect(throws: MediationError(.anotherAdShowing, "zone 'z2': another ad is showing (zone 'z1')")) {
      try second.show(from: Self.presenter)
    }
    #expect(second.isReady)
    harness.settle()
    #expect(!harness.mediator.isAnyAdShowing)
    try second.show(from: Self.presenter)
  }

  @Test func aNetworkThatNeverDisplaysTimesOutTheShow() throws {
    let (harness, ad) = try Self.single(
      show: ScriptedAdapter.ShowScript([]), options: MediatorOptions(displayTimeout: .seconds(7)))
    try ad.show(from: Self.presenter)
    harness.settle()
    #expect(harness.names() == ["loading", "ready", "show_failed"])
    guard case .showFailed(let error) = harness.recorder.events(zone: "z").last else { return }
    #expect(error.code == .displayTimeout)
    #expect(!harness.mediator.isAnyAdShowing)
  }

  @Test func unknownZoneListsTheKnownOnes() throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 1)], id: "b"), zone([item("a", "a1", ecpm: 1)], id: "a")],
      scripts: [:])
    #expect(throws: MediationError(.unknownZone, "unknown zone 'c'; known: b, a")) {
      try harness.mediator.rewardedAd(zone: "c")
    }
  }

  @MainActor
  @Test func delegateAndAsyncStreamSeeTheSameEvents() async throws {
    final class Delegate: RewardedAd.Delegate {
      var names: [String] = []
      func rewardedAd(_ ad: RewardedAd, didReceive event: RewardedAdEvent) { names.append(event.name) }
    }
    let (harness, ad) = try Self.single()
    let delegate = Delegate()
    ad.delegate = delegate
    let stream = ad.events
    // The synchronous form: in an async context `show(from:)` means the async one.
    func showNow() throws { try ad.show(from: Self.presenter) }
    try showNow()
    harness.settle()
    var streamed: [String] = []
    for await event in stream {
      streamed.append(event.name)
      if event.isTerminal { break }
    }
    #expect(streamed == ["shown", "revenue_paid", "rewarded", "closed"])
    #expect(delegate.names == ["shown", "revenue_paid", "rewarded", "closed"])
  }

  @Test func sameSeedSameSeededTransactionIDs() throws {
    func ids(seed: UInt64) throws -> [String] {
      let (harness, ad) = try Self.single(options: MediatorOptions(seed: seed, transactionIDs: .seeded))
      try ad.show(from: Self.presenter)
      harness.settle()
      return harness.recorder.events(zone: "z").compactMap {
        if case .rewarded(let r) = $0 { r.transactionID } else { nil }
      }
    }
    #expect(try ids(seed: 7) == ids(seed: 7))
    #expect(try ids(seed: 7) != ids(seed: 8))
  }

  @Test func tenThousandZonesLoadingAtOnceAllFinish() throws {
    let zones = (0..<10_000).map { zone([item("a", "p\($0 % 7)", ecpm: 1)], id: "z\($0)") }
    let harness = try Harness(
      zones: zones,
      scripts: [
        "a": Dictionary(
          uniqueKeysWithValues: (0..<7).map {
            ("p\($0)", [ScriptedAdapter.LoadScript.fill(after: .milliseconds(Int64($0 * 100)))])
          })
      ])
    for index in 0..<10_000 { try harness.mediator.rewardedAd(zone: "z\(index)").load() }
    harness.settle()
    let ready = harness.recorder.events.filter { $0.event.name == "ready" }
    #expect(Set(ready.map(\.zoneID)).count == 10_000)
    #expect(harness.recorder.events.count == 20_000)
  }
}

@Suite("Callbacks from another thread")
struct CrossThreadTests {
  /// An SDK that answers on its own queue: events still come out in order, on the scheduler,
  /// and the reward is granted once. The test drives virtual time and waits (bounded) for the
  /// other thread's callbacks to land, without sleeping.
  @Test func callbacksFromAnotherThreadAreHoppedOntoTheScheduler() throws {
    let queue = DispatchQueue(label: "sdk-callbacks")
    let harness = try Harness(zones: [zone([item("a", "a1", ecpm: 5)])]) { s in
      [
        ScriptedAdapter(
          id: "a", scheduler: s, loads: ["a1": [.fill(after: .seconds(1))]], callbackQueue: queue)
      ]
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    // Advance in small steps and let the SDK thread hand over its callbacks after each one, so
    // no timer can overtake a callback that is still on the other thread.
    func settle() {
      for _ in 0..<1_000 {
        harness.scheduler.advance(by: .milliseconds(100))
        queue.sync {}
      }
      harness.scheduler.runUntilIdle()
    }
    ad.load()
    settle()
    #expect(ad.isReady)
    try ad.show(from: HeadlessPresenter())
    settle()
    #expect(harness.names() == ["loading", "ready", "shown", "revenue_paid", "rewarded", "closed"])
    try RewardContract.verify(harness.recorder.events)
  }
}

@Suite("EventRecorder assertions")
struct RecorderAssertionTests {
  @Test func assertionsThrowWithWhatWasRecorded() throws {
    let (harness, ad) = try MediatorTests.single()
    try ad.show(from: HeadlessPresenter())
    harness.settle()
    try harness.recorder.expectNames(
      ["loading", "ready", "shown", "revenue_paid", "rewarded", "closed"], zone: "z")
    try harness.recorder.verifyContract()
    let mismatch = #expect(throws: EventMismatch.self) {
      try harness.recorder.expectNames(["loading"], zone: "z")
    }
    #expect(mismatch?.description.hasPrefix("zone 'z': expected events [\"loading\"], recorded") == true)
  }
}

@Suite("Event delivery is re-entrancy safe")
struct ReentrantDeliveryTests {
  /// A network whose every load fills a second later with the ad `makeAd` builds.
  final class OneAdNetwork: RewardedAdapter {
    let info: AdapterInfo
    let scheduler: any Scheduler
    private let makeAd: @Sendable () -> any AdapterAd

    init(id: NetworkID, scheduler: any Scheduler, makeAd: @escaping @Sendable () -> any AdapterAd) {
      self.info = AdapterInfo.testNetwork(id)
      self.scheduler = scheduler
      self.makeAd = makeAd
    }

    func start(
      _ request: AdapterStartRequest, completion: @escaping @Sendable (Result<Void, AdapterError>) -> Void
    ) {
      completion(.success(()))
    }

    func load(
      _ request: AdapterLoadRequest,
      completion: @escaping @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void
    ) -> Cancellable {
      scheduler.schedule(after: .seconds(1)) { [makeAd] in completion(.success(AdapterLoadedAd(ad: makeAd())))
      }
    }

    /// A mediator with one zone `z` over this network alone.
    func mediator() throws -> Mediator {
      let registry = try AdapterRegistry([AdapterRegistry.Registration(info: info) { [self] _ in self }])
      return try Mediator(
        config: MediationConfig(zones: [zone([item(info.id, "p", ecpm: 1)])]), registry: registry,
        scheduler: scheduler)
    }
  }

  /// An ad whose SDK reports the whole show synchronously from inside `show`.
  final class SynchronousAd: AdapterAd {
    func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {
      signals.send(.displayed)
      signals.send(.rewarded(nil))
      signals.send(.dismissed)
    }
    func discard() {}
  }

  /// The first subscriber shows the ad while `ready` is being delivered; the SDK answers at once,
  /// on the executor. Every subscriber must still see `ready` before `shown`, in the same order.
  @Test func eventsPublishedDuringDeliveryAreQueuedForEverySubscriber() throws {
    let scheduler = VirtualScheduler()
    let mediator = try OneAdNetwork(id: "sync", scheduler: scheduler) { SynchronousAd() }.mediator()
    let ad = try mediator.rewardedAd(zone: "z")
    mediator.observeEvents { event in
      if case .ready = event.event { try? ad.show(from: HeadlessPresenter()) }
    }
    let second = EventRecorder(mediator)
    ad.load()
    scheduler.run()
    #expect(second.names(zone: "z") == ["loading", "ready", "shown", "revenue_paid", "rewarded", "closed"])
  }

  /// What a ``KeptSinkAd``'s SDK keeps: every show's sink, so a test can send signals from
  /// inside event delivery, and how many ads were discarded.
  final class SinkLog: Sendable {
    let sinks = Locked<[AdapterSignal.Sink]>([])
    let discards = Locked(0)
  }

  /// An ad whose SDK reports displayed, rewarded and dismissed one second apart, and keeps the sink.
  final class KeptSinkAd: AdapterAd {
    let log: SinkLog
    let scheduler: any Scheduler
    init(log: SinkLog, scheduler: any Scheduler) {
      self.log = log
      self.scheduler = scheduler
    }
    func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {
      log.sinks.withLock { $0.append(signals) }
      scheduler.schedule(after: .seconds(1)) { signals.send(.displayed) }
      scheduler.schedule(after: .seconds(2)) { signals.send(.rewarded(nil)) }
      scheduler.schedule(after: .seconds(3)) { signals.send(.dismissed) }
    }
    func discard() { log.discards.withLock { $0 += 1 } }
  }

  /// While the show's `closed` is being delivered, the SDK reports the dismissal and the reward
  /// again (on the executor, at once). The show ends once: one `closed`, the late signals as
  /// diagnostics, the screen freed for the next show, and the ad discarded once, after the
  /// late-signal window.
  @Test func signalsDeliveredWhileTheShowEndsDoNotEndItTwice() throws {
    let scheduler = VirtualScheduler()
    let log = SinkLog()
    let mediator = try OneAdNetwork(id: "kept", scheduler: scheduler) {
      KeptSinkAd(log: log, scheduler: scheduler)
    }.mediator()
    let ad = try mediator.rewardedAd(zone: "z")
    let shows = Locked(0)
    mediator.observeEvents { event in
      switch event.event {
      case .ready:
        if shows.withLock({ $0 }) < 2 { try? ad.show(from: HeadlessPresenter()) }
      case .shown:
        shows.withLock { $0 += 1 }
      case .closed:
        let sink = log.sinks.withLock { $0.last }
        sink?.send(.dismissed)
        sink?.send(.rewarded(nil))
        ad.load()
      default: break
      }
    }
    let recorder = EventRecorder(mediator)
    ad.load()
    scheduler.advance(by: .seconds(30))
    let oneShow = [
      "loading", "ready", "shown", "revenue_paid", "rewarded", "closed", "diagnostic", "diagnostic",
    ]
    #expect(recorder.names(zone: "z") == oneShow + oneShow + ["loading", "ready"])
    let diagnostics = recorder.events(zone: "z").compactMap { event -> RewardedAdEvent.Diagnostic.Kind? in
      if case .diagnostic(let diagnostic) = event { return diagnostic.kind } else { return nil }
    }
    #expect(diagnostics == [.signalAfterTerminal, .duplicateReward, .signalAfterTerminal, .duplicateReward])
    #expect(log.discards.withLock { $0 } == 0)
    scheduler.advance(by: .seconds(60))
    #expect(log.discards.withLock { $0 } == 2)
    try recorder.verifyContract(requireFinished: false)
  }
}
