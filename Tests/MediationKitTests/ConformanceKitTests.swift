import MediationKit
import MediationKitTesting
import Testing

/// The conformance kit fails the adapters it exists to catch, and says which scenarios ran.
@Suite("Conformance kit scenarios")
struct ConformanceKitTests {
  private func check(
    _ make: @escaping @Sendable (any Scheduler) -> any RewardedAdapter, id: NetworkID = "probe",
    capabilities: Set<AdapterInfo.Capability> = [.rewarded],
    lateCallbacks: AdapterConformance.LateCallbacks? = nil
  ) -> AdapterConformance.Report {
    var info = AdapterInfo.testNetwork(id, displayName: "Probe")
    info.capabilities = capabilities
    let registration = AdapterRegistry.Registration(info: info) { make($0.scheduler) }
    return AdapterConformance.check(
      registration, placementID: "p", seeds: 1...3, lateCallbacks: lateCallbacks)
  }

  /// A network that fills every load of either conformance placement after 100 ms, and starts in
  /// `start`.
  private func slowStarter(_ scheduler: any Scheduler, start: ScriptedAdapter.StartScript) -> ScriptedAdapter
  {
    let fills: [ScriptedAdapter.LoadScript] = [.fill(after: .milliseconds(100))]
    return ScriptedAdapter(
      id: "probe", scheduler: scheduler, loads: ["p": fills, "p-b": fills], start: start)
  }

  @Test func aLoadDuringASlowStartWaitsForItAndEndsOnce() {
    let report = check { slowStarter($0, start: .succeed(after: .seconds(2))) }
    #expect(report.passed, "\(report)")
    let scenario = report.scenarios.first { $0.name == "loads during start" }
    #expect(scenario?.ran == true)
    #expect(scenario?.note == #"loaded at once; the start completed, the load ended ["ready"]"#)
  }

  @Test func aLoadDuringAStartThatNeverAnswersEndsOnceAsFailed() {
    let info = AdapterInfo.testNetwork("probe", displayName: "Probe")
    let registration = FaultInjection.registration(
      wrapping: AdapterRegistry.Registration(info: info) {
        slowStarter($0.scheduler, start: .succeed(after: .zero))
      },
      fault: .startNeverAnswers)
    let report = AdapterConformance.check(registration, placementID: "p", seeds: 1...3)
    #expect(!report.violations.contains { $0.invariant == .noLoadBeforeStart }, "\(report)")
    #expect(!report.violations.contains { $0.invariant == .loadEndsOnceWithinBudget }, "\(report)")
    let scenario = report.scenarios.first { $0.name == "loads during start" }
    #expect(scenario?.note == #"loaded at once; the start never completed, the load ended ["failed"]"#)
  }

  private let deliverLate = AdapterConformance.LateCallbacks { adapter in
    (adapter as? InstantAdapter)?.log?.deliverLateCallbacksOfPreviousShow()
  }

  /// A global-listener adapter whose late callbacks go to the previous show, or the latest.
  private func oneListener(_ scheduler: any Scheduler, misroutes: Bool, rewardOnly: Bool = false)
    -> InstantAdapter
  {
    let log = ShowLog(misroutes: misroutes, rewardOnly: rewardOnly)
    return InstantAdapter(log: log) { PlayedAd(scheduler: scheduler, log: log) }
  }

  private static let globalListener: Set<AdapterInfo.Capability> = [.rewarded, .globalListener]

  @Test func aMisroutingGlobalListenerAdapterCheckedWithoutTheHookFails() {
    let report = check({ oneListener($0, misroutes: true) }, capabilities: Self.globalListener)
    #expect(!report.passed, "\(report)")
    #expect(report.violations.map(\.invariant) == [.lateCallbacksChecked], "\(report)")
    #expect(report.violations.first?.detail.contains("declares globalListener") == true)
    #expect(!report.description.contains("conforms"))
  }

  @Test func anAvailabilityAdapterCheckedWithoutTheHookFails() {
    let report = check(
      { oneListener($0, misroutes: false) }, capabilities: [.rewarded, .availabilityFlag])
    #expect(report.violations.map(\.invariant) == [.lateCallbacksChecked], "\(report)")
  }

  @Test func aHookThatDeliversNothingFails() {
    let report = check(
      { oneListener($0, misroutes: false) }, capabilities: Self.globalListener,
      lateCallbacks: AdapterConformance.LateCallbacks { _ in })
    #expect(!report.passed)
    #expect(report.violations.map(\.invariant) == [.lateCallbacksChecked], "\(report)")
    #expect(report.violations.first?.detail.contains("delivered nothing") == true)
  }

