import Dispatch
import MediationKit
import MediationKitTesting
import Testing

@testable import MaxSim

@Suite struct AdapterTests {
  @Test func registrationDescribesMaxAndBuildsAnAdapterWithItsOwnSDK() {
    let registration = MaxNetwork.registration()
    #expect(registration.info.id == "max")
    #expect(MaxNetwork.id == "max")
    #expect(
      registration.info.capabilities.isSuperset(of: [
        .rewarded, .bidding, .impressionRevenue, .serverSideReward,
      ]))
    let (_, first) = makeAdapter()
    let (_, second) = makeAdapter()
    #expect(first.sdk !== second.sdk)
    #expect(
      MARewardedAd.shared(withAdUnitIdentifier: "unit-a", sdk: first.sdk)
        !== MARewardedAd.shared(withAdUnitIdentifier: "unit-a", sdk: second.sdk))
  }

  @Test func startInitializesTheSDK() {
    let (scheduler, adapter) = makeAdapter()
    let done = CallCounter()
    adapter.start(AdapterStartRequest(placementIDs: ["unit-a"])) { result in
      if case .success = result { done.increment(at: scheduler.now) }
    }
    scheduler.run()
    #expect(done.times == [.milliseconds(250)])
    #expect(adapter.sdk.isInitialized)
  }

  @Test func didLoadBecomesALoadedAdPricedFromRevenue() throws {
    let (scheduler, adapter) = makeAdapter()
    let box = LoadRecorder()
    _ = adapter.load(loadRequest(ecpm: 20), completion: box.completion)
    scheduler.run()
    let loaded = try #require(box.ad)
    let ecpm = try #require(loaded.ecpm)
    #expect(ecpm > 20 / 4 && ecpm < 20 * 4)
    #expect(loaded.lifetime == .seconds(4 * 3600))
    #expect(box.results.count == 1)
  }

  /// A latency drawn from a profile whose spread no timer holds (e^1000 seconds) is clamped, not
  /// a trap: every load completes.
  @Test func aLatencyNoTimerHoldsIsClampedNotATrap() {
    var profile = MaxBehaviorProfile.wellBehaved
    profile.loadLatencySigma = 1e6
    let (scheduler, adapter) = makeAdapter(profile)
    let box = LoadRecorder()
    for auction in 1...8 {
      _ = adapter.load(loadRequest("unit-\(auction)", auctionID: UInt64(auction)), completion: box.completion)
    }
    scheduler.run()
    #expect(box.results.count == 8)
  }

  @Test func didFailToLoadBecomesNoFillWithTheVendorCode() throws {
    var profile = MaxBehaviorProfile.wellBehaved
    profile.fillRate = 0
    profile.loadErrorShare = 0
    let (scheduler, adapter) = makeAdapter(profile)
    let box = LoadRecorder()
    _ = adapter.load(loadRequest(), completion: box.completion)
    scheduler.run()
    let error = try #require(box.error)
    #expect(error.kind == .noFill)
    #expect(error.vendorCode == 204)
  }

  @Test(arguments: [
    (MAErrorCode.noFill, AdapterError.Kind.noFill), (.networkTimeout, .timeout),
    (.networkError, .networkError),
    (.noNetwork, .networkError), (.invalidAdUnitIdentifier, .invalidRequest), (.adLoadFailed, .internalError),
    (.unspecified, .internalError), (.simulatedInvalidBidToken, .invalidRequest),
  ])
  func loadErrorCodesMapToKinds(code: MAErrorCode, kind: AdapterError.Kind) {
    let error = MaxAdapter.loadError(MAError(code: code, message: "m"))
    #expect(error.kind == kind)
    #expect(error.vendorCode == code.rawValue)
    #expect(error.message == "m")
  }

  @Test(arguments: [
    (MAErrorCode.fullscreenAdAlreadyShowing, AdapterError.Kind.anotherAdShowing),
    (.fullscreenAdNotReady, .notReady), (.fullscreenAdInvalidViewController, .invalidRequest),
    (.adDisplayFailed, .internalError), (.unspecified, .internalError),
  ])
  func displayErrorCodesMapToKinds(code: MAErrorCode, kind: AdapterError.Kind) {
    let error = MaxAdapter.displayError(MAError(code: code, message: "m"))
    #expect(error.kind == kind)
    #expect(error.vendorCode == code.rawValue)
  }

  @Test func revenuePrecisionStringsMap() {
    #expect(MaxAdapter.precision("exact") == .exact)
    #expect(MaxAdapter.precision("publisher_defined") == .publisherDefined)
    #expect(MaxAdapter.precision("estimated") == .estimated)
    #expect(MaxAdapter.precision("undefined") == .estimated)
  }

  /// Loads one ad through the adapter and shows it; returns the signals.
  private func showOnce(_ profile: MaxBehaviorProfile, seed: UInt64 = 42) throws -> (
    SignalRecorder, AdapterLoadedAd
  ) {
    let (scheduler, adapter) = makeAdapter(profile, seed: seed)
    let box = LoadRecorder()
    _ = adapter.load(loadRequest(), completion: box.completion)
    scheduler.run()
    let loaded = try #require(box.ad)
    let recorder = SignalRecorder(clock: scheduler)
    loaded.ad.show(AdapterShowRequest(zoneID: "zone-1"), from: HeadlessPresenter(), signals: recorder.sink)
    scheduler.run()
    return (recorder, loaded)
  }

  @Test func aShowIsTranslatedCallbackByCallback() throws {
    let (recorder, loaded) = try showOnce(.wellBehaved)
    let usd = try #require(loaded.ecpm) / 1000
    #expect(
      recorder.signals == [
        .displayed, .revenuePaid(AdapterSignal.ImpressionRevenue(usd: usd, precision: .exact)),
        .rewarded(AdapterSignal.NetworkReward(type: "coins", amount: 10)), .dismissed,
      ])
  }

  @Test func clickBecomesClicked() throws {
    var profile = MaxBehaviorProfile.wellBehaved
    profile.clickRate = 1
    let (recorder, _) = try showOnce(profile)
    #expect(recorder.signals.map(\.name) == ["displayed", "revenuePaid", "clicked", "rewarded", "dismissed"])
  }

  @Test func skipIsForwardedAsDismissalWithoutReward() throws {
    var profile = MaxBehaviorProfile.wellBehaved
    profile.skipRate = 1
    let (recorder, _) = try showOnce(profile)
    #expect(recorder.signals.map(\.name) == ["displayed", "revenuePaid", "dismissed"])
  }

  @Test func rewardAfterHideIsForwardedAsItComes() throws {
    var profile = MaxBehaviorProfile.wellBehaved
    profile.rewardAfterHideRate = 1
    let (recorder, _) = try showOnce(profile)
    #expect(recorder.signals.map(\.name) == ["displayed", "revenuePaid", "dismissed", "rewarded"])
  }

  @Test func duplicateRewardIsForwardedTwice() throws {
    var profile = MaxBehaviorProfile.wellBehaved
    profile.duplicateRewardRate = 1
    let (recorder, _) = try showOnce(profile)
    #expect(
      recorder.signals.map(\.name) == ["displayed", "revenuePaid", "rewarded", "rewarded", "dismissed"])
  }

  @Test func lateHideIsForwardedLate() throws {
    var profile = MaxBehaviorProfile.wellBehaved
    let (onTime, _) = try showOnce(profile)
    profile.lateHideRate = 1
    let (late, _) = try showOnce(profile)
    #expect(late.signals.map(\.name) == onTime.signals.map(\.name))
    let delay =
      try #require(late.time { $0 == .dismissed }) - (try #require(onTime.time { $0 == .dismissed }))
    #expect(delay >= .seconds(3))
  }

  @Test func displayFailureBecomesShowFailed() throws {
    var profile = MaxBehaviorProfile.wellBehaved
    profile.displayFailureRate = 1
    let (recorder, _) = try showOnce(profile)
    guard case .showFailed(let error)? = recorder.signals.first else {
      Issue.record("expected showFailed, got \(recorder.signals)")
      return
    }
    #expect(recorder.signals.count == 1)
    #expect(error.kind == .internalError)
    #expect(error.vendorCode == -4205)
  }

  @Test func anotherAdShowingIsMinus23() throws {
    let (scheduler, adapter) = makeAdapter()
    let first = LoadRecorder()
    let second = LoadRecorder()
    _ = adapter.load(loadRequest("unit-a"), completion: first.completion)
    _ = adapter.load(loadRequest("unit-b"), completion: second.completion)
    scheduler.run()
    let firstSignals = SignalRecorder(clock: scheduler)
    let secondSignals = SignalRecorder(clock: scheduler)
    try #require(first.ad).ad.show(
      AdapterShowRequest(zoneID: "z"), from: HeadlessPresenter(), signals: firstSignals.sink)
    scheduler.advance(by: .seconds(3))
    try #require(second.ad).ad.show(
      AdapterShowRequest(zoneID: "z"), from: HeadlessPresenter(), signals: secondSignals.sink)
    scheduler.run()
    #expect(secondSignals.signals.map(\.name) == ["showFailed(-23)"])
    #expect(
      secondSignals.signals.first
        == .showFailed(
          MaxAdapter.displayError(
            MAError(
              code: .fullscreenAdAlreadyShowing,
              message: "Attempting to show ad when another fullscreen ad is already showing"))))
    #expect(firstSignals.signals.last == .dismissed)
  }

  @Test func concurrentLoadsOfOneAdUnitShareItsAdAndTheSecondShowIsNotReady() throws {
    let (scheduler, adapter) = makeAdapter()
    let first = LoadRecorder()
    let second = LoadRecorder()
    _ = adapter.load(loadRequest(), completion: first.completion)
    _ = adapter.load(loadRequest(), completion: second.completion)
    scheduler.run()
    let firstAd = try #require(first.ad)
    let secondAd = try #require(second.ad)
    #expect(firstAd.ad !== secondAd.ad, "one AdapterAd per load")
    let firstSignals = SignalRecorder(clock: scheduler)
    let secondSignals = SignalRecorder(clock: scheduler)
    firstAd.ad.show(AdapterShowRequest(zoneID: "z"), from: HeadlessPresenter(), signals: firstSignals.sink)
    scheduler.run()
    secondAd.ad.show(AdapterShowRequest(zoneID: "z"), from: HeadlessPresenter(), signals: secondSignals.sink)
    scheduler.run()
    #expect(firstSignals.signals.last == .dismissed)
    let failure = try #require(secondSignals.signals.first)
    #expect(secondSignals.signals.count == 1)
    #expect(failure.name == "showFailed(-24)")
    if case .showFailed(let error) = failure { #expect(error.kind == .notReady) }
  }

  /// Both loads got the ad unit's one ad: the first show uses it, and the second load's ad is
  /// withdrawn at once instead of being left ready to fail with -24.
  @Test func aShowThatUsesTheAdUnitsAdWithdrawsTheOtherLoadsAd() throws {
    let (scheduler, adapter) = makeAdapter()
    let loads = [LoadRecorder(), LoadRecorder()]
    let withdrawals = [WithdrawalRecorder(), WithdrawalRecorder()]
    for (load, withdrawn) in zip(loads, withdrawals) {
      var request = loadRequest()
      request.sink = withdrawn.sink
      _ = adapter.load(request, completion: load.completion)
    }
    scheduler.run()
    let ads = try loads.map { try #require($0.ad) }
    #expect(withdrawals.allSatisfy { $0.kinds.isEmpty })
    ads[0].ad.show(
      AdapterShowRequest(zoneID: "z"), from: HeadlessPresenter(), signals: AdapterSignal.Sink { _ in })
    #expect(withdrawals[0].kinds.isEmpty)
    #expect(withdrawals[1].kinds == [.invalidated])
    scheduler.run()
    #expect(withdrawals[1].kinds == [.invalidated])
    ads[1].ad.discard()
    ads[0].ad.discard()
    #expect(adapter.bookkeeping.heldAds == 0)
  }

  /// A load of another auction replaces the ad unit's ad: the loads that got the old one are
  /// withdrawn when the new one lands, not left to fail at their show.
  @Test func aNewerAdReplacingTheAdUnitsAdWithdrawsTheOlderLoads() throws {
    let (scheduler, adapter) = makeAdapter()
    let first = LoadRecorder()
    let withdrawn = WithdrawalRecorder()
    var request = loadRequest(auctionID: 1)
    request.sink = withdrawn.sink
    _ = adapter.load(request, completion: first.completion)
    scheduler.run()
    _ = try #require(first.ad)
    let second = LoadRecorder()
    _ = adapter.load(loadRequest(auctionID: 2), completion: second.completion)
    #expect(withdrawn.kinds.isEmpty, "the old ad is there until the new one lands")
    scheduler.run()
    let newer = try #require(second.ad)
    #expect(withdrawn.kinds == [.invalidated])
    #expect(adapter.bookkeeping.heldAds == 1)
    let signals = SignalRecorder(clock: scheduler)
    newer.ad.show(AdapterShowRequest(zoneID: "z"), from: HeadlessPresenter(), signals: signals.sink)
    scheduler.run()
    #expect(signals.signals.first == .displayed)
  }

  /// A show refused because another full-screen ad is up does not use the ad unit's ad.
  @Test func aRefusedShowWithdrawsNothing() throws {
    let (scheduler, adapter) = makeAdapter()
    let other = LoadRecorder()
    _ = adapter.load(loadRequest("unit-b"), completion: other.completion)
    let loads = [LoadRecorder(), LoadRecorder()]
    let withdrawn = WithdrawalRecorder()
    for (index, load) in loads.enumerated() {
      var request = loadRequest()
      if index == 1 { request.sink = withdrawn.sink }
      _ = adapter.load(request, completion: load.completion)
    }
    scheduler.run()
    try #require(other.ad).ad.show(
      AdapterShowRequest(zoneID: "y"), from: HeadlessPresenter(), signals: AdapterSignal.Sink { _ in })
    let refused = SignalRecorder(clock: scheduler)
    try #require(loads[0].ad).ad.show(
      AdapterShowRequest(zoneID: "z"), from: HeadlessPresenter(), signals: refused.sink)
    scheduler.run()
    #expect(refused.signals.map(\.name) == ["showFailed(-23)"])
    #expect(withdrawn.kinds.isEmpty)
  }

  @Test func cancelledLoadNeverCompletesAndTheAdServesTheNextLoad() throws {
    let (scheduler, adapter) = makeAdapter()
    let cancelled = LoadRecorder()
    let handle = adapter.load(loadRequest(), completion: cancelled.completion)
    scheduler.advance(by: .milliseconds(1))
    handle.cancel()
    scheduler.run()
    #expect(cancelled.results.isEmpty)
    let next = LoadRecorder()
    let before = scheduler.now
    _ = adapter.load(loadRequest(), completion: next.completion)
    scheduler.run()
    #expect(next.ad != nil)
    #expect(scheduler.now == before, "MAX still held the ad, so it is ready at once")
  }

  @Test func lateRewardOfAnEarlierShowReachesThatShowNotTheNextOne() throws {
    var profile = MaxBehaviorProfile.wellBehaved
    profile.rewardAfterHideRate = 1
    profile.lateRewardDelay = .seconds(10) ... .seconds(10)
    profile.loadLatencyMedian = .zero
    let (scheduler, adapter) = makeAdapter(profile)
    let first = LoadRecorder()
    _ = adapter.load(loadRequest(), completion: first.completion)
    scheduler.run()
    let firstSignals = SignalRecorder(clock: scheduler)
    try #require(first.ad).ad.show(
      AdapterShowRequest(zoneID: "z"), from: HeadlessPresenter(), signals: firstSignals.sink)
    while firstSignals.signals.last != .dismissed { scheduler.advance(by: .milliseconds(100)) }
    let second = LoadRecorder()
    _ = adapter.load(loadRequest(), completion: second.completion)
    scheduler.advance(by: .milliseconds(1))
    let secondSignals = SignalRecorder(clock: scheduler)
    try #require(second.ad).ad.show(
      AdapterShowRequest(zoneID: "z"), from: HeadlessPresenter(), signals: secondSignals.sink)
    scheduler.advance(by: .seconds(10))
    #expect(firstSignals.signals.map(\.name) == ["displayed", "revenuePaid", "dismissed", "rewarded"])
    #expect(secondSignals.signals.map(\.name) == ["displayed", "revenuePaid"])
    scheduler.run()
    #expect(secondSignals.signals.map(\.name) == ["displayed", "revenuePaid", "dismissed", "rewarded"])
  }

  @Test func callbacksFromAnotherThreadAreForwarded() throws {
    let queue = DispatchQueue(label: "max-sim.adapter-callbacks")
    var profile = MaxBehaviorProfile.wellBehaved
    profile.offThreadCallbacks = .init(probability: 1, queue: queue)
    let (scheduler, adapter) = makeAdapter(profile)
    let box = LoadRecorder()
    _ = adapter.load(loadRequest(), completion: box.completion)
    scheduler.run()
    queue.sync {}
    let recorder = SignalRecorder(clock: scheduler)
    try #require(box.ad).ad.show(
      AdapterShowRequest(zoneID: "z"), from: HeadlessPresenter(), signals: recorder.sink)
    scheduler.run()
    queue.sync {}
    #expect(recorder.signals.map(\.name) == ["displayed", "revenuePaid", "rewarded", "dismissed"])
  }

  /// Runs `cycles` load/show cycles through the adapter with the default profile.
  private func adapterTimeline(seed: UInt64, cycles: Int = 30) -> [String] {
    let (scheduler, adapter) = makeAdapter(.default, seed: seed)
    var log: [String] = []
    for auction in 0..<UInt64(cycles) {
      let box = LoadRecorder()
      _ = adapter.load(loadRequest(auctionID: auction), completion: box.completion)
      scheduler.run()
      guard let loaded = box.ad else {
        log.append("\(scheduler.now.milliseconds) failed \(box.error?.vendorCode ?? 0)")
        continue
      }
      let recorder = SignalRecorder(clock: scheduler)
      loaded.ad.show(AdapterShowRequest(zoneID: "z"), from: HeadlessPresenter(), signals: recorder.sink)
      scheduler.run()
      log.append("\(scheduler.now.milliseconds) \(loaded.ecpm ?? 0) \(recorder.signals.map(\.name))")
    }
    return log
  }

  @Test func adapterRunsAreDeterministicPerSeed() {
    #expect(adapterTimeline(seed: 3) == adapterTimeline(seed: 3))
    #expect(adapterTimeline(seed: 3) != adapterTimeline(seed: 4))
  }
}

/// Records the withdrawals of one load.
final class WithdrawalRecorder: Sendable {
  private let recorded = Locked<[AdapterWithdrawal]>([])
  var kinds: [AdapterWithdrawal.Kind] { recorded.withLock { $0.map(\.kind) } }
  var sink: AdapterSignal.Sink {
    AdapterSignal.Sink.ignored.replacingWithdrawals { withdrawal in
      self.recorded.withLock { $0.append(withdrawal) }
    }
  }
}
