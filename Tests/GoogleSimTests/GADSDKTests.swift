import Foundation
import GoogleSim
import MediationKit
import MediationKitTesting
import Testing

@Suite("Simulated Google Mobile Ads SDK")
struct GADSDKTests {
  // MARK: Initialization

  @Test func startReportsEveryAdapterStatus() {
    let (scheduler, mobileAds) = makeMobileAds()
    #expect(
      mobileAds.initializationStatus.adapterStatusesByClassName.values.allSatisfy { $0.state == .notReady })
    var reported: InitializationStatus?
    mobileAds.start { reported = $0 }
    scheduler.run()
    let statuses = try! #require(reported).adapterStatusesByClassName
    #expect(
      Set(statuses.keys) == ["GADMobileAds", "GADMediationAdapterAppLovin", "GADMediationAdapterUnity"])
    #expect(statuses.values.allSatisfy { $0.state == .ready && $0.latency > 0 && $0.description == "Ready." })
    #expect(mobileAds.initializationStatus.adapterStatusesByClassName["GADMobileAds"]?.state == .ready)
    #expect(scheduler.now.seconds == statuses.values.map(\.latency).max()!.rounded(toPlaces: 3))
  }

  @Test func startReportsAdaptersThatFailOrTimeOut() {
    let profile = GoogleBehaviorProfile.wellBehaved.with {
      $0.mediationAdapterReadyRate = 0
      $0.mediationInitLatencyMedian = .seconds(60)  // every mediation adapter exceeds the 10 s timeout
      $0.mediationAdapterClassNames = ["GADMediationAdapterSlow"]
    }
    let (scheduler, mobileAds) = makeMobileAds(profile)
    var reported: InitializationStatus?
    mobileAds.start { reported = $0 }
    scheduler.run()
    let slow = reported?.adapterStatusesByClassName["GADMediationAdapterSlow"]
    #expect(slow?.state == .notReady)
    #expect(slow?.description == "Timeout.")
    #expect(reported?.adapterStatusesByClassName["GADMobileAds"]?.state == .ready)
    #expect(scheduler.now == .seconds(10))
  }

  @Test func startTwiceReportsTheSameStatusToEveryHandler() {
    let (scheduler, mobileAds) = makeMobileAds()
    var calls: [InitializationStatus] = []
    mobileAds.start { calls.append($0) }
    mobileAds.start { calls.append($0) }
    scheduler.run()
    mobileAds.start { calls.append($0) }
    scheduler.run()
    #expect(calls.count == 3)
    #expect(calls.allSatisfy { $0 === calls[0] })
  }

  @Test func asyncStartReturnsTheStatusOnceInitializationCompletes() async throws {
    let scheduler = SignallingScheduler()
    let mobileAds = MobileAds(scheduler: scheduler, random: SeededRandom(seed: 42), profile: .wellBehaved)
    let (first, again) = try await scheduler.driving {
      (await mobileAds.start(), await mobileAds.start())
    }
    #expect(first.adapterStatusesByClassName[MobileAds.sdkAdapterClassName]?.state == .ready)
    #expect(first === mobileAds.initializationStatus)
    #expect(again === first)
  }

  // MARK: Loading

  @Test func completionLoadDeliversAnAdWithItsRewardReadableRightAway() throws {
    let (scheduler, mobileAds) = makeMobileAds()
    mobileAds.setSimulatedAdUnit(
      GADSimulatedAdUnit(ecpm: 20, rewardType: "gems", rewardAmount: 25), forAdUnitID: "unit-a")
    let (ad, error) = loadAd(mobileAds, on: scheduler, adUnitID: "unit-a")
    let loaded = try #require(ad)
    #expect(error == nil)
    #expect(loaded.adUnitID == "unit-a")
    #expect(loaded.adReward.type == "gems")
    #expect(loaded.adReward.amount == NSDecimalNumber(value: 25))
    #expect(loaded.responseInfo.responseIdentifier?.count == 36)
    #expect(scheduler.now > .zero)
    try loaded.canPresent(from: nil)
  }

  @Test func unconfiguredAdUnitsUseTheProfileReward() throws {
    let (scheduler, mobileAds) = makeMobileAds()
    let ad = try #require(loadAd(mobileAds, on: scheduler).0)
    #expect(ad.adReward.type == "coins")
    #expect(ad.adReward.amount.intValue == 10)
  }

  @Test(arguments: [
    (GoogleBehaviorProfile.wellBehaved.with { $0.fillRate = 0 }, RequestError.noFill.rawValue),
    (GoogleBehaviorProfile.wellBehaved.with { $0.timeoutRate = 1 }, RequestError.timeout.rawValue),
    (GoogleBehaviorProfile.wellBehaved.with { $0.networkErrorRate = 1 }, RequestError.networkError.rawValue),
  ])
  func completionLoadReportsGADErrors(profile: GoogleBehaviorProfile, code: Int) {
    let (scheduler, mobileAds) = makeMobileAds(profile)
    let (ad, error) = loadAd(mobileAds, on: scheduler)
    #expect(ad == nil)
    #expect(error?.domain == RequestError.errorDomain)
    #expect(error?.code == code)
  }

  @Test func emptyAdUnitIDIsAnInvalidRequest() {
    let (scheduler, mobileAds) = makeMobileAds()
    let (_, error) = loadAd(mobileAds, on: scheduler, adUnitID: "")
    #expect(error?.code == RequestError.invalidRequest.rawValue)
  }

  @Test func timeoutTakesTheTimeoutLatency() {
    let (scheduler, mobileAds) = makeMobileAds(.wellBehaved.with { $0.timeoutRate = 1 })
    _ = loadAd(mobileAds, on: scheduler)
    #expect(scheduler.now == .seconds(10))
  }

  @Test func asyncLoadCompletesUnderVirtualTime() async throws {
    let scheduler = SignallingScheduler()
    let mobileAds = MobileAds(scheduler: scheduler, random: SeededRandom(seed: 7), profile: .wellBehaved)
    let ad = try await scheduler.driving {
      try await RewardedAd.load(with: "unit-async", request: Request(), mobileAds: mobileAds)
    }
    #expect(ad.adUnitID == "unit-async")
    #expect(scheduler.now > .zero)

    // Same seed, completion form: the same ad at the same virtual time.
    let (twinScheduler, twin) = makeMobileAds(.wellBehaved, seed: 7)
    let twinAd = try #require(loadAd(twin, on: twinScheduler, adUnitID: "unit-async").0)
    #expect(twinScheduler.now == scheduler.now)
    #expect(twinAd.responseInfo.responseIdentifier == ad.responseInfo.responseIdentifier)
  }

  @Test func asyncLoadThrowsTheGADError() async throws {
    let scheduler = SignallingScheduler()
    let mobileAds = MobileAds(
      scheduler: scheduler, random: SeededRandom(seed: 7), profile: .wellBehaved.with { $0.fillRate = 0 })
    let error = await #expect(throws: NSError.self) {
      try await scheduler.driving {
        try await RewardedAd.load(with: "unit", request: Request(), mobileAds: mobileAds)
      }
    }
    #expect(error?.domain == RequestError.errorDomain)
    #expect(error?.code == RequestError.noFill.rawValue)
  }

  // MARK: Presenting

  @Test func presentRunsTheFullLifecycleInOrder() throws {
    let (scheduler, mobileAds) = makeMobileAds()
    let ad = try #require(loadAd(mobileAds, on: scheduler).0)
    let recorder = CallbackRecorder(scheduler: scheduler)
    ad.fullScreenContentDelegate = recorder
    let start = scheduler.now
    ad.present(from: HeadlessPresenter()) { recorder.record("reward") }
    scheduler.run()
    #expect(recorder.events == ["willPresent", "impression", "reward", "willDismiss", "didDismiss"])
    let watched = recorder.times[2] - recorder.times[1]
    #expect(watched >= .seconds(15) && watched <= .seconds(30))
    #expect(recorder.times[4] - recorder.times[3] == .milliseconds(300))
    #expect(recorder.times[0] == start)
  }

  @Test func clicksAndSkipsFollowTheProfile() throws {
    let (scheduler, mobileAds) = makeMobileAds(
      .wellBehaved.with {
        $0.clickRate = 1; $0.skipRate = 1
      })
    let ad = try #require(loadAd(mobileAds, on: scheduler).0)
    let recorder = CallbackRecorder(scheduler: scheduler)
    ad.fullScreenContentDelegate = recorder
    ad.present(from: nil) { recorder.record("reward") }
    scheduler.run()
    // A skipped ad never rewards; the click lands while the ad is on screen.
    #expect(!recorder.events.contains("reward"))
    #expect(recorder.events == ["willPresent", "impression", "click", "willDismiss", "didDismiss"])
    #expect(recorder.times[4] - recorder.times[1] < .seconds(30))
  }

  @Test func paidEventReportsThePriceAtTheImpression() throws {
    let (scheduler, mobileAds) = makeMobileAds(.wellBehaved.with { $0.priceSigma = 0 })
    mobileAds.setSimulatedAdUnit(
      GADSimulatedAdUnit(ecpm: 15, rewardType: "coins", rewardAmount: 1), forAdUnitID: "u")
    let ad = try #require(loadAd(mobileAds, on: scheduler, adUnitID: "u").0)
    let recorder = CallbackRecorder(scheduler: scheduler)
    ad.fullScreenContentDelegate = recorder
    var values: [AdValue] = []
    ad.paidEventHandler = { value in
      values.append(value)
      recorder.record("paid")
    }
    ad.present(from: nil) {}
    scheduler.run()
    #expect(values.count == 1)
    #expect(abs(values[0].value.doubleValue - 0.015) < 1e-12)
    #expect(values[0].precision == .precise)
    #expect(values[0].currencyCode == "USD")
    #expect(Array(recorder.events.prefix(3)) == ["willPresent", "impression", "paid"])
  }

  @Test func aRewardedAdIsSingleUse() throws {
    let (scheduler, mobileAds) = makeMobileAds()
    let ad = try #require(loadAd(mobileAds, on: scheduler).0)
    let recorder = CallbackRecorder(scheduler: scheduler)
    ad.fullScreenContentDelegate = recorder
    ad.present(from: nil) { recorder.record("reward") }
    scheduler.run()
    ad.present(from: nil) { recorder.record("second reward") }
    scheduler.run()
    #expect(recorder.events.suffix(2) == ["didDismiss", "failToPresent(18)"])
    #expect(recorder.errors.first?.domain == RequestError.errorDomain)
    #expect(recorder.errors.first?.code == PresentationError.codeAdAlreadyUsed.rawValue)
    #expect(!recorder.events.contains("second reward"))
    #expect(throws: NSError.self) { try ad.canPresent(from: nil) }
  }

  @Test func anAdExpiresOneHourAfterLoadingOnTheSchedulersClock() throws {
    let (scheduler, mobileAds) = makeMobileAds()
    let ad = try #require(loadAd(mobileAds, on: scheduler).0)
    scheduler.advance(by: .seconds(3599))
    try ad.canPresent(from: nil)
    scheduler.advance(by: .seconds(1))
    let error = #expect(throws: NSError.self) { try ad.canPresent(from: nil) }
    #expect(error?.code == PresentationError.codeAdNotReady.rawValue)

    let recorder = CallbackRecorder(scheduler: scheduler)
    ad.fullScreenContentDelegate = recorder
    ad.present(from: nil) { recorder.record("reward") }
    scheduler.run()
    #expect(recorder.events == ["failToPresent(15)"])
  }

  @Test func presentFailureIsReportedThroughTheDelegate() throws {
    let (scheduler, mobileAds) = makeMobileAds(.wellBehaved.with { $0.presentFailureRate = 1 })
    let ad = try #require(loadAd(mobileAds, on: scheduler).0)
    let recorder = CallbackRecorder(scheduler: scheduler)
    ad.fullScreenContentDelegate = recorder
    ad.present(from: nil) { recorder.record("reward") }
    scheduler.run()
    #expect(recorder.events == ["failToPresent(17)"])
  }

  @Test func theDelegateIsHeldWeakly() throws {
    let (scheduler, mobileAds) = makeMobileAds()
    let ad = try #require(loadAd(mobileAds, on: scheduler).0)
    do {
      let recorder = CallbackRecorder(scheduler: scheduler)
      ad.fullScreenContentDelegate = recorder
      #expect(ad.fullScreenContentDelegate != nil)
    }
    #expect(ad.fullScreenContentDelegate == nil)
  }

  // MARK: Quirks

  @Test func rewardCanArriveAfterTheDismissal() throws {
    let (scheduler, mobileAds) = makeMobileAds(.wellBehaved.with { $0.rewardAfterDismissRate = 1 })
    let ad = try #require(loadAd(mobileAds, on: scheduler).0)
    let recorder = CallbackRecorder(scheduler: scheduler)
    ad.fullScreenContentDelegate = recorder
    ad.present(from: nil) { recorder.record("reward") }
    scheduler.run()
    #expect(recorder.events == ["willPresent", "impression", "willDismiss", "didDismiss", "reward"])
    let lateness = recorder.times[4] - recorder.times[3]
    #expect(lateness >= .milliseconds(200) && lateness <= .seconds(2))
  }

  @Test func rewardCanArriveTwice() throws {
    let (scheduler, mobileAds) = makeMobileAds(.wellBehaved.with { $0.duplicateRewardRate = 1 })
    let ad = try #require(loadAd(mobileAds, on: scheduler).0)
    let recorder = CallbackRecorder(scheduler: scheduler)
    ad.fullScreenContentDelegate = recorder
    ad.present(from: nil) { recorder.record("reward") }
    scheduler.run()
    #expect(
      recorder.events == ["willPresent", "impression", "reward", "reward", "willDismiss", "didDismiss"])
    // The ad server still sends one server-side verification callback.
    #expect(mobileAds.simulatedRewardCallbacks.count == 1)
  }

  @Test func serverSideVerificationOptionsReachTheCallbackAndAreCopied() throws {
    let (scheduler, mobileAds) = makeMobileAds()
    let ad = try #require(loadAd(mobileAds, on: scheduler).0)
    let options = ServerSideVerificationOptions()
    options.customRewardText = "SAMPLE_CUSTOM_DATA_STRING"
    options.userIdentifier = "user-1"
    ad.serverSideVerificationOptions = options
    options.customRewardText = "changed after assignment"
    #expect(ad.serverSideVerificationOptions?.customRewardText == "SAMPLE_CUSTOM_DATA_STRING")
    ad.present(from: nil) {}
    scheduler.run()
    let callback = try #require(mobileAds.simulatedRewardCallbacks.first)
    #expect(callback.customData == "SAMPLE_CUSTOM_DATA_STRING")
    #expect(callback.userIdentifier == "user-1")
    #expect(callback.rewardType == "coins")
    #expect(callback.transactionID == ad.responseInfo.responseIdentifier)
  }

  // MARK: Determinism

  @Test func sameSeedSameTimelineByteForByte() {
    let profile = GoogleBehaviorProfile.default.with {
      $0.clickRate = 0.3
      $0.rewardAfterDismissRate = 0.2
      $0.duplicateRewardRate = 0.2
    }
    let first = transcript(profile: profile, seed: 99)
    #expect(first == transcript(profile: profile, seed: 99))
    #expect(first != transcript(profile: profile, seed: 100))
    #expect(first.contains("noFill") || first.contains("error"))
  }

  /// Loads and shows 60 ads on the default profile and writes down everything that happened.
  private func transcript(profile: GoogleBehaviorProfile, seed: UInt64) -> String {
    let (scheduler, mobileAds) = makeMobileAds(profile, seed: seed)
    var lines: [String] = []
    for index in 0..<60 {
      let (ad, error) = loadAd(mobileAds, on: scheduler, adUnitID: "unit-\(index % 3)")
      guard let ad else {
        lines.append("\(scheduler.now) error \(error?.code ?? -1)\(error?.code == 1 ? " noFill" : "")")
        continue
      }
      let recorder = CallbackRecorder(scheduler: scheduler)
      ad.fullScreenContentDelegate = recorder
      ad.paidEventHandler = { recorder.record("paid \($0.value)") }
      ad.present(from: nil) { recorder.record("reward") }
      scheduler.run()
      lines.append(
        "\(ad.responseInfo.responseIdentifier ?? "") \(zip(recorder.times, recorder.events).map { "\($0)=\($1)" })"
      )
    }
    return lines.joined(separator: "\n")
  }
}

