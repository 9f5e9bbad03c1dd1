import EmpowerSim
import MediationKit
import MediationKitTesting
import Testing

@Suite struct SDKStatusFlowTests {
  let presenter = HeadlessPresenter()

  @Test func loadSuccessReportsInitializingThenReady() throws {
    let (manager, scheduler) = makeManager()
    manager.configureZone(EmpowerZoneSettings(zoneId: "z", baseECPM: 12))
    let recorder = StatusRecorder(scheduler: scheduler)
    manager.loadRewardedAd(zoneId: "z", delegate: recorder)
    #expect(recorder.statuses.isEmpty, "statuses are delivered asynchronously")
    scheduler.run()
    #expect(recorder.statuses == ["initializing", "ready"])
    #expect(manager.isRewardedReady(zoneId: "z"))
    #expect(!manager.isRewardedShowing(zoneId: "z"))
    let ecpm = try #require(manager.rewardedECPM(zoneId: "z"))
    #expect(ecpm > 3 && ecpm < 50)
  }

  @Test func loadFailureReportsNoFill() {
    let (manager, scheduler) = makeManager(profile: neverFill)
    manager.configureZone(EmpowerZoneSettings(zoneId: "z"))
    let recorder = StatusRecorder(scheduler: scheduler)
    manager.loadRewardedAd(zoneId: "z", delegate: recorder)
    scheduler.run()
    #expect(recorder.statuses == ["initializing", "failed(no_fill)"])
    #expect(!manager.isRewardedReady(zoneId: "z"))
    #expect(manager.rewardedECPM(zoneId: "z") == nil)
  }

  @Test func unconfiguredZoneFailsWithInvalidZone() {
    let (manager, scheduler) = makeManager()
    let recorder = StatusRecorder(scheduler: scheduler)
    manager.loadRewardedAd(zoneId: "nope", delegate: recorder)
    scheduler.run()
    #expect(recorder.statuses == ["initializing", "failed(invalid_zone)"])
  }

  @Test func completedAdRewardsWithTheZonePayloadThenCloses() throws {
    let (manager, scheduler) = makeManager()
    manager.configureZone(EmpowerZoneSettings(zoneId: "z", rewardType: "gems", rewardAmount: 7))
    let recorder = StatusRecorder(scheduler: scheduler)
    manager.loadRewardedAd(zoneId: "z", delegate: recorder)
    scheduler.run()
    manager.showRewarded(zoneId: "z", from: presenter)
    #expect(!manager.isRewardedReady(zoneId: "z"), "showing consumes the ad")
    #expect(manager.isRewardedShowing(zoneId: "z"))
    #expect(manager.isAnyFullScreenAdShowing())
    scheduler.run()
    #expect(recorder.statuses == ["initializing", "ready", "shown", "rewarded(gems, 7)", "closed"])
    #expect(!manager.isRewardedShowing(zoneId: "z"))
    #expect(!manager.isAnyFullScreenAdShowing())
    let shown = try #require(recorder.time(of: "shown"))
    let rewarded = try #require(recorder.time(of: "rewarded(gems, 7)"))
    let closed = try #require(recorder.time(of: "closed"))
    #expect((15_000...30_000).contains(rewarded - shown))
    #expect((500...3_000).contains(closed - rewarded))
  }