  @Test func aCorrectGlobalListenerAdapterGivenOnlyALateRewardPasses() {
    let report = check(
      { oneListener($0, misroutes: false, rewardOnly: true) }, capabilities: Self.globalListener,
      lateCallbacks: deliverLate)
    #expect(report.passed, "\(report)")
    let late = report.scenarios.first { $0.name == "late callbacks across back-to-back shows" }
    #expect(late?.note.hasPrefix("1 late callbacks reached the first show, 0 the second") == true)
  }

  @Test func aMisroutingGlobalListenerAdapterGivenOnlyALateRewardFails() {
    let report = check(
      { oneListener($0, misroutes: true, rewardOnly: true) }, capabilities: Self.globalListener,
      lateCallbacks: deliverLate)
    #expect(report.violations.map(\.invariant) == [.lateSignalsReachTheirShow], "\(report)")
  }

  @Test func anAdLeftReadyAfterAnotherZoneUsedTheSDKAdFailsTheKit() {
    // One SDK ad per placement, as availability SDKs keep: every load's object stands for it; a
    // show uses it, and a later show of another object finds none and fails `not_ready`.
    // An availability adapter: it declares so (and, without a late-callback hook, fails that too).
    let report = check(
      { scheduler in
        let sdk = OneSDKAd()
        return InstantAdapter { SharedSDKAd(scheduler: scheduler, sdk: sdk) }
      }, capabilities: [.rewarded, .availabilityFlag])
    #expect(report.violations.map(\.invariant) == [.lateCallbacksChecked, .goneAdsWithdrawn], "\(report)")
    let gone = report.violations.first { $0.invariant == .goneAdsWithdrawn }
    #expect(gone?.scenario == "ad withdrawn before show")
    #expect(gone?.detail.contains("another zone's show used the SDK's ad") == true)
  }

  /// The check does not depend on what the adapter declares: an SDK that keeps one ad per
  /// placement (as Empower and MAX do) leaves the other zone's ad gone, whatever the capabilities.
  @Test func anAdLeftReadyAfterAnotherZoneUsedTheSDKAdFailsTheKitWhateverItDeclares() {
    let report = check { scheduler in
      let sdk = OneSDKAd()
      return InstantAdapter { SharedSDKAd(scheduler: scheduler, sdk: sdk) }
    }
    #expect(report.violations.map(\.invariant) == [.goneAdsWithdrawn], "\(report)")
    #expect(report.violations.first?.scenario == "ad withdrawn before show")
  }

  /// The same SDK, with an adapter that withdraws every other load's ad when a show uses the
  /// placement's one ad: it passes.
  @Test func anAdapterThatWithdrawsTheUsedSharedAdPasses() {
    let report = check { WithdrawingOneAdAdapter(scheduler: $0) }
    #expect(report.passed, "\(report)")
    #expect(report.scenarios.first { $0.name == "ad withdrawn before show" }?.ran == true)
  }

  @Test func aLateRewardHandedToTheNextShowFailsTheKit() {
    let report = check({ oneListener($0, misroutes: true) }, lateCallbacks: deliverLate)
    #expect(report.violations.map(\.invariant) == [.lateSignalsReachTheirShow], "\(report)")
    #expect(report.violations.first?.detail.contains("went to the second show") == true)
  }

  @Test func aLateRewardRoutedToItsOwnShowPasses() {
    let report = check({ oneListener($0, misroutes: false) }, lateCallbacks: deliverLate)
    #expect(report.passed, "\(report)")
    let late = report.scenarios.first { $0.name == "late callbacks across back-to-back shows" }
    #expect(late?.ran == true)
    #expect(late?.note.hasPrefix("2 late callbacks reached the first show, 0 the second") == true)
  }

