import MediationKit
import MediationKitTesting
import Testing

@Suite("Ads the network withdraws")
struct WithdrawalTests {
  let lost = AdapterWithdrawal(.availabilityLost, message: "availability turned false")

  private func diagnostics(_ harness: Harness) -> [RewardedAdEvent.Diagnostic] {
    harness.recorder.events(zone: "z").compactMap {
      if case .diagnostic(let note) = $0 { note } else { nil }
    }
  }

  @Test func aWithdrawnReadyAdIsUnreadiedDiscardedAndExpiredWithTheReason() throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 1)])],
      scripts: ["a": ["a1": [.fillThenWithdraw(after: .zero, withdrawnAfter: .seconds(10), lost)]]])
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.scheduler.advance(by: .seconds(5))
    #expect(ad.isReady)
    harness.scheduler.advance(by: .seconds(5))
    #expect(!ad.isReady)
    #expect(harness.names() == ["loading", "ready", "diagnostic", "expired"])
    #expect(diagnostics(harness).map(\.kind) == [.adWithdrawn])
    #expect(
      diagnostics(harness).first?.message.contains("availability_lost: availability turned false") == true)
    #expect(harness.adapters["a"]?.discardedAds == 1)
    #expect(harness.recorder.events.last?.network == "a")
    #expect(throws: MediationError.self) { try ad.show(from: HeadlessPresenter()) }
    do {
      try ad.show(from: HeadlessPresenter())
    } catch {
      #expect(error.code == .expired)
      #expect(error.message.contains("withdrew its ad before it was shown (availability_lost"))
    }
    #expect(harness.adapters["a"]?.shows == 0)
  }

  @Test func isReadySaysNoAtOnceWhenTheWithdrawalComesFromAnotherThread() throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 1)])], scripts: ["a": ["a1": [.fill(after: .zero)]]])
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    #expect(ad.isReady)
    // The test's thread is not the scheduler's executor: the events wait for the scheduler, the
    // un-readying does not.
    harness.adapters["a"]?.withdrawLoadedAds(AdapterWithdrawal(.invalidated, message: "creative released"))
    #expect(!ad.isReady)
    #expect(harness.names() == ["loading", "ready"])
    harness.settle(.zero)
    #expect(harness.names() == ["loading", "ready", "diagnostic", "expired"])
  }

  @Test func autoReloadLoadsAgainAtOnceThenBacksOffWhileEveryAdIsWithdrawn() throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 1)], autoReload: true)],
      scripts: ["a": ["a1": [.fillThenWithdraw(after: .zero, withdrawnAfter: .seconds(1), lost)]]])
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle(.seconds(20))
    let loads = harness.recorder.events.filter { $0.event.name == "loading" }.map {
      $0.time.milliseconds / 1000
    }
    // Withdrawn at 1 s: reload at once; at 2 s: after 2 s; at 5 s: after 4 s; at 10 s: after 8 s.
    #expect(loads == [0, 1, 4, 9, 18])
  }

  @Test func aShowResetsTheWithdrawalBackoff() throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 1)], autoReload: true)],
      scripts: [
        "a": [
          "a1": [
            .fillThenWithdraw(after: .zero, withdrawnAfter: .seconds(1), lost), .fill(after: .zero),
            .fillThenWithdraw(after: .zero, withdrawnAfter: .seconds(1), lost), .fill(after: .zero),
          ]
        ]
      ])
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle(.seconds(2))
    try ad.show(from: HeadlessPresenter())
    harness.settle(.seconds(40))
    let loads = harness.recorder.events.filter { $0.event.name == "loading" }.map {
      $0.time.milliseconds / 1000
    }
    // 0: withdrawn at 1, reloaded at once; shown at 2, closed at 33: reload, withdrawn at 34,
    // reloaded at once (the show reset the count).
    #expect(loads == [0, 1, 33, 34])
  }

  @Test func aWithdrawalAfterTheShowStartedIsOnlyADiagnostic() throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 1)])], scripts: ["a": ["a1": [.fill(after: .zero)]]])
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    try ad.show(from: HeadlessPresenter())
    harness.scheduler.advance(by: .seconds(10))
    harness.adapters["a"]?.withdrawLoadedAds(lost)
    harness.settle()
    // The core's revenue estimate waits for the show's next event (here the reward), so the
    // withdrawal's diagnostic, published at once, comes before it.
    #expect(
      harness.names() == ["loading", "ready", "shown", "diagnostic", "revenue_paid", "rewarded", "closed"])
    #expect(diagnostics(harness).map(\.kind) == [.adWithdrawn])
    #expect(diagnostics(harness).first?.message.contains("after its show started") == true)
    try harness.recorder.verifyContract()
  }

  @Test func aWithdrawalThatOvertakesItsFillNeverMakesTheAdReady() throws {
    let adapter = HeldLoadsAdapter()
    let scheduler = VirtualScheduler()
    let mediator = try Mediator(
      config: MediationConfig(zones: [zone([item("held", "h1", ecpm: 1)])]),
      registry: AdapterRegistry([adapter.registration]), scheduler: scheduler)
    let recorder = EventRecorder(mediator)
    let ad = try mediator.rewardedAd(zone: "z")
    ad.load()
    scheduler.advance(by: .seconds(1))
    let request = try #require(adapter.requests.first)
    // From the test's thread (not the executor): the fill hops onto the scheduler, the withdrawal
    // reaches the core before it.
    adapter.complete(0, with: .success(AdapterLoadedAd(ad: HeldAd())))
    request.sink.withdraw(lost)
    #expect(!ad.isReady)
    scheduler.advance(by: .seconds(1))
    #expect(!ad.isReady)
    #expect(recorder.names(zone: "z") == ["loading", "ready", "diagnostic", "expired"])
  }

  /// Adapter API 2.0's withdrawal sink still works: it is a view of the ad's one sink.
  @available(*, deprecated, message: "exercises the deprecated AdapterLoadRequest.withdrawals")
  @Test func theDeprecatedWithdrawalSinkStillWithdrawsTheAd() throws {
    let adapter = HeldLoadsAdapter()
    let scheduler = VirtualScheduler()
    let mediator = try Mediator(
      config: MediationConfig(zones: [zone([item("held", "h1", ecpm: 1)])]),
      registry: AdapterRegistry([adapter.registration]), scheduler: scheduler)
    let recorder = EventRecorder(mediator)
    let ad = try mediator.rewardedAd(zone: "z")
    ad.load()
    scheduler.advance(by: .seconds(1))
    var request = try #require(adapter.requests.first)
    adapter.complete(0, with: .success(AdapterLoadedAd(ad: HeldAd())))
    scheduler.advance(by: .seconds(1))
    #expect(ad.isReady)
    let seen = Locked<[AdapterWithdrawal]>([])
    let kept = request.withdrawals
    request.withdrawals = AdapterWithdrawal.Sink { reason in seen.withLock { $0.append(reason) } }
    request.sink.withdraw(lost)
    #expect(seen.withLock { $0 } == [lost] && ad.isReady, "a replaced withdrawal sink takes the withdrawals")
    kept.withdrawn(lost)
    #expect(!ad.isReady)
    scheduler.advance(by: .seconds(1))
    #expect(recorder.names(zone: "z") == ["loading", "ready", "diagnostic", "expired"])
  }

  /// Regression: the withdrawal used to be lost when it landed after the load's planner had
  /// finished with the fill but before the zone stored the ad (the load looked gone, the slot
  /// still empty), so the withdrawn ad was reported ready and stayed showable.
  @Test func aWithdrawalThatLandsWhileTheFillIsBeingStoredIsNotLost() throws {
    let adapter = HeldLoadsAdapter()
    let scheduler = HookedScheduler(VirtualScheduler())
    let mediator = try Mediator(
      config: MediationConfig(zones: [zone([item("held", "h1", ecpm: 1)])]),
      registry: AdapterRegistry([adapter.registration]), scheduler: scheduler)
    let recorder = EventRecorder(mediator)
    let ad = try mediator.rewardedAd(zone: "z")
    ad.load()
    scheduler.inner.advance(by: .seconds(1))
    let request = try #require(adapter.requests.first)
    // The fill's handling reads the clock once when the answer arrives and again as the load
    // ends; the withdrawal lands at that second read, as another thread's would.
    scheduler.onRead(2) { request.sink.withdraw(lost) }
    adapter.complete(0, with: .success(AdapterLoadedAd(ad: HeldAd())))
    scheduler.inner.advance(by: .seconds(1))
    #expect(scheduler.hookRan)
    #expect(!ad.isReady)
    #expect(recorder.names(zone: "z") == ["loading", "ready", "diagnostic", "expired"])
  }
}

