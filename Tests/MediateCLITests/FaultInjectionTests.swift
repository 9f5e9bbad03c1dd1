import Dispatch
import MediateCLI
import MediationKit
import MediationKitTesting
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Every built-in network × every fault, through a real mediator on virtual time: no hang, no
/// double grant, no lost reward, the reward contract holds and the next load still works.
@Suite("Fault injection (built-in networks × faults)")
struct FaultInjectionTests {
  static let grace = Duration.seconds(5)
  static let displayTimeout = MediatorOptions().displayTimeout
  static let loadBudget = Duration.seconds(30)
  static let seeds: ClosedRange<UInt64> = 1...20

  static let networks: [NetworkID] = BuiltInNetworks.registry().all.map(\.info.id)

  /// What a row of the table does to the network.
  enum Scenario: Sendable, Equatable, CustomStringConvertible {
    case fault(Fault)
    /// No fault; the app drops its `RewardedAd`, delegate and subscription while the ad is on screen.
    case observerReleasedMidShow

    static let all: [Scenario] =
      Fault.catalogue(rewardGrace: FaultInjectionTests.grace).map(Scenario.fault) + [.observerReleasedMidShow]

    var fault: Fault {
      if case .fault(let fault) = self { return fault }
      return .none
    }

    var description: String {
      switch self {
      case .fault(let fault): fault.description
      case .observerReleasedMidShow: "observer released mid-show"
      }
    }
  }

  // MARK: The table

