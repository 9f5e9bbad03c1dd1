import Dispatch
import MaxSim
import MediationKit
import Testing

@Suite struct SDKTests {
  @Test func oneSharedInstancePerAdUnitPerSDK() {
    let (_, sdk) = makeSDK()
    let (_, other) = makeSDK()
    let first = MARewardedAd.shared(withAdUnitIdentifier: "unit-a", sdk: sdk)
    #expect(first === MARewardedAd.shared(withAdUnitIdentifier: "unit-a", sdk: sdk))
    #expect(first !== MARewardedAd.shared(withAdUnitIdentifier: "unit-b", sdk: sdk))
    #expect(first !== MARewardedAd.shared(withAdUnitIdentifier: "unit-a", sdk: other))
    #expect(first.adUnitIdentifier == "unit-a")
  }

  @Test func userIdentifierAcceptsUpTo8192CharactersAndRejectsLonger() {
    let (_, sdk) = makeSDK()
    sdk.userIdentifier = "user-id"
    #expect(sdk.userIdentifier == "user-id")
    let longest = String(repeating: "u", count: ALSdk.maxUserIdentifierLength)
    sdk.userIdentifier = longest
    #expect(sdk.userIdentifier == longest)
    sdk.userIdentifier = longest + "x"
    #expect(sdk.userIdentifier == longest, "a longer identifier is rejected, the previous one kept")
    sdk.userIdentifier = nil
    #expect(sdk.userIdentifier == nil)
  }

  @Test func initializationTakesTheProfileLatencyAndCallsEveryHandlerOnce() {
    let (scheduler, sdk) = makeSDK()
    let calls = CallCounter()
    let config = ALSdkInitializationConfiguration(sdkKey: "key") {
      $0.mediationProvider = ALMediationProviderMAX
    }
    #expect(config.mediationProvider == "max")
    sdk.initialize(with: config) { _ in calls.increment(at: scheduler.now) }
    sdk.initializeSdk { _ in calls.increment(at: scheduler.now) }
    #expect(!sdk.isInitialized)
    scheduler.run()
    #expect(sdk.isInitialized)
    #expect(calls.times == [.milliseconds(250), .milliseconds(250)])
    sdk.initializeSdk { _ in calls.increment(at: scheduler.now) }
    scheduler.run()
    #expect(calls.times.count == 3)
  }

  @Test func loadFillsAfterALogNormalLatencyWithAPriceAroundTheLineItem() throws {
    let (scheduler, sdk) = makeSDK()
    let ad = MARewardedAd.shared(withAdUnitIdentifier: "unit-a", sdk: sdk)
    let recorder = CallbackRecorder(clock: scheduler)
    ad.delegate = recorder
    ad.setExtraParameter(forKey: MARewardedAd.simulatedECPMKey, value: "20")
    ad.load()
    #expect(!ad.isReady)
    scheduler.run()
    #expect(recorder.calls == ["didLoad"])
    #expect(ad.isReady)
    let loaded = try #require(recorder.ads.first)
    #expect(loaded.adUnitIdentifier == "unit-a")
    #expect(loaded.revenuePrecision == "exact")
    #expect(loaded.format === MAAdFormat.rewarded)
    #expect(loaded.revenue > 0.02 / 4 && loaded.revenue < 0.02 * 4)
    #expect(MaxBehaviorProfile.default.networkNames.contains(loaded.networkName))
    let latency = try #require(recorder.time(of: "didLoad"))
    #expect(latency > .milliseconds(50) && latency < .seconds(10))
  }

  @Test func noFillIsError204() {
    var profile = MaxBehaviorProfile.wellBehaved
    profile.fillRate = 0
    profile.loadErrorShare = 0
    let (scheduler, sdk) = makeSDK(profile)
    let ad = MARewardedAd.shared(withAdUnitIdentifier: "unit-a", sdk: sdk)
    let recorder = CallbackRecorder(clock: scheduler)
    ad.delegate = recorder
    ad.load()
    scheduler.run()
    #expect(recorder.calls == ["didFailToLoadAd(204)"])
    #expect(recorder.errors.first?.message == "No Fill")
    #expect(!ad.isReady)
  }

  @Test func transportErrorsAreTimeoutNetworkOrAdLoadFailed() {
    var profile = MaxBehaviorProfile.wellBehaved
    profile.fillRate = 0
    profile.loadErrorShare = 1
    let (scheduler, sdk) = makeSDK(profile)
    let ad = MARewardedAd.shared(withAdUnitIdentifier: "unit-a", sdk: sdk)
    let recorder = CallbackRecorder(clock: scheduler)
    ad.delegate = recorder
    for _ in 0..<30 {
      ad.load()
      scheduler.run()
    }
    #expect(Set(recorder.errors.map(\.code)) == [.networkTimeout, .networkError, .adLoadFailed])
  }