  @Test func rewardPayloadFollowsTheDashboardAtLoadTime() {
    let (manager, scheduler) = makeManager()
    manager.configureZone(EmpowerZoneSettings(zoneId: "z", rewardType: "lives", rewardAmount: 3))
    let recorder = StatusRecorder(scheduler: scheduler)
    manager.loadRewardedAd(zoneId: "z", delegate: recorder)
    scheduler.run()
    manager.configureZone(EmpowerZoneSettings(zoneId: "z", rewardType: "coins", rewardAmount: 250))
    manager.showRewarded(zoneId: "z", from: presenter)
    scheduler.run()
    manager.loadRewardedAd(zoneId: "z")
    scheduler.run()
    manager.showRewarded(zoneId: "z", from: presenter)
    scheduler.run()
    #expect(
      recorder.statuses.filter { $0.hasPrefix("rewarded") } == ["rewarded(lives, 3)", "rewarded(coins, 250)"])
  }

  @Test func skippedAdNeverRewards() {
    let (manager, scheduler) = makeManager(profile: alwaysSkip)
    manager.configureZone(EmpowerZoneSettings(zoneId: "z"))
    let recorder = StatusRecorder(scheduler: scheduler)
    manager.loadRewardedAd(zoneId: "z", delegate: recorder)
    scheduler.run()
    manager.showRewarded(zoneId: "z", from: presenter)
    scheduler.run()
    #expect(recorder.statuses == ["initializing", "ready", "shown", "skipped"])
    #expect(!manager.isAnyFullScreenAdShowing())
  }

  @Test func showingAZoneThatIsNotReadyFailsWithNotReady() {
    let (manager, scheduler) = makeManager()
    manager.configureZone(EmpowerZoneSettings(zoneId: "z"))
    let recorder = StatusRecorder(scheduler: scheduler)
    manager.loadRewardedAd(zoneId: "z", delegate: recorder)
    manager.showRewarded(zoneId: "z", from: presenter)  // still loading
    scheduler.run()
    #expect(recorder.statuses == ["initializing", "failed(not_ready)", "ready"])
    manager.showRewarded(zoneId: "z", from: presenter)
    scheduler.run()
    manager.showRewarded(zoneId: "z", from: presenter)  // already consumed
    scheduler.run()
    #expect(recorder.statuses.suffix(4) == ["shown", "rewarded(coins, 100)", "closed", "failed(not_ready)"])
    #expect(!manager.isAnyFullScreenAdShowing())
  }

  @Test func showingWhileAnotherFullScreenAdIsUpFails() {
    let (manager, scheduler) = makeManager()
    manager.configureZone(EmpowerZoneSettings(zoneId: "a"))
    manager.configureZone(EmpowerZoneSettings(zoneId: "b"))
    let a = StatusRecorder(scheduler: scheduler)
    let b = StatusRecorder(scheduler: scheduler)
    manager.loadRewardedAd(zoneId: "a", delegate: a)
    manager.loadRewardedAd(zoneId: "b", delegate: b)
    scheduler.run()
    manager.showRewarded(zoneId: "a", from: presenter)
    scheduler.advance(by: .seconds(1))
    #expect(manager.isAnyFullScreenAdShowing())
    #expect(!manager.isRewardedShowing(zoneId: "b"))
    manager.showRewarded(zoneId: "b", from: presenter)
    scheduler.run()
    #expect(b.statuses == ["initializing", "ready", "failed(another_ad_showing)"])
    #expect(manager.isRewardedReady(zoneId: "b"), "a refused show does not consume the ad")
    #expect(a.statuses.last == "closed")
  }

  @Test func destroyCancelsTheLoadAndDropsTheAd() {
    let (manager, scheduler) = makeManager()
    manager.configureZone(EmpowerZoneSettings(zoneId: "z"))
    let recorder = StatusRecorder(scheduler: scheduler)
    manager.loadRewardedAd(zoneId: "z", delegate: recorder)
    scheduler.runUntilIdle()
    manager.destroyRewardedZone(zoneId: "z")
    scheduler.run()
    #expect(recorder.statuses == ["initializing"])
    #expect(scheduler.pendingCount == 0)

    manager.loadRewardedAd(zoneId: "z", delegate: recorder)
    scheduler.run()
    #expect(manager.isRewardedReady(zoneId: "z"))
    manager.destroyRewardedZone(zoneId: "z")
    #expect(!manager.isRewardedReady(zoneId: "z"))
    manager.showRewarded(zoneId: "z", from: presenter)
    scheduler.run()
    #expect(
      recorder.statuses == ["initializing", "initializing", "ready"], "a destroyed zone has no delegate")
  }

  @Test func destroyDuringAShowSilencesTheRestButFreesTheScreen() {
    let (manager, scheduler) = makeManager()
    manager.configureZone(EmpowerZoneSettings(zoneId: "z", autoReload: true))
    let recorder = StatusRecorder(scheduler: scheduler)
    manager.loadRewardedAd(zoneId: "z", delegate: recorder)
    scheduler.run()
    manager.showRewarded(zoneId: "z", from: presenter)
    scheduler.advance(by: .seconds(1))
    manager.destroyRewardedZone(zoneId: "z")
    #expect(manager.isAnyFullScreenAdShowing())
    scheduler.run()
    #expect(recorder.statuses == ["initializing", "ready", "shown"])
    #expect(!manager.isAnyFullScreenAdShowing())
    #expect(!manager.isRewardedReady(zoneId: "z"), "a destroyed zone does not auto-reload")
  }

  @Test func autoReloadLoadsTheNextAdAfterDismissal() {
    for profile in [alwaysComplete, alwaysSkip] {
      let (manager, scheduler) = makeManager(profile: profile)
      manager.configureZone(EmpowerZoneSettings(zoneId: "z", autoReload: true))
      let recorder = StatusRecorder(scheduler: scheduler)
      manager.loadRewardedAd(zoneId: "z", delegate: recorder)
      scheduler.run()
      manager.showRewarded(zoneId: "z", from: presenter)
      scheduler.run()
      let dismissal = profile.skipProbability == 1 ? ["skipped"] : ["rewarded(coins, 100)", "closed"]
      #expect(
        recorder.statuses == ["initializing", "ready", "shown"] + dismissal + ["initializing", "ready"])
      #expect(manager.isRewardedReady(zoneId: "z"))
    }
  }

  @Test func withoutAutoReloadTheZoneStaysEmpty() {
    let (manager, scheduler) = makeManager()
    manager.configureZone(EmpowerZoneSettings(zoneId: "z", autoReload: false))
    let recorder = StatusRecorder(scheduler: scheduler)
    manager.loadRewardedAd(zoneId: "z", delegate: recorder)
    scheduler.run()
    manager.showRewarded(zoneId: "z", from: presenter)
    scheduler.run()
    #expect(recorder.statuses.last == "closed")
    #expect(!manager.isRewardedReady(zoneId: "z"))
  }

  @Test func reloadingJoinsAnInFlightLoadAndRereportsReady() {
    let (manager, scheduler) = makeManager()
    manager.configureZone(EmpowerZoneSettings(zoneId: "z"))
    let recorder = StatusRecorder(scheduler: scheduler)
    manager.loadRewardedAd(zoneId: "z", delegate: recorder)
    manager.loadRewardedAd(zoneId: "z", delegate: recorder)
    scheduler.run()
    #expect(recorder.statuses == ["initializing", "ready"])
    manager.loadRewardedAd(zoneId: "z")
    scheduler.run()
    #expect(recorder.statuses == ["initializing", "ready", "ready"])
  }

  @Test func theDelegateIsHeldWeakly() {
    let (manager, scheduler) = makeManager()
    manager.configureZone(EmpowerZoneSettings(zoneId: "z"))
    var recorder: StatusRecorder? = StatusRecorder(scheduler: scheduler)
    weak let weakRecorder = recorder
    manager.loadRewardedAd(zoneId: "z", delegate: recorder)
    recorder = nil
    #expect(weakRecorder == nil, "the SDK must not retain its delegate")
    scheduler.run()
    #expect(manager.isRewardedReady(zoneId: "z"), "the load still completes, with nobody to tell")
  }

  @Test func clicksGoToAClickDelegate() {
    let profile = EmpowerBehaviorProfile(
      fillRate: 1, networkErrorRate: 0, skipProbability: 0, clickProbability: 1)
    let (manager, scheduler) = makeManager(profile: profile)
    manager.configureZone(EmpowerZoneSettings(zoneId: "z"))
    let recorder = StatusRecorder(scheduler: scheduler)
    manager.loadRewardedAd(zoneId: "z", delegate: recorder)
    scheduler.run()
    manager.showRewarded(zoneId: "z", from: presenter)
    scheduler.run()
    #expect(recorder.clicks == 1)
    #expect(recorder.statuses == ["initializing", "ready", "shown", "rewarded(coins, 100)", "closed"])
  }

  @Test func logLevelIsSettableAndOrdered() {
    let settings = EMASettings()
    #expect(settings.logLevel == LogLevel.none)
    settings.logLevel = .all
    #expect(settings.logLevel == .all)
    #expect(LogLevel.none < .error && LogLevel.debug < .all)
  }
}