  @Test(arguments: networks, Scenario.all)
  func survives(network: NetworkID, scenario: Scenario) throws {
    var firstFills = 0
    var nextFills = 0
    var rewardsBeforeDismissal = 0
    for seed in Self.seeds {
      let run = try Harness(network: network, fault: scenario.fault, seed: seed)
      let context = "\(network) · \(scenario) · seed \(seed)"

      // First cycle, under the fault.
      let first = try run.loadAndShow(context, releasingObserverMidShow: scenario == .observerReleasedMidShow)
      if first.filled { firstFills += 1 }
      let received = run.adapter.receivedSignals
      if Harness.rewardPrecedesDismissal(received) { rewardsBeforeDismissal += 1 }
      try checkFault(scenario.fault, run: run, cycle: first, received: received, context)

      // Cross-thread delivery must not change the timeline: same seed, no fault, same events.
      if scenario.fault == .callbacksFromAnotherThread {
        let baseline = try Harness(network: network, fault: .none, seed: seed)
        _ = try baseline.loadAndShow(context + " (baseline)")
        #expect(run.recorder.events == baseline.recorder.events, "\(context)")
      }

      // Heal the network; the next load still works.
      run.adapter.fault = .none
      run.adapter.resetTrace()
      let next = try run.loadAndShow(context + " (next load)")
      if next.filled { nextFills += 1 }
      if scenario.fault == .startNeverAnswers {
        // Its start-up timed out, so the zone skips it: the load fails at once, and says why.
        #expect(!next.filled, "\(context)")
        if case .failed(let error)? = next.outcome {
          #expect(error.waterfall.contains { "\($0)".contains("start timed out") }, "\(context): \(error)")
        }
      }

      // Nothing is left on screen and the clock drains.
      #expect(!run.mediator.isAnyAdShowing, "\(context)")
      #expect(
        run.scheduler.run(until: run.scheduler.now + .seconds(7200)), "\(context): the clock never drains")
      try RewardContract.verify(run.recorder.events)
    }
    let context = "\(network) · \(scenario)"
    switch scenario.fault {
    // A network whose start never completes never gets a load: no seed fills.
    case .loadNeverAnswers, .loadFails, .startNeverAnswers: #expect(firstFills == 0, "\(context)")
    default: #expect(firstFills > 0, "\(context): no seed filled; the fault was never exercised")
    }
    if scenario.fault != .startNeverAnswers {
      #expect(nextFills > 0, "\(context): the healed network never filled again")
    }
    if case .rewardAfterDismissal = scenario.fault {
      #expect(rewardsBeforeDismissal > 0, "\(context): no seed rewarded before dismissal")
    }
  }

  /// What each fault must lead to, on top of the generic checks of ``Harness/loadAndShow``.
  private func checkFault(
    _ fault: Fault, run: Harness, cycle: Harness.Cycle, received: [AdapterSignal], _ context: String
  ) throws {
    let names = cycle.showEvents.map(\.name)
    let diagnostics = cycle.showEvents.compactMap { event -> RewardedAdEvent.Diagnostic.Kind? in
      if case .diagnostic(let diagnostic) = event { return diagnostic.kind }
      return nil
    }
    switch fault {
    case .none, .callbacksFromAnotherThread:
      break
    case .startNeverAnswers:
      // The load waited for the start, never reached the SDK, and says so: the start timed out
      // (or the line item's timeout ended first).
      guard case .failed(let error)? = cycle.outcome else {
        Issue.record("\(context): the load did not fail: \(String(describing: cycle.outcome))")
        return
      }
      #expect(error.waterfall.map(\.state) == [.notStarted], "\(context): \(error)")
      #expect(
        error.waterfall.first?.error?.hasPrefix("adapter start ") == true, "\(context): \(error)")
    case .loadNeverAnswers, .loadFails:
      guard case .failed? = cycle.outcome else {
        Issue.record("\(context): the load did not fail: \(String(describing: cycle.outcome))")
        return
      }
    case .duplicateCallbacks:
      if received.contains(where: { if case .rewarded = $0 { true } else { false } }) {
        #expect(diagnostics.contains(.duplicateReward), "\(context): \(names)")
        #expect(names.filter { $0 == "rewarded" }.count == 1, "\(context): \(names)")
      }
    case .showNeverAnswers:
      guard cycle.filled else { return }
      #expect(names == ["show_failed"], "\(context): \(names)")
      if case .showFailed(let error)? = cycle.showEvents.first {
        #expect(error.code == .displayTimeout, "\(context)")
      }
      #expect(cycle.terminalTime == cycle.showAt + Self.displayTimeout, "\(context)")
    case .displayFails:
      guard cycle.filled else { return }
      #expect(names == ["show_failed"], "\(context): \(names)")
    case .dismissalWithoutDisplay:
      guard cycle.filled, received.contains(.displayed), received.count > 1 else { return }
      if Harness.predict(run.adapter.deliveredSignals, showAt: cycle.showAt) != .showFailed {
        #expect(diagnostics.contains(.impliedDisplay), "\(context): \(names)")
      } else {
        // Only when nothing at all came within the display timeout, which is longer than any of
        // the simulated networks' videos: then the show has failed and nothing was earned yet.
        #expect(!received.contains { if case .rewarded = $0 { true } else { false } }, "\(context): \(names)")
      }
    case .rewardAfterDismissal(let delay):
      guard cycle.filled, Harness.rewardPrecedesDismissal(received) else { return }
      if delay < Self.grace {
        #expect(
          Array(names.filter { $0 != "diagnostic" }.suffix(2)) == ["rewarded", "closed"],
          "\(context): \(names)")
      } else {
        #expect(names.last { $0 != "diagnostic" } == "skipped", "\(context): \(names)")
        #expect(!names.contains("rewarded"), "\(context): \(names)")
        #expect(diagnostics.contains(.lateReward), "\(context): \(names)")
      }
    }
  }

  // MARK: Expired ad

  @Test(arguments: networks)
  func anExpiredAdThrowsAndTheNextLoadWorks(network: NetworkID) throws {
    var nextFills = 0
    for seed in Self.seeds {
      let run = try Harness(network: network, fault: .none, seed: seed, adExpirySeconds: 120)
      let context = "\(network) · seed \(seed)"
      let ad = try run.mediator.rewardedAd(zone: Harness.zoneID)
      ad.load()
      run.scheduler.run(until: run.scheduler.now + Self.loadBudget)
      guard ad.isReady else { continue }
      run.scheduler.advance(by: .seconds(121))
      #expect(!ad.isReady, "\(context)")
      #expect(run.recorder.names(zone: Harness.zoneID).last == "expired", "\(context)")
      do {
        try ad.show(from: HeadlessPresenter())
        Issue.record("\(context): showing an expired ad did not throw")
      } catch {
        #expect(error.code == .expired, "\(context): \(error)")
      }
      let next = try run.loadAndShow(context + " (next load)")
      if next.filled { nextFills += 1 }
      try RewardContract.verify(run.recorder.events)
    }
    #expect(nextFills > 0, "\(network): no seed filled after expiry")
  }

  // MARK: The harness's own oracle

  @Test func faultCatalogueCoversEveryFault() {
    let faults = Fault.catalogue(rewardGrace: Self.grace)
    #expect(faults.count == 10)
    #expect(!faults.contains(.none))
    #expect(faults.contains(.rewardAfterDismissal(delay: .milliseconds(2500))))
    #expect(faults.contains(.rewardAfterDismissal(delay: .seconds(10))))
  }
}

