import MediationKit
import MediationKitTesting
import Testing

@testable import EmpowerSim

@Suite struct AdapterMappingTests {
  typealias LoadResult = Result<AdapterLoadedAd, AdapterError>

  let presenter = HeadlessPresenter()

  /// An adapter made through the public registration, on a virtual clock.
  func makeAdapter(profile: EmpowerBehaviorProfile = alwaysComplete, seed: UInt64 = 1) throws -> (
    EmpowerAdapter, VirtualScheduler
  ) {
    let scheduler = VirtualScheduler()
    let environment = AdapterEnvironment(scheduler: scheduler, random: SeededRandom(seed: seed))
    let adapter = try #require(
      EmpowerNetwork.registration(profile: profile).makeAdapter(environment) as? EmpowerAdapter)
    return (adapter, scheduler)
  }

  func request(
    _ placement: String = "zone-1", ecpm: Double = 12,
    reward: AdapterSignal.NetworkReward = .init(type: "gems", amount: 5)
  )
    -> AdapterLoadRequest
  {
    AdapterLoadRequest(zoneID: "app-zone", placementID: placement, ecpm: ecpm, reward: reward)
  }

  /// Loads `placement`, runs the clock, and returns what the completion got (nil: not called).
  func load(_ adapter: EmpowerAdapter, _ scheduler: VirtualScheduler, _ placement: String = "zone-1")
    -> [LoadResult]
  {
    let results = Recorded<LoadResult>()
    _ = adapter.load(request(placement)) { results.append($0) }
    scheduler.run()
    return results.all
  }

  func show(_ ad: any AdapterAd, _ scheduler: VirtualScheduler) -> [AdapterSignal] {
    let signals = Recorded<AdapterSignal>()
    ad.show(
      AdapterShowRequest(zoneID: "app-zone"), from: presenter,
      signals: AdapterSignal.Sink { signals.append($0) })
    scheduler.run()
    return signals.all
  }

  /// A reward amount from outside no `Int` holds (the largest a configuration could once give,
  /// 2^63 as a `Double`, infinity, not a number) configures the dashboard clamped: the load runs,
  /// no trap.
  @Test(arguments: [Double(Int.max), 1e300, -1e300, .infinity, .nan])
  func anUnrepresentableRewardAmountIsClampedNotATrap(amount: Double) throws {
    let entry = EmpowerAdapter.dashboardEntry(for: request(reward: .init(type: "coins", amount: amount)))
    #expect(entry.rewardAmount == (amount.isNaN ? 0 : amount > 0 ? Int.max : Int.min))
    let (adapter, scheduler) = try makeAdapter()
    let results = Recorded<LoadResult>()
    _ = adapter.load(request("huge", reward: .init(type: "coins", amount: amount))) { results.append($0) }
    scheduler.run()
    #expect(results.all.count == 1)
    #expect(
      EmpowerAdapter.dashboardEntry(for: request(reward: .init(type: "c", amount: 2.5))).rewardAmount == 3)
  }

  /// A latency drawn from a profile whose spread no timer holds (e^1000 seconds) is clamped, not
  /// a trap: every load completes.
  @Test func aLatencyNoTimerHoldsIsClampedNotATrap() throws {
    var profile = alwaysComplete
    profile.loadLatencySigma = 1e6
    profile.bidLatencySigma = 1e6
    let (adapter, scheduler) = try makeAdapter(profile: profile)
    let results = Recorded<LoadResult>()
    for index in 1...8 { _ = adapter.load(request("zone-\(index)")) { results.append($0) } }
    scheduler.run()
    #expect(results.all.count == 8)
  }

  @Test func registrationDescribesEmpower() throws {
    let registration = EmpowerNetwork.registration()
    #expect(registration.info.id == "empower")
    #expect(EmpowerNetwork.id == "empower")
    #expect(registration.info.sdkVersion == EMAManager.sdkVersion)
    let (adapter, _) = try makeAdapter()
    #expect(adapter.info == EmpowerNetwork.info)
  }

  @Test func factoryGivesEachAdapterItsOwnSDK() throws {
    let (first, _) = try makeAdapter()
    let (second, _) = try makeAdapter()
    #expect(first.manager !== second.manager)
    #expect(first.manager !== EMAManager.shared)
  }

  @Test func startCompletesAfterTheInitLatency() throws {
    let (adapter, scheduler) = try makeAdapter()
    let results = Recorded<Bool>()
    adapter.start(AdapterStartRequest(placementIDs: ["zone-1"])) { results.append((try? $0.get()) != nil) }
    #expect(results.all.isEmpty)
    scheduler.run()
    #expect(results.all == [true])
    #expect(scheduler.now == alwaysComplete.initLatency)
  }

  @Test func readyCompletesWithAnAdPricedByTheSDK() throws {
    let (adapter, scheduler) = try makeAdapter()
    let results = load(adapter, scheduler)
    #expect(results.count == 1)
    let loaded = try #require(try results.first?.get())
    let ecpm = try #require(loaded.ecpm)
    #expect(ecpm > 3 && ecpm < 50)
    #expect(loaded.lifetime == nil)
    #expect(
      adapter.manager.zoneSettings(zoneId: "zone-1")
        == EmpowerZoneSettings(
          zoneId: "zone-1", rewardType: "gems", rewardAmount: 5, baseECPM: 12, autoReload: false),
      "the dashboard is seeded from the first request")
  }

  @Test func failedCompletesWithAMappedError() throws {
    let (adapter, scheduler) = try makeAdapter(profile: neverFill)
    let results = load(adapter, scheduler)
    #expect(results.count == 1)
    let error = try #require(
      results.first.flatMap { result -> AdapterError? in
        if case .failure(let error) = result { return error }
        return nil
      })
    #expect(error.kind == .noFill)
    #expect(error.vendorCode == 204)
  }

  @Test func errorCodesMapToKinds() {
    let expected: [EMAError.Code: AdapterError.Kind] = [
      .noFill: .noFill, .networkError: .networkError, .invalidZone: .invalidRequest, .notReady: .notReady,
      .anotherAdShowing: .anotherAdShowing, .invalidBid: .invalidRequest,
    ]
    for code in EMAError.Code.allCases {
      let mapped = ZoneRouter.adapterError(EMAError(code, "m"))
      #expect(mapped == AdapterError(expected[code]!, vendorCode: code.rawValue, message: "m"))
    }
    #expect(ZoneRouter.adapterError(nil).kind == .internalError)
  }

  @Test func completedShowMapsToDisplayedRewardedDismissed() throws {
    let (adapter, scheduler) = try makeAdapter()
    let ad = try #require(try load(adapter, scheduler).first?.get().ad)
    #expect(
      show(ad, scheduler) == [
        .displayed, .rewarded(AdapterSignal.NetworkReward(type: "gems", amount: 5)), .dismissed,
      ])
  }

  @Test func skippedShowMapsToDisplayedDismissed() throws {
    let (adapter, scheduler) = try makeAdapter(profile: alwaysSkip)
    let ad = try #require(try load(adapter, scheduler).first?.get().ad)
    #expect(show(ad, scheduler) == [.displayed, .dismissed])
  }

  @Test func clicksMapToClicked() throws {
    let profile = EmpowerBehaviorProfile(
      fillRate: 1, networkErrorRate: 0, skipProbability: 0, clickProbability: 1)
    let (adapter, scheduler) = try makeAdapter(profile: profile)
    let ad = try #require(try load(adapter, scheduler).first?.get().ad)
    let signals = show(ad, scheduler)
    #expect(signals.filter { $0 == .clicked }.count == 1)
    #expect(signals.first == .displayed && signals.last == .dismissed)
  }

  @Test func showingWhileAnotherAdIsUpFailsWithAnotherAdShowing() throws {
    let (adapter, scheduler) = try makeAdapter()
    let first = try #require(try load(adapter, scheduler, "a").first?.get().ad)
    let second = try #require(try load(adapter, scheduler, "b").first?.get().ad)
    let firstSignals = Recorded<AdapterSignal>()
    first.show(
      AdapterShowRequest(zoneID: "x"), from: presenter,
      signals: AdapterSignal.Sink { firstSignals.append($0) }
    )
    scheduler.advance(by: .seconds(1))
    let secondSignals = show(second, scheduler)
    guard case .showFailed(let error) = try #require(secondSignals.first) else {
      Issue.record("expected showFailed, got \(secondSignals)")
      return
    }
    #expect(secondSignals.count == 1)
    #expect(error.kind == .anotherAdShowing)
    #expect(error.vendorCode == EMAError.Code.anotherAdShowing.rawValue)
    #expect(firstSignals.all.last == .dismissed)
  }

  @Test func anAdShowsOnlyOnce() throws {
    let (adapter, scheduler) = try makeAdapter()
    let ad = try #require(try load(adapter, scheduler).first?.get().ad)
    _ = show(ad, scheduler)
    let again = show(ad, scheduler)
    guard case .showFailed(let error) = try #require(again.first) else {
      Issue.record("expected showFailed, got \(again)")
      return
    }
    #expect(error.kind == .notReady)
  }

  @Test func cancellationIgnoresLateCallbacksAndDestroysTheZone() throws {
    let (adapter, scheduler) = try makeAdapter()
    let results = Recorded<LoadResult>()
    let handle = adapter.load(request()) { results.append($0) }
    scheduler.advance(by: .milliseconds(1))
    handle.cancel()
    handle.cancel()
    scheduler.run()
    #expect(results.all.isEmpty)
    #expect(!adapter.manager.isRewardedReady(zoneId: "zone-1"))
    #expect(scheduler.pendingCount == 0)
  }

  @Test func cancellingOneLoadKeepsAnotherLoadOfTheSamePlacement() throws {
    let (adapter, scheduler) = try makeAdapter()
    let cancelled = Recorded<LoadResult>()
    let kept = Recorded<LoadResult>()
    let handle = adapter.load(request()) { cancelled.append($0) }
    _ = adapter.load(request()) { kept.append($0) }
    handle.cancel()
    scheduler.run()
    #expect(cancelled.all.isEmpty)
    #expect(kept.all.count == 1)
  }

  @Test func reloadingAPlacementAfterAShowGivesAFreshAd() throws {
    let (adapter, scheduler) = try makeAdapter()
    for _ in 0..<3 {
      let loaded = try #require(try load(adapter, scheduler).first?.get())
      #expect(
        show(loaded.ad, scheduler).contains(.rewarded(AdapterSignal.NetworkReward(type: "gems", amount: 5))))
      loaded.ad.discard()
    }
  }

  @Test func concurrentLoadsOfOnePlacementShareTheZonesAd() throws {
    let (adapter, scheduler) = try makeAdapter()
    let results = Recorded<LoadResult>()
    _ = adapter.load(request()) { results.append($0) }
    _ = adapter.load(request()) { results.append($0) }
    scheduler.run()
    let ads = try results.all.map { try $0.get().ad }
    #expect(ads.count == 2)
    #expect(show(ads[0], scheduler).last == .dismissed)
    let second = show(ads[1], scheduler)
    guard case .showFailed(let error) = try #require(second.first) else {
      Issue.record("expected showFailed, got \(second)")
      return
    }
    #expect(error.kind == .notReady)
  }

  /// The zone holds one ad and both loads got it: once the first show uses it, the second load's
  /// ad is withdrawn at once, so the core never keeps it ready to fail at its show.
  @Test func aShowThatUsesTheZonesAdWithdrawsTheOtherLoadsAd() throws {
    let (adapter, scheduler) = try makeAdapter()
    let results = Recorded<LoadResult>()
    let withdrawals = [Recorded<AdapterWithdrawal>(), Recorded<AdapterWithdrawal>()]
    for recorded in withdrawals {
      var loadRequest = request()
      loadRequest.sink = AdapterSignal.Sink.ignored.replacingWithdrawals { recorded.append($0) }
      _ = adapter.load(loadRequest) { results.append($0) }
    }
    scheduler.run()
    let ads = try results.all.map { try $0.get().ad }
    #expect(ads.count == 2 && withdrawals.allSatisfy { $0.all.isEmpty })
    ads[0].show(AdapterShowRequest(zoneID: "app-zone"), from: presenter, signals: AdapterSignal.Sink { _ in })
    // At once, before any status of the show.
    #expect(withdrawals[0].all.isEmpty)
    #expect(withdrawals[1].all.map(\.kind) == [.invalidated])
    #expect(withdrawals[1].all.first?.message.contains("zone-1") == true)
    scheduler.run()
    #expect(withdrawals[1].all.count == 1)
    // The core discards the withdrawn ad; with the shown one discarded too, the zone is destroyed.
    ads[1].discard()
    ads[0].discard()
    #expect(adapter.routerBookkeeping.heldAds == 0)
  }

  /// A show the SDK refuses (another full-screen ad is up) does not use the zone's ad: the other
  /// load's ad stays.
  @Test func aRefusedShowWithdrawsNothing() throws {
    let (adapter, scheduler) = try makeAdapter()
    let other = try #require(try load(adapter, scheduler, "other").first?.get().ad)
    let results = Recorded<LoadResult>()
    let withdrawn = Recorded<AdapterWithdrawal>()
    for index in 0..<2 {
      var loadRequest = request()
      if index == 1 {
        loadRequest.sink = AdapterSignal.Sink.ignored.replacingWithdrawals { withdrawn.append($0) }
      }
      _ = adapter.load(loadRequest) { results.append($0) }
    }
    scheduler.run()
    let ads = try results.all.map { try $0.get().ad }
    other.show(AdapterShowRequest(zoneID: "x"), from: presenter, signals: AdapterSignal.Sink { _ in })
    let refused = Recorded<AdapterSignal>()
    ads[0].show(
      AdapterShowRequest(zoneID: "app-zone"), from: presenter,
      signals: AdapterSignal.Sink { refused.append($0) })
    scheduler.run()
    #expect(refused.all.first.map { if case .showFailed = $0 { true } else { false } } == true)
    #expect(withdrawn.all.isEmpty)
    #expect(show(ads[1], scheduler).contains(.displayed))
  }

  @Test func discardingTheLastAdDestroysTheZone() throws {
    let (adapter, scheduler) = try makeAdapter()
    let ad = try #require(try load(adapter, scheduler).first?.get().ad)
    #expect(adapter.manager.isRewardedReady(zoneId: "zone-1"))
    ad.discard()
    #expect(!adapter.manager.isRewardedReady(zoneId: "zone-1"))
    let again = show(ad, scheduler)
    #expect(again.count == 1)
  }

  @Test func aShownAdKeepsItsZoneUntilTheCoreDiscardsIt() throws {
    let (adapter, scheduler) = try makeAdapter()
    let ad = try #require(try load(adapter, scheduler).first?.get().ad)
    #expect(show(ad, scheduler).last == .dismissed)
    #expect(adapter.manager.bookkeeping.zones == 1)
    #expect(adapter.routerBookkeeping.heldAds == 1)
    ad.discard()
    #expect(adapter.manager.bookkeeping.zones == 0, "nothing needs the zone any more")
    #expect(adapter.routerBookkeeping.heldAds == 0)
  }

  @Test func reloadingBeforeTheDiscardKeepsTheZoneAndGivesAFreshAd() throws {
    let (adapter, scheduler) = try makeAdapter()
    let first = try #require(try load(adapter, scheduler).first?.get().ad)
    #expect(show(first, scheduler).last == .dismissed)
    let second = try #require(try load(adapter, scheduler).first?.get().ad)
    first.discard()
    #expect(adapter.manager.isRewardedReady(zoneId: "zone-1"), "the second ad still needs the zone")
    #expect(show(second, scheduler).contains(.rewarded(AdapterSignal.NetworkReward(type: "gems", amount: 5))))
    second.discard()
    #expect(adapter.manager.bookkeeping.zones == 0)
  }

  @Test func anAdDiscardedDuringItsShowDestroysTheZoneWhenTheShowEnds() throws {
    let (adapter, scheduler) = try makeAdapter()
    let ad = try #require(try load(adapter, scheduler).first?.get().ad)
    let signals = Recorded<AdapterSignal>()
    ad.show(
      AdapterShowRequest(zoneID: "app-zone"), from: presenter,
      signals: AdapterSignal.Sink { signals.append($0) })
    scheduler.advance(by: .seconds(1))
    ad.discard()
    #expect(adapter.manager.isRewardedShowing(zoneId: "zone-1"))
    #expect(adapter.manager.bookkeeping.zones == 1, "the show is still on screen")
    scheduler.run()
    #expect(signals.all.last == .dismissed)
    #expect(adapter.manager.bookkeeping.zones == 0)
  }

  @Test func aLoadCancelledAfterItsFillKeepsItsAd() throws {
    let (adapter, scheduler) = try makeAdapter()
    let results = Recorded<LoadResult>()
    let handle = adapter.load(request()) { results.append($0) }
    scheduler.run()
    let ad = try #require(try results.all.first?.get().ad)
    handle.cancel()
    #expect(adapter.manager.isRewardedReady(zoneId: "zone-1"))
    #expect(show(ad, scheduler).last == .dismissed)
  }

  @Test func anAdapterDroppedWithALoadWaitingReleasesTheLoad() throws {
    final class Token: Sendable {}
    weak var released: Token?
    do {
      let (adapter, scheduler) = try makeAdapter()
      let token = Token()
      released = token
      _ = adapter.load(request()) { _ in withExtendedLifetime(token) {} }
      scheduler.advance(by: .milliseconds(1))
      #expect(adapter.routerBookkeeping.pendingLoads == 1)
    }
    #expect(released == nil, "the waiting load's completion was freed with the adapter")
  }

  @Test func adaptersDoNotSeeEachOthersAds() throws {
    let (first, firstScheduler) = try makeAdapter()
    let (second, _) = try makeAdapter()
    _ = load(first, firstScheduler)
    #expect(first.manager.isRewardedReady(zoneId: "zone-1"))
    #expect(!second.manager.isRewardedReady(zoneId: "zone-1"))
  }
}