  @Test func loadWhileLoadingIsIgnoredAndLoadWhenReadyRepeatsDidLoad() {
    let (scheduler, sdk) = makeSDK()
    let ad = MARewardedAd.shared(withAdUnitIdentifier: "unit-a", sdk: sdk)
    let recorder = CallbackRecorder(clock: scheduler)
    ad.delegate = recorder
    ad.load()
    ad.load()
    scheduler.run()
    #expect(recorder.calls == ["didLoad"])
    let loadedAt = scheduler.now
    ad.load()
    scheduler.run()
    #expect(recorder.calls == ["didLoad", "didLoad"])
    #expect(scheduler.now == loadedAt, "the ready ad is reported at once")
    #expect(recorder.ads[0] === recorder.ads[1])
  }

  /// Loads and shows one ad with `profile`; returns the recorder.
  private func showOnce(
    _ profile: MaxBehaviorProfile, seed: UInt64 = 42, placement: String? = "Rewarded_LevelEnd"
  ) -> CallbackRecorder {
    let (scheduler, sdk) = makeSDK(profile, seed: seed)
    let ad = MARewardedAd.shared(withAdUnitIdentifier: "unit-a", sdk: sdk)
    let recorder = CallbackRecorder(clock: scheduler)
    ad.delegate = recorder
    ad.revenueDelegate = recorder
    ad.setExtraParameter(forKey: MARewardedAd.simulatedRewardLabelKey, value: "coins")
    ad.setExtraParameter(forKey: MARewardedAd.simulatedRewardAmountKey, value: "10")
    ad.load()
    scheduler.run()
    ad.show(forPlacement: placement, customData: "data")
    scheduler.run()
    return recorder
  }