extension Double {
  fileprivate func rounded(toPlaces places: Int) -> Double {
    let factor = pow(10, Double(places))
    return (self * factor).rounded() / factor
  }
}

/// The guide's Google Mobile Ads v11 spellings are deprecated aliases and forwards of the current
/// API: each test is marked deprecated, so using them on purpose raises no warning.
@Suite("Google Mobile Ads v11 spellings")
struct V11SpellingTests {
  @available(*, deprecated, message: "exercises the v11 spellings on purpose")
  @Test func v11LoadCheckAndPresentForwardToTheCurrentAPI() throws {
    let (scheduler, mobileAds) = makeMobileAds()
    var loaded: GADRewardedAd?
    GADRewardedAd.load(withAdUnitID: "unit", request: GADRequest(), mobileAds: mobileAds) { ad, _ in
      loaded = ad
    }
    scheduler.run()
    let ad = try #require(loaded)
    let options = GADServerSideVerificationOptions()
    options.customRewardString = "custom"
    #expect(options.customRewardText == "custom")
    ad.serverSideVerificationOptions = options
    try ad.canPresent(fromRootViewController: nil)

    var rewards = 0
    ad.present(fromRootViewController: nil) { rewards += 1 }
    scheduler.run()
    #expect(rewards == 1)
    #expect(mobileAds.simulatedRewardCallbacks.map(\.customData) == ["custom"])

    do {
      try ad.canPresent(fromRootViewController: nil)
      Issue.record("a used ad passed the check")
    } catch {
      let error = error as NSError
      #expect(error.domain == GADErrorDomain)
      #expect(error.code == GADPresentationErrorCodeAdAlreadyUsed)
      #expect(error.code == GADPresentationErrorCode.adAlreadyUsed.rawValue)
    }
  }

  @available(*, deprecated, message: "exercises the v11 spellings on purpose")
  @Test func v11ConstantsAreTheCurrentValues() {
    #expect(GADErrorDomain == RequestError.errorDomain)
    #expect(GADErrorNoFill == RequestError.noFill.rawValue)
    #expect(GADErrorTimeout == RequestError.timeout.rawValue)
    #expect(GADErrorInvalidRequest == RequestError.invalidRequest.rawValue)
    #expect(GADErrorNetworkError == RequestError.networkError.rawValue)
    #expect(GADErrorCode.noFill == RequestError.Code.noFill)
    #expect(GADPresentationErrorCodeAdNotReady == 15)
    #expect(GADPresentationErrorCode.adNotReady == .codeAdNotReady)
    #expect(GADPresentationErrorCode.internal == .codeInternal)
    #expect(GADPresentationErrorCode.adTooLarge == .codeAdTooLarge)
    #expect(GADMobileAds.sharedInstance() === MobileAds.shared)
  }
}