  @Test func withoutLateCallbacksTheCheckIsReportedNotRun() {
    let report = check { oneListener($0, misroutes: true) }
    #expect(report.passed)
    // The probe does not adopt ConsentReadBack either, so consent forwarding is not run.
    #expect(report.notRun.map(\.name) == ["consent forwarding", "late callbacks across back-to-back shows"])
    #expect(
      report.description.contains(
        "late callbacks across back-to-back shows: NOT RUN — no lateCallbacks given"))
    #expect(report.scenarios.first { $0.name == "back-to-back shows" }?.ran == true)
  }

  @Test func oneAdObjectForTwoLoadsFailsTheKit() {
    // One object for every load, as a naive availability adapter might.
    let report = check { scheduler in
      let shared = CompletingAd(scheduler: scheduler)
      return InstantAdapter { shared }
    }
    #expect(report.violations.map(\.invariant).contains(.sharedAdNeverDoubleGrants), "\(report)")
  }

  @Test func anAdTheSDKLostSilentlyFailsTheKit() {
    // Its SDK forgets each ad after an hour without telling anyone; a later show fails `expired`.
    let report = check { scheduler in
      InstantAdapter { CompletingAd(scheduler: scheduler, forgottenAfter: .seconds(3600)) }
    }
    #expect(report.violations.map(\.invariant) == [.goneAdsWithdrawn], "\(report)")
  }

  @Test func anAdTheSDKWithdrawsPasses() {
    let report = check {
      ScriptedAdapter(
        id: "probe", scheduler: $0,
        loads: [
          "p": [
            .fillThenWithdraw(
              after: .zero, withdrawnAfter: .seconds(3600), AdapterWithdrawal(.expired, message: "1 h passed")
            )
          ]
        ])
    }
    #expect(report.passed, "\(report)")
    let scenario = report.scenarios.first { $0.name == "ad withdrawn before show" }
    #expect(scenario?.ran == true)
    #expect(scenario?.note.contains("withdrew its ad") == true)
  }

  @Test func anAdWhoseOwnLifetimeEndsIsExpiredByTheZoneNotWithdrawn() {
    let report = check {
      ScriptedAdapter(
        id: "probe", scheduler: $0, loads: ["p": [.fill(after: .zero, lifetime: .seconds(3600))]])
    }
    #expect(report.passed, "\(report)")
    let scenario = report.scenarios.first { $0.name == "ad withdrawn before show" }
    #expect(
      scenario?.note == "the ad's own lifetime ended 3600.0 seconds after it was ready; the zone expired it")
  }

  @Test func aNetworkThatNeverFillsSaysWhichScenariosCouldNotRun() {
    let report = check { ScriptedAdapter(id: "probe", scheduler: $0, loads: [:]) }
    #expect(report.passed)
    #expect(
      report.notRun.map(\.name) == [
        "another ad showing", "back-to-back shows", "two zones, one SDK ad", "ad withdrawn before show",
      ])
    #expect(report.notRun.allSatisfy { !$0.note.isEmpty })
  }
}

@Suite("SignalRecorder")
struct SignalRecorderTests {
  @Test func eachSinkNamesAShowOfItsOwnAndKeepsItsSignals() {
    let recorder = SignalRecorder(zoneID: "z")
    let first = recorder.sink
    let second = recorder.sink
    #expect(first.show == AdapterSignal.Sink.ShowID(zoneID: "z", number: 1))
    #expect(second.show == AdapterSignal.Sink.ShowID(zoneID: "z", number: 2))
    first.send(.displayed)
    second.send(.displayed)
    first.send(.rewarded(nil))
    #expect(recorder.signals == [.displayed, .displayed, .rewarded(nil)])
    #expect(recorder.signals(show: first.show) == [.displayed, .rewarded(nil)])
    #expect(recorder.signals(show: second.show) == [.displayed])
    #expect(SignalRecorder().sink.show.description == "recorded#1")
  }
}

/// Answers every load at once with `makeAd()`.
private final class InstantAdapter: RewardedAdapter {
  let info = AdapterInfo.testNetwork("probe", displayName: "Probe")
  /// The shows' sinks, when its ads are ``PlayedAd``s.
  let log: ShowLog?
  private let makeAd: @Sendable () -> any AdapterAd

  init(log: ShowLog? = nil, makeAd: @escaping @Sendable () -> any AdapterAd) {
    self.log = log
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
    completion(.success(AdapterLoadedAd(ad: makeAd())))
    return .none
  }
}

/// Like an SDK with one listener, remembers the shows' sinks: its late callbacks go to the show
/// before the last — or, when it `misroutes`, to the latest show.
private final class ShowLog: Sendable {
  private let misroutes: Bool
  private let rewardOnly: Bool
  private let sinks = Locked<[AdapterSignal.Sink]>([])

  init(misroutes: Bool, rewardOnly: Bool = false) {
    self.misroutes = misroutes
    self.rewardOnly = rewardOnly
  }

  func showStarted(_ sink: AdapterSignal.Sink) { sinks.withLock { $0.append(sink) } }

  func deliverLateCallbacksOfPreviousShow() {
    let target = sinks.withLock { sinks in misroutes ? sinks.last : sinks.dropLast().last }
    target?.send(.rewarded(nil))
    if !rewardOnly { target?.send(.dismissed) }
  }
}

/// The one ad an availability SDK holds for a placement: loaded on demand, used by a show.
private final class OneSDKAd: Sendable {
  private let loaded = Locked(false)

  func load() { loaded.withLock { $0 = true } }

  /// Whether there was an ad to show; it is gone after.
  func use() -> Bool {
    loaded.withLock { loaded in
      defer { loaded = false }
      return loaded
    }
  }
}

/// An ad object standing for the SDK's one ad: displays and closes after 5 s when the SDK still
/// had it, else fails `not_ready`, never withdrawn.
private final class SharedSDKAd: AdapterAd {
  let scheduler: any Scheduler
  let sdk: OneSDKAd