/// A scheduler that runs a hook when its clock is read for the n-th time after ``onRead(_:_:)``,
/// to land another thread's call at a chosen point of the engine's work without real threads.
private final class HookedScheduler: Scheduler {
  private struct Hook {
    var remaining = 0
    var action: (@Sendable () -> Void)?
    var ran = false
  }

  let inner: VirtualScheduler
  private let hook = Locked(Hook())

  init(_ inner: VirtualScheduler) { self.inner = inner }

  func onRead(_ n: Int, _ action: @escaping @Sendable () -> Void) {
    hook.withLock { $0 = Hook(remaining: n, action: action) }
  }

  var hookRan: Bool { hook.withLock { $0.ran } }

  var now: Duration {
    let due = hook.withLock { hook -> (@Sendable () -> Void)? in
      guard hook.action != nil else { return nil }
      hook.remaining -= 1
      guard hook.remaining == 0 else { return nil }
      hook.ran = true
      return hook.action.take()
    }
    due?()
    return inner.now
  }

  func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Cancellable {
    inner.schedule(after: delay, action)
  }
}

/// An adapter whose loads answer when the test says so, from the test's thread.
private final class HeldLoadsAdapter: RewardedAdapter {
  private let held = Locked<
    [(AdapterLoadRequest, @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void)]
  >([])

  let info = AdapterInfo.testNetwork("held", displayName: "Held")

  var registration: AdapterRegistry.Registration {
    AdapterRegistry.Registration(info: info) { [self] _ in self }
  }
  var requests: [AdapterLoadRequest] { held.withLock { $0.map(\.0) } }

  func complete(_ index: Int, with result: Result<AdapterLoadedAd, AdapterError>) {
    held.withLock { $0[index].1 }(result)
  }

  func start(
    _ request: AdapterStartRequest, completion: @escaping @Sendable (Result<Void, AdapterError>) -> Void
  ) { completion(.success(())) }

  func load(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void
  ) -> Cancellable {
    held.withLock { $0.append((request, completion)) }
    return .none
  }
}

private final class HeldAd: AdapterAd {
  func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {}
  func discard() {}
}