/// One mediator with one zone whose single line item is `network`, wrapped in a fault.
struct Harness {
  static let zoneID = "faulty"
  static let placements: [NetworkID: String] = [
    "empower": "emp-test", "max": "0123456789abcdef", "google": "ca-app-pub-3940256099942544/1712485313",
  ]

  /// What one load (and its show, if it filled) did.
  struct Cycle {
    var outcome: RewardedAdEvent?
    var filled: Bool { if case .ready? = outcome { true } else { false } }
    var showAt: Duration = .zero
    /// The zone's events from the show call on.
    var showEvents: [RewardedAdEvent] = []
    var terminalTime: Duration?
  }

  let scheduler = VirtualScheduler()
  let mediator: Mediator
  let recorder: EventRecorder
  let adapter: FaultInjectingAdapter
  let zone: ZoneConfig

  init(network: NetworkID, fault: Fault, seed: UInt64, adExpirySeconds: Double = 3600) throws {
    let registration = try BuiltInNetworks.registry().registration(for: network)
    let registry = try AdapterRegistry([FaultInjection.registration(wrapping: registration, fault: fault)])
    zone = ZoneConfig(
      id: Self.zoneID, reward: ZoneConfig.RewardConfig(type: "coins", amount: 10),
      lineItems: [
        ZoneConfig.LineItem(
          network: network, placementId: Self.placements[network] ?? "p", priority: 0, ecpm: 10)
      ],
      loadTimeoutSeconds: FaultInjectionTests.loadBudget.seconds, adExpirySeconds: adExpirySeconds,
      rewardGraceSeconds: FaultInjectionTests.grace.seconds, autoReload: false)
    mediator = try Mediator(
      config: MediationConfig(zones: [zone]), registry: registry, scheduler: scheduler,
      options: MediatorOptions(
        displayTimeout: FaultInjectionTests.displayTimeout, seed: seed, transactionIDs: .seeded))
    recorder = EventRecorder(mediator)
    guard let adapter = mediator.madeAdapter(for: network) as? FaultInjectingAdapter else {
      throw HarnessError.notWrapped(network)
    }
    self.adapter = adapter
  }

  enum HarnessError: Error { case notWrapped(NetworkID) }

  /// Drives the clock until `done` holds or it would pass `deadline`. Bounded: cross-thread
  /// callbacks reach the scheduler before their caller returns, so one pass normally suffices;
  /// the extra passes are a safety net.
  func drive(until deadline: Duration, _ done: () -> Bool) {
    for _ in 0..<4 {
      scheduler.run(until: deadline)
      if done() { return }
    }
  }

  /// Loads; checks the load ends once, within the budget; shows if it filled and checks the show
  /// ends in exactly one terminal event, without a double grant or a lost reward.
  func loadAndShow(_ context: String, releasingObserverMidShow: Bool = false) throws -> Cycle {
    var cycle = Cycle()
    let start = recorder.events.count
    let loadAt = scheduler.now
    var app: ObservingApp? = try ObservingApp(mediator: mediator)
    app?.ad.load()
    drive(until: loadAt + FaultInjectionTests.loadBudget) {
      recorder.events.dropFirst(start).contains { $0.event.name == "ready" || $0.event.name == "failed" }
    }
    let outcomes = recorder.events.dropFirst(start).filter {
      $0.event.name == "ready" || $0.event.name == "failed"
    }
    #expect(
      outcomes.count == 1, "\(context): the load did not end exactly once: \(outcomes.map(\.event.name))")
    if let end = outcomes.first {
      #expect(end.time - loadAt <= FaultInjectionTests.loadBudget, "\(context): the load outran its budget")
    }
    cycle.outcome = outcomes.first?.event
    guard cycle.filled else { return cycle }