  init(scheduler: any Scheduler, sdk: OneSDKAd) {
    self.scheduler = scheduler
    self.sdk = sdk
    sdk.load()
  }

  func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {
    guard sdk.use() else {
      signals.send(.showFailed(AdapterError(.notReady, vendorCode: 509, message: "no ads to show")))
      return
    }
    signals.send(.displayed)
    scheduler.schedule(after: .seconds(5)) { signals.send(.dismissed) }
  }

  func discard() {}
}

/// An SDK with one ad per placement, like Empower's zones and MAX's ad units: every load of a
/// placement gets that ad, a show uses it, and the adapter then withdraws the other loads' ads.
private final class WithdrawingOneAdAdapter: RewardedAdapter {
  let info = AdapterInfo.testNetwork("probe", displayName: "Probe")
  let scheduler: any Scheduler
  /// Per placement: whether it holds its ad, and the withdrawal sinks of the loads that got it
  /// (by ad number).
  private let placements = Locked<[String: (loaded: Bool, holders: [Int: AdapterSignal.Sink])]>([:])
  private let nextAd = Locked(0)

  init(scheduler: any Scheduler) { self.scheduler = scheduler }

  func start(
    _ request: AdapterStartRequest, completion: @escaping @Sendable (Result<Void, AdapterError>) -> Void
  ) {
    completion(.success(()))
  }

  func load(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void
  ) -> Cancellable {
    let number = nextAd.withLock { next in
      next += 1
      return next
    }
    placements.withLock { placements in
      placements[request.placementID, default: (false, [:])].loaded = true
      placements[request.placementID]?.holders[number] = request.sink
    }
    completion(
      .success(AdapterLoadedAd(ad: Ad(adapter: self, placement: request.placementID, number: number))))
    return .none
  }

  /// Shows ad `number` of `placement` if the placement still holds its ad, withdrawing the others.
  fileprivate func show(_ placement: String, _ number: Int, signals: AdapterSignal.Sink) {
    let (shown, others) = placements.withLock { placements in
      guard let entry = placements[placement], entry.loaded, entry.holders[number] != nil else {
        return (false, [AdapterSignal.Sink]())
      }
      let others = entry.holders.filter { $0.key != number }.map(\.value)
      placements[placement] = (false, [:])
      return (true, others)
    }
    guard shown else {
      signals.send(.showFailed(AdapterError(.notReady, message: "no ad")))
      return
    }
    for sink in others {
      sink.withdraw(AdapterWithdrawal(.invalidated, message: "another load's show used it"))
    }
    signals.send(.displayed)
    scheduler.schedule(after: .seconds(30)) { signals.send(.rewarded(nil)) }
    scheduler.schedule(after: .seconds(31)) { signals.send(.dismissed) }
  }

  fileprivate func discard(_ placement: String, _ number: Int) {
    _ = placements.withLock { $0[placement]?.holders.removeValue(forKey: number) }
  }

  private final class Ad: AdapterAd {
    let adapter: WithdrawingOneAdAdapter
    let placement: String
    let number: Int

    init(adapter: WithdrawingOneAdAdapter, placement: String, number: Int) {
      self.adapter = adapter
      self.placement = placement
      self.number = number
    }

    func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {
      adapter.show(placement, number, signals: signals)
    }

    func discard() { adapter.discard(placement, number) }
  }
}

/// Displays, then is dismissed after 5 s without a reward.
private final class PlayedAd: AdapterAd {
  let scheduler: any Scheduler
  let log: ShowLog

  init(scheduler: any Scheduler, log: ShowLog) {
    self.scheduler = scheduler
    self.log = log
  }

  func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {
    log.showStarted(signals)
    signals.send(.displayed)
    scheduler.schedule(after: .seconds(5)) { signals.send(.dismissed) }
  }

  func discard() {}
}

/// Displays, rewards after 30 s and is dismissed after 31 s — unless its SDK forgot it, then the
/// show fails `expired`.
private final class CompletingAd: AdapterAd {
  let scheduler: any Scheduler
  let forgottenAt: Duration?

  init(scheduler: any Scheduler, forgottenAfter: Duration? = nil) {
    self.scheduler = scheduler
    self.forgottenAt = forgottenAfter.map { scheduler.now + $0 }
  }

  func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {
    if let forgottenAt, scheduler.now >= forgottenAt {
      signals.send(
        .showFailed(AdapterError(.expired, vendorCode: 4, message: "the ad is no longer available")))
      return
    }
    signals.send(.displayed)
    scheduler.schedule(after: .seconds(30)) { signals.send(.rewarded(nil)) }
    scheduler.schedule(after: .seconds(31)) { signals.send(.dismissed) }
  }

  func discard() {}
}