  @Test func aWellBehavedShowCallsBackInTheVendorsOrder() {
    let recorder = showOnce(.wellBehaved)
    #expect(
      recorder.calls == [
        "didLoad", "didDisplay", "didPayRevenue", "didStartRewardedVideo", "didCompleteRewardedVideo",
        "didRewardUser", "didHide",
      ])
    #expect(recorder.rewards.map(\.amount) == [10])
    #expect(recorder.rewards.map(\.label) == ["coins"])
    #expect(recorder.ads.allSatisfy { $0 === recorder.ads[0] })
    #expect(recorder.ads[0].placement == "Rewarded_LevelEnd")
    let watched = recorder.time(of: "didCompleteRewardedVideo")! - recorder.time(of: "didDisplay")!
    #expect(watched >= .seconds(15) && watched <= .seconds(30))
    let endCard = recorder.time(of: "didHide")! - recorder.time(of: "didCompleteRewardedVideo")!
    #expect(endCard >= .seconds(1) && endCard <= .seconds(3))
  }

  @Test func rewardDefaultsToTheVendorsZeroAndEmptyLabel() {
    let (scheduler, sdk) = makeSDK()
    let ad = MARewardedAd.shared(withAdUnitIdentifier: "unit-a", sdk: sdk)
    let recorder = CallbackRecorder(clock: scheduler)
    ad.delegate = recorder
    ad.load()
    scheduler.run()
    ad.show()
    scheduler.run()
    #expect(recorder.rewards.map(\.amount) == [0])
    #expect(recorder.rewards.map(\.label) == [""])
  }

  @Test func quirkRewardAfterHide() {
    var profile = MaxBehaviorProfile.wellBehaved
    profile.rewardAfterHideRate = 1
    let recorder = showOnce(profile)
    #expect(
      recorder.calls == [
        "didLoad", "didDisplay", "didPayRevenue", "didStartRewardedVideo", "didCompleteRewardedVideo",
        "didHide",
        "didRewardUser",
      ])
    let late = recorder.time(of: "didRewardUser")! - recorder.time(of: "didHide")!
    #expect(late >= .milliseconds(100) && late <= .seconds(2))
  }

  @Test func quirkLateHideComesSecondsLaterThanTheSameShowWithoutIt() {
    var profile = MaxBehaviorProfile.wellBehaved
    let onTime = showOnce(profile)
    profile.lateHideRate = 1
    let late = showOnce(profile)
    #expect(late.calls == onTime.calls)
    let delay = late.time(of: "didHide")! - onTime.time(of: "didHide")!
    #expect(delay >= .seconds(3) && delay <= .seconds(10))
    #expect(late.time(of: "didRewardUser") == onTime.time(of: "didRewardUser"))
  }

  @Test func quirkDuplicateReward() {
    var profile = MaxBehaviorProfile.wellBehaved
    profile.duplicateRewardRate = 1
    let recorder = showOnce(profile)
    #expect(
      recorder.calls == [
        "didLoad", "didDisplay", "didPayRevenue", "didStartRewardedVideo", "didCompleteRewardedVideo",
        "didRewardUser", "didRewardUser", "didHide",
      ])
  }

  @Test func quirkDuplicateRewardAfterHide() {
    var profile = MaxBehaviorProfile.wellBehaved
    profile.duplicateRewardRate = 1
    profile.rewardAfterHideRate = 1
    let recorder = showOnce(profile)
    #expect(recorder.calls.suffix(3) == ["didHide", "didRewardUser", "didRewardUser"])
  }

  @Test func quirkDisplayFailure() {
    var profile = MaxBehaviorProfile.wellBehaved
    profile.displayFailureRate = 1
    let (scheduler, sdk) = makeSDK(profile)
    let ad = MARewardedAd.shared(withAdUnitIdentifier: "unit-a", sdk: sdk)
    let recorder = CallbackRecorder(clock: scheduler)
    ad.delegate = recorder
    ad.load()
    scheduler.run()
    ad.show()
    scheduler.run()
    #expect(recorder.calls == ["didLoad", "didFailToDisplay(-4205)"])
    #expect(recorder.errors.first?.code == .adDisplayFailed)
    #expect(!ad.isReady, "a failed ad is used up")
    ad.load()
    scheduler.run()
    ad.show()
    scheduler.run()
    #expect(recorder.calls.last == "didFailToDisplay(-4205)", "the screen was released, so no -23")
  }

  @Test func skippedVideoHidesWithoutReward() {
    var profile = MaxBehaviorProfile.wellBehaved
    profile.skipRate = 1
    let recorder = showOnce(profile)
    #expect(recorder.calls == ["didLoad", "didDisplay", "didPayRevenue", "didStartRewardedVideo", "didHide"])
  }

  @Test func clickArrivesWhileTheAdIsOnScreen() {
    var profile = MaxBehaviorProfile.wellBehaved
    profile.clickRate = 1
    let recorder = showOnce(profile)
    #expect(recorder.calls.filter { $0 == "didClick" }.count == 1)
    let click = recorder.calls.firstIndex(of: "didClick")!
    #expect(click > recorder.calls.firstIndex(of: "didStartRewardedVideo")!)
    #expect(click < recorder.calls.firstIndex(of: "didHide")!)
  }

  @Test func showBeforeLoadFailsWithNotReady() {
    let (scheduler, sdk) = makeSDK()
    let ad = MARewardedAd.shared(withAdUnitIdentifier: "unit-a", sdk: sdk)
    let recorder = CallbackRecorder(clock: scheduler)
    ad.delegate = recorder
    ad.show()
    scheduler.run()
    #expect(recorder.calls == ["didFailToDisplay(-24)"])
    #expect(recorder.ads.first?.adUnitIdentifier == "unit-a")
  }

  @Test func showWhileAnotherFullscreenAdIsUpFailsWithMinus23() {
    let (scheduler, sdk) = makeSDK()
    let first = MARewardedAd.shared(withAdUnitIdentifier: "unit-a", sdk: sdk)
    let second = MARewardedAd.shared(withAdUnitIdentifier: "unit-b", sdk: sdk)
    let firstRecorder = CallbackRecorder(clock: scheduler)
    let secondRecorder = CallbackRecorder(clock: scheduler)
    first.delegate = firstRecorder
    second.delegate = secondRecorder
    first.load()
    second.load()
    scheduler.run()
    first.show()
    scheduler.advance(by: .seconds(5))
    second.show()
    scheduler.run()
    #expect(secondRecorder.calls == ["didLoad", "didFailToDisplay(-23)"])
    #expect(second.isReady, "the refused ad stays loaded")
    #expect(firstRecorder.calls.last == "didHide")
    second.show()
    scheduler.run()
    #expect(secondRecorder.calls.last == "didHide")
  }

  @Test func delegatesAreHeldWeakly() {
    let (scheduler, sdk) = makeSDK()
    let ad = MARewardedAd.shared(withAdUnitIdentifier: "unit-a", sdk: sdk)
    do {
      let recorder = CallbackRecorder(clock: scheduler)
      ad.delegate = recorder
      ad.revenueDelegate = recorder
      #expect(ad.delegate != nil)
    }
    #expect(ad.delegate == nil)
    #expect(ad.revenueDelegate == nil)
    ad.load()
    scheduler.run()
    #expect(ad.isReady)
  }

  @Test func offThreadDeliveryRunsDelegateCallsOnTheGivenQueueInOrder() {
    let queue = DispatchQueue(label: "max-sim.callbacks")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 7)
    var profile = MaxBehaviorProfile.wellBehaved
    profile.offThreadCallbacks = .init(probability: 1, queue: queue)
    let (scheduler, sdk) = makeSDK(profile)
    let offQueue = CallCounter()
    let recorder = CallbackRecorder(clock: scheduler) { _ in
      if DispatchQueue.getSpecific(key: key) == 7 { offQueue.increment(at: .zero) }
    }
    let ad = MARewardedAd.shared(withAdUnitIdentifier: "unit-a", sdk: sdk)
    ad.delegate = recorder
    ad.revenueDelegate = recorder
    ad.load()
    scheduler.run()
    queue.sync {}
    ad.show()
    scheduler.run()
    queue.sync {}
    #expect(
      recorder.calls == [
        "didLoad", "didDisplay", "didPayRevenue", "didStartRewardedVideo", "didCompleteRewardedVideo",
        "didRewardUser", "didHide",
      ])
    #expect(offQueue.times.count == 7)
  }

  /// Runs `cycles` load/show cycles with the default profile; returns the timed log.
  private func timeline(seed: UInt64, cycles: Int = 30) -> String {
    let (scheduler, sdk) = makeSDK(.default, seed: seed)
    let ad = MARewardedAd.shared(withAdUnitIdentifier: "unit-a", sdk: sdk)
    let recorder = CallbackRecorder(clock: scheduler)
    ad.delegate = recorder
    ad.revenueDelegate = recorder
    for _ in 0..<cycles {
      ad.load()
      scheduler.run()
      ad.show()
      scheduler.run()
    }
    let revenues = recorder.ads.map { String($0.revenue) + $0.networkName }.joined(separator: ",")
    return recorder.log + "\n" + revenues
  }

  @Test func defaultProfileQuirksAreRareButNotNever() {
    let (scheduler, sdk) = makeSDK(.default, seed: 2024)
    let ad = MARewardedAd.shared(withAdUnitIdentifier: "unit-a", sdk: sdk)
    var counts: [String: Int] = [:]
    let cycles = 4000
    for _ in 0..<cycles {
      let recorder = CallbackRecorder(clock: scheduler)
      ad.delegate = recorder
      ad.revenueDelegate = recorder
      ad.load()
      scheduler.run()
      guard ad.isReady else {
        counts["noFill", default: 0] += 1
        continue
      }
      ad.show()
      scheduler.run()
      let show = recorder.calls
      let rewards = show.filter { $0 == "didRewardUser" }.count
      if show.contains("didFailToDisplay(-4205)") { counts["displayFailed", default: 0] += 1 }
      if rewards == 2 { counts["duplicateReward", default: 0] += 1 }
      if show.last == "didRewardUser" { counts["rewardAfterHide", default: 0] += 1 }
      if show.contains("didClick") { counts["click", default: 0] += 1 }
      if show.contains("didHide") && rewards == 0 { counts["skip", default: 0] += 1 }
    }
    func rate(_ key: String) -> Double { Double(counts[key, default: 0]) / Double(cycles) }
    #expect(abs(rate("noFill") - 0.1) < 0.03)
    #expect(abs(rate("skip") - 0.9 * 0.99 * 0.1) < 0.03)
    #expect(abs(rate("click") - 0.9 * 0.99 * 0.05) < 0.02)
    #expect(abs(rate("rewardAfterHide") - 0.9 * 0.99 * 0.9 * 0.05) < 0.02)
    #expect(counts["rewardAfterHide", default: 0] > 0)
    #expect(counts["duplicateReward", default: 0] > 0)
    #expect(counts["displayFailed", default: 0] > 0)
  }

  @Test func sameSeedSameBehaviourByteForByte() {
    #expect(timeline(seed: 7) == timeline(seed: 7))
    #expect(timeline(seed: 7) != timeline(seed: 8))
  }
}

/// Counts calls and the times they came at.
final class CallCounter: Sendable {
  private let storage = Locked<[Duration]>([])
  var times: [Duration] { storage.withLock { $0 } }
  func increment(at time: Duration) { storage.withLock { $0.append(time) } }
}