    let showStart = recorder.events.count
    cycle.showAt = scheduler.now
    try app?.ad.show(from: HeadlessPresenter())
    let isTerminal = { recorder.events.dropFirst(showStart).contains { $0.event.isTerminal } }
    if releasingObserverMidShow {
      // Let the ad reach the screen, then drop the facade, its delegate and the subscription.
      for _ in 0..<200
      where !recorder.events.dropFirst(showStart).contains(where: { $0.event.name == "shown" }) {
        scheduler.advance(by: .milliseconds(50))
      }
      let onScreen = !isTerminal()
      weak let facade = app?.ad
      weak let delegate = app?.delegate
      app = nil
      #expect(facade == nil && delegate == nil, "\(context): the mediator kept the app's objects alive")
      if onScreen { #expect(mediator.isAnyAdShowing, "\(context)") }
    }
    // Long enough for the display timeout, the grace window, a reward delayed beyond it and the
    // late-signal window.
    drive(until: cycle.showAt + .seconds(300), isTerminal)
    let showEvents = recorder.events.dropFirst(showStart)
    cycle.showEvents = showEvents.map(\.event)
    cycle.terminalTime = showEvents.first { $0.event.isTerminal }?.time
    let names = cycle.showEvents.map(\.name)
    #expect(
      names.filter { ["closed", "skipped", "show_failed"].contains($0) }.count == 1, "\(context): \(names)")
    #expect(names.filter { $0 == "rewarded" }.count <= 1, "\(context): double grant: \(names)")
    #expect(!mediator.isAnyAdShowing, "\(context): the screen was never released")

    // No lost reward: what the core was handed decides the outcome.
    if let expected = Self.predict(adapter.deliveredSignals, showAt: cycle.showAt) {
      let mainNames = names.filter { $0 != "diagnostic" && $0 != "revenue_paid" && $0 != "clicked" }
      switch expected {
      case .showFailed: #expect(mainNames.last == "show_failed", "\(context): \(names)")
      case .rewardedThenClosed:
        #expect(Array(mainNames.suffix(2)) == ["rewarded", "closed"], "\(context): lost reward? \(names)")
      case .skipped(let late):
        #expect(mainNames.last == "skipped" && !mainNames.contains("rewarded"), "\(context): \(names)")
        if late {
          let lateReward = cycle.showEvents.contains {
            if case .diagnostic(let diagnostic) = $0 { diagnostic.kind == .lateReward } else { false }
          }
          #expect(lateReward, "\(context): no late_reward diagnostic: \(names)")
        }
      }
    }
    try RewardContract.verify(recorder.events)
    return cycle
  }

  /// What the core must make of a show's delivered signals.
  enum Prediction: Equatable {
    case showFailed
    case rewardedThenClosed
    case skipped(lateReward: Bool)
  }

  /// Predicts a show's outcome from the signals handed to the core, mirroring the reward contract (rules 3 and 4); `nil`
  /// when a signal lands exactly on a timer's deadline (order decides) or the show never ends.
  static func predict(_ delivered: [FaultInjectingAdapter.TimedSignal], showAt: Duration) -> Prediction? {
    let displayTimeout = FaultInjectionTests.displayTimeout
    let grace = FaultInjectionTests.grace
    guard let first = delivered.first, first.time - showAt < displayTimeout else {
      return delivered.first?.time == showAt + displayTimeout ? nil : .showFailed
    }
    if case .showFailed = first.signal { return .showFailed }
    var rewarded = false
    var dismissedAt: Duration?
    for item in delivered {
      switch item.signal {
      case .rewarded:
        guard let dismissedAt else {
          rewarded = true
          continue
        }
        let wait = item.time - dismissedAt
        if wait == grace { return nil }
        return wait < grace ? .rewardedThenClosed : .skipped(lateReward: true)
      case .dismissed, .showFailed:
        if dismissedAt == nil {
          if rewarded { return .rewardedThenClosed }
          dismissedAt = item.time
        }
      case .displayed, .clicked, .revenuePaid:
        break
      }
    }
    return dismissedAt == nil ? nil : .skipped(lateReward: false)
  }

  /// Whether the network itself reported the reward before the first dismissal.
  static func rewardPrecedesDismissal(_ signals: [AdapterSignal]) -> Bool {
    guard let reward = signals.firstIndex(where: { if case .rewarded = $0 { true } else { false } }) else {
      return false
    }
    guard let dismissal = signals.firstIndex(of: .dismissed) else { return true }
    return reward < dismissal
  }
}

/// What an app holds: the zone's facade, a delegate and an event subscription.
final class ObservingApp {
  final class Delegate: RewardedAd.Delegate {
    var count = 0
    func rewardedAd(_ ad: RewardedAd, didReceive event: RewardedAdEvent) { count += 1 }
  }

  let ad: RewardedAd
  let delegate = Delegate()
  let subscription: Cancellable

  init(mediator: Mediator) throws {
    ad = try mediator.rewardedAd(zone: Harness.zoneID)
    // The delegate is set on the main actor, as an app does; the fault tests run off the main
    // thread (they never run on it, so this cannot wait on itself), and the main queue is served.
    let (ad, delegate) = (ad, delegate)
    DispatchQueue.main.sync { MainActor.assumeIsolated { ad.delegate = delegate } }
    subscription = mediator.observeEvents { _ in }
  }

  deinit { subscription.cancel() }
}

/// The fault injector itself, and what it found in the core, on a fully scripted network.
@Suite("Fault injection (scripted network)")
struct FaultInjectionScriptedTests {
  static let zone = ZoneConfig(
    id: "z", reward: ZoneConfig.RewardConfig(type: "coins", amount: 1),
    lineItems: [ZoneConfig.LineItem(network: "scripted", placementId: "p", priority: 0, ecpm: 1)],
    autoReload: false)

  static func mediator(_ scripted: ScriptedAdapter, fault: Fault, scheduler: VirtualScheduler) throws -> (
    Mediator, EventRecorder, RewardedAd
  ) {
    let registry = try AdapterRegistry([
      FaultInjection.registration(wrapping: scripted.registration, fault: fault)
    ])
    let mediator = try Mediator(
      config: MediationConfig(zones: [zone]), registry: registry, scheduler: scheduler)
    return (mediator, EventRecorder(mediator), try mediator.rewardedAd(zone: zone.id))
  }

  @Test func callbacksReallyComeFromAnotherThread() {
    let scheduler = VirtualScheduler()
    let scripted = ScriptedAdapter(
      id: "scripted", scheduler: scheduler, loads: ["p": [.fill(after: .seconds(1))]])
    let adapter = FaultInjectingAdapter(
      wrapping: scripted, fault: .callbacksFromAnotherThread, scheduler: scheduler)
    let threads = Locked<[UInt]>([])
    let request = AdapterLoadRequest(
      zoneID: "z", placementID: "p", ecpm: 1, reward: AdapterSignal.NetworkReward(type: "coins", amount: 1))
    _ = adapter.load(request) { _ in threads.withLock { $0.append(Self.currentThread) } }
    scheduler.run()
    // The hop hands the callback over before its caller returns, so one run sees it.
    #expect(threads.withLock { $0.count } == 1)
    #expect(threads.withLock { $0.first } != Self.currentThread)
  }

  #if canImport(Darwin)
    // Darwin's `pthread_t` is a pointer, Glibc's an integer.
    private static var currentThread: UInt { UInt(bitPattern: pthread_self()) }
  #else
    private static var currentThread: UInt { UInt(pthread_self()) }
  #endif

  @Test func privacyChangesReachTheWrappedAdapterUnperturbed() {
    let scheduler = VirtualScheduler()
    let scripted = ScriptedAdapter(id: "scripted", scheduler: scheduler, loads: [:])
    for fault in Fault.catalogue(rewardGrace: .seconds(5)) {
      let adapter = FaultInjectingAdapter(wrapping: scripted, fault: fault, scheduler: scheduler)
      let privacy = PrivacySettings(doNotSell: true, iab: IABConsent(usPrivacyString: "1YYN"))
      adapter.privacyDidChange(privacy)
      #expect(scripted.privacyChanges.last == privacy, "\(fault)")
    }
  }

  @Test func rewardHeldPastTheDismissalInsideAndBeyondTheGraceWindow() throws {
    for (delay, expected) in [
      (Duration.seconds(2), ["loading", "ready", "shown", "revenue_paid", "rewarded", "closed"]),
      (.seconds(8), ["loading", "ready", "shown", "revenue_paid", "skipped", "diagnostic"]),
    ] {
      let scheduler = VirtualScheduler()
      let scripted = ScriptedAdapter(
        id: "scripted", scheduler: scheduler, loads: ["p": [.fill(after: .seconds(1))]])
      let (_, recorder, ad) = try Self.mediator(
        scripted, fault: .rewardAfterDismissal(delay: delay), scheduler: scheduler)
      ad.load()
      scheduler.run(until: .seconds(5))
      try ad.show(from: HeadlessPresenter())
      scheduler.run()
      #expect(recorder.names(zone: "z") == expected, "delay \(delay)")
      try RewardContract.verify(recorder.events)
    }
  }

  /// Core finding 1 (fixed): a duplicate load completion must not discard the ad that is ready
  /// (the same object); it is ignored with a `duplicate_signal` diagnostic, and the ad is discarded
  /// once, after its show.
  @Test func duplicateLoadCompletionDoesNotDiscardTheReadyAd() throws {
    let scheduler = VirtualScheduler()
    let scripted = ScriptedAdapter(
      id: "scripted", scheduler: scheduler, loads: ["p": [.fill(after: .seconds(1))]])
    let (_, recorder, ad) = try Self.mediator(scripted, fault: .duplicateCallbacks, scheduler: scheduler)
    ad.load()
    scheduler.run(until: .seconds(5))
    #expect(ad.isReady)
    #expect(scripted.discardedAds == 0, "the ready ad was discarded before its show")
    let diagnostics = recorder.events(zone: "z").compactMap { event -> RewardedAdEvent.Diagnostic.Kind? in
      if case .diagnostic(let diagnostic) = event { diagnostic.kind } else { nil }
    }
    #expect(diagnostics == [.duplicateSignal], "\(recorder.names(zone: "z"))")
    try ad.show(from: HeadlessPresenter())
    scheduler.run()
    #expect(scripted.discardedAds == 1)
  }

  /// Core finding 2 (fixed): an SDK that displays the ad but never reports the dismissal must not
  /// keep the show open for ever: the maximum show duration ends it as dismissed.
  @Test func aShowWhoseDismissalNeverComesStillEnds() throws {
    let scheduler = VirtualScheduler()
    let scripted = ScriptedAdapter(
      id: "scripted", scheduler: scheduler, loads: ["p": [.fill(after: .seconds(1))]],
      show: .init([(.zero, .displayed), (.seconds(3), .rewarded(nil))]))
    let (mediator, recorder, ad) = try Self.mediator(scripted, fault: .none, scheduler: scheduler)
    ad.load()
    scheduler.run(until: .seconds(5))
    try ad.show(from: HeadlessPresenter())
    #expect(scheduler.run(until: .seconds(86_400)), "the clock drains")
    #expect(recorder.events(zone: "z").contains { $0.isTerminal }, "\(recorder.names(zone: "z"))")
    #expect(!mediator.isAnyAdShowing)
    #expect(Array(recorder.names(zone: "z").suffix(3)) == ["rewarded", "diagnostic", "closed"])
  }

  /// Core finding 3 (fixed by a display timeout longer than a video): when the SDK never reports
  /// the display, its later reward implies it and is granted, not lost.
  @Test func aRewardAfterAnUnreportedDisplayIsNotLost() throws {
    let scheduler = VirtualScheduler()
    let scripted = ScriptedAdapter(
      id: "scripted", scheduler: scheduler, loads: ["p": [.fill(after: .seconds(1))]])
    let (_, recorder, ad) = try Self.mediator(scripted, fault: .dismissalWithoutDisplay, scheduler: scheduler)
    ad.load()
    scheduler.run(until: .seconds(5))
    try ad.show(from: HeadlessPresenter())
    scheduler.run()
    // ScriptedShow.completes: displayed (dropped) at 0 s, rewarded at 30 s, dismissed at 31 s —
    // all inside the display timeout (45 s), so the reward implies the display and is granted.
    let names = recorder.names(zone: "z")
    #expect(!names.contains("show_failed"), "\(names)")
    #expect(
      names.filter { $0 != "diagnostic" }.suffix(3) == ["revenue_paid", "rewarded", "closed"], "\(names)")
  }
}
