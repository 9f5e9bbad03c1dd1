import Foundation
import MediationKit
import MediationKitTesting
import Testing

@testable import GoogleSim

@Suite("GoogleAdapter")
struct GoogleAdapterTests {
  // MARK: Registration and start

  @Test func registrationBuildsAnAdapterOnTheEnvironment() {
    let registration = GoogleNetwork.registration()
    #expect(registration.info.id == "google")
    #expect(GoogleNetwork.id == "google")
    #expect(registration.info.capabilities.isSuperset(of: [.rewarded, .serverSideReward]))
    let scheduler = VirtualScheduler()
    let adapter = registration.makeAdapter(
      AdapterEnvironment(scheduler: scheduler, random: SeededRandom(seed: 1)))
    let google = adapter as? GoogleAdapter
    #expect(google != nil)
    #expect(google?.mobileAds !== MobileAds.shared)
    #expect(google?.mobileAds.scheduler as? VirtualScheduler === scheduler)
  }

  @Test func startSucceedsWhenTheSDKIsReady() {
    let (scheduler, mobileAds) = makeMobileAds()
    let result = Box<Result<Void, AdapterError>>()
    GoogleAdapter(mobileAds: mobileAds).start(AdapterStartRequest(placementIDs: ["a"])) { result.set($0) }
    scheduler.run()
    #expect((try? result.value?.get()) != nil)
  }

  @Test func startFailsWhenTheSDKIsNotReady() {
    let (scheduler, mobileAds) = makeMobileAds(.wellBehaved.with { $0.sdkReadyRate = 0 })
    let result = Box<Result<Void, AdapterError>>()
    GoogleAdapter(mobileAds: mobileAds).start(AdapterStartRequest(placementIDs: [])) { result.set($0) }
    scheduler.run()
    guard case .failure(let error) = result.value else {
      Issue.record("expected a failure")
      return
    }
    #expect(error.kind == .notInitialized)
  }

  // MARK: Load

  @Test func loadDeliversAnAdThatLivesOneHour() throws {
    let loaded = try loadAdapterAd()
    #expect(loaded.loaded.ecpm == nil)
    #expect(loaded.loaded.lifetime == .seconds(3600))
    let ad = try #require(loaded.loaded.ad as? GoogleAdapterAd)
    #expect(ad.rewardedAd?.adReward.type == "gems")
    #expect(ad.rewardedAd?.adReward.amount.doubleValue == 5)
  }

  @Test(arguments: [
    (GoogleBehaviorProfile.wellBehaved.with { $0.fillRate = 0 }, AdapterError.Kind.noFill, 1),
    (GoogleBehaviorProfile.wellBehaved.with { $0.timeoutRate = 1 }, .timeout, 5),
    (GoogleBehaviorProfile.wellBehaved.with { $0.networkErrorRate = 1 }, .networkError, 2),
  ])
  func loadFailuresAreMapped(profile: GoogleBehaviorProfile, kind: AdapterError.Kind, code: Int) {
    let (scheduler, mobileAds) = makeMobileAds(profile)
    let result = Box<Result<AdapterLoadedAd, AdapterError>>()
    _ = GoogleAdapter(mobileAds: mobileAds).load(
      AdapterLoadRequest(
        zoneID: "z", placementID: "unit", ecpm: 1, reward: AdapterSignal.NetworkReward(type: "c", amount: 1))
    ) { result.set($0) }
    scheduler.run()
    guard case .failure(let error) = result.value else {
      Issue.record("expected a failure")
      return
    }
    #expect(error.kind == kind)
    #expect(error.vendorCode == code)
  }

  /// A latency drawn from a profile whose spread no timer holds (e^1000 seconds) is clamped, not
  /// a trap: the load and the bid still complete.
  @Test func aLatencyNoTimerHoldsIsClampedNotATrap() {
    let profile = GoogleBehaviorProfile.wellBehaved.with {
      $0.loadLatencySigma = 1e6
      $0.bidLatencySigma = 1e6
      $0.bidLoadLatencySigma = 1e6
    }
    let (scheduler, mobileAds) = makeMobileAds(profile)
    let result = Box<Result<AdapterLoadedAd, AdapterError>>()
    let adapter = GoogleAdapter(mobileAds: mobileAds)
    for auction in 1...8 {
      _ = adapter.load(
        AdapterLoadRequest(
          zoneID: "z", placementID: "unit-\(auction)", ecpm: 1,
          reward: AdapterSignal.NetworkReward(type: "c", amount: 1),
          auctionID: UInt64(auction))
      ) { result.set($0) }
    }
    scheduler.run()
    #expect(result.value != nil)
  }

  @Test func invalidAdUnitIsAnInvalidRequest() {
    let (scheduler, mobileAds) = makeMobileAds()
    let result = Box<Result<AdapterLoadedAd, AdapterError>>()
    _ = GoogleAdapter(mobileAds: mobileAds).load(
      AdapterLoadRequest(
        zoneID: "z", placementID: "", ecpm: 1, reward: AdapterSignal.NetworkReward(type: "c", amount: 1))
    ) { result.set($0) }
    scheduler.run()
    guard case .failure(let error) = result.value else {
      Issue.record("expected a failure")
      return
    }
    #expect(error.kind == .invalidRequest)
    #expect(error.vendorCode == 0)
  }

  @Test(arguments: [
    (0, AdapterError.Kind.invalidRequest), (1, .noFill), (2, .networkError), (3, .networkError),
    (5, .timeout),
    (9, .noFill), (11, .internalError), (12, .invalidRequest), (15, .expired), (17, .internalError),
    (18, .notReady), (19, .notReady), (20, .notInitialized), (22, .internalError),
  ])
  func gadCodesMapToKinds(code: Int, kind: AdapterError.Kind) {
    let error = GoogleAdapter.adapterError(from: NSError(domain: RequestError.errorDomain, code: code))
    #expect(error.kind == kind)
    #expect(error.vendorCode == code)
  }

  @Test func foreignErrorsAreInternal() {
    let error = GoogleAdapter.adapterError(from: NSError(domain: "other", code: 1))
    #expect(error.kind == .internalError)
  }

  @Test func cancelledLoadIsIgnoredAndItsAdDropped() {
    let (scheduler, mobileAds) = makeMobileAds()
    let calls = Box<Int>()
    let handle = GoogleAdapter(mobileAds: mobileAds).load(
      AdapterLoadRequest(
        zoneID: "z", placementID: "unit", ecpm: 1, reward: AdapterSignal.NetworkReward(type: "c", amount: 1))
    ) { _ in calls.set((calls.value ?? 0) + 1) }
    handle.cancel()
    handle.cancel()
    scheduler.run()
    #expect(calls.value == nil)
  }

  // MARK: Show: every callback mapped

  @Test func fullLifecycleMapsToSignals() throws {
    let loaded = try loadAdapterAd()
    let recorder = SignalRecorder()
    loaded.loaded.ad.show(
      AdapterShowRequest(zoneID: "zone"), from: HeadlessPresenter(), signals: recorder.sink)
    loaded.scheduler.run()
    guard recorder.signals.count == 4, case .revenuePaid(let revenue) = recorder.signals[1] else {
      Issue.record("unexpected signals \(recorder.signals)")
      return
    }
    #expect(recorder.signals[0] == .displayed)
    #expect(revenue.precision == .exact)
    #expect(revenue.usd > 0)
    #expect(recorder.signals[2] == .rewarded(AdapterSignal.NetworkReward(type: "gems", amount: 5)))
    #expect(recorder.signals[3] == .dismissed)
  }

  @Test func eachDelegateCallbackMapsToOneSignal() throws {
    let loaded = try loadAdapterAd()
    let ad = try #require(loaded.loaded.ad as? GoogleAdapterAd)
    let gad = try #require(ad.rewardedAd)
    let recorder = SignalRecorder()
    ad.show(AdapterShowRequest(zoneID: "zone"), from: HeadlessPresenter(), signals: recorder.sink)
    // Drive the delegate by hand, before the simulated timeline runs.
    ad.adWillPresentFullScreenContent(gad)
    ad.adDidRecordImpression(gad)
    ad.adDidRecordClick(gad)
    ad.adWillDismissFullScreenContent(gad)
    ad.adDidDismissFullScreenContent(gad)
    ad.ad(
      gad, didFailToPresentFullScreenContentWithError: NSError(domain: RequestError.errorDomain, code: 18))
    ad.ad(
      gad, didFailToPresentFullScreenContentWithError: NSError(domain: RequestError.errorDomain, code: 15))
    #expect(recorder.signals.count == 5)
    #expect(Array(recorder.signals.prefix(3)) == [.displayed, .clicked, .dismissed])
    guard case .showFailed(let used) = recorder.signals[3],
      case .showFailed(let expired) = recorder.signals[4]
    else {
      Issue.record("expected two show failures")
      return
    }
    #expect(used.kind == .notReady)
    #expect(used.vendorCode == 18)
    #expect(expired.kind == .expired)
    #expect(expired.vendorCode == 15)
  }

  @Test func clickIsForwarded() throws {
    let loaded = try loadAdapterAd(.wellBehaved.with { $0.clickRate = 1 })
    let recorder = SignalRecorder()
    loaded.loaded.ad.show(
      AdapterShowRequest(zoneID: "zone"), from: HeadlessPresenter(), signals: recorder.sink)
    loaded.scheduler.run()
    #expect(recorder.signals.filter { $0 == .clicked }.count == 1)
    #expect(recorder.signals.last == .dismissed)
  }

  @Test func skipEndsWithoutReward() throws {
    let loaded = try loadAdapterAd(.wellBehaved.with { $0.skipRate = 1 })
    let recorder = SignalRecorder()
    loaded.loaded.ad.show(
      AdapterShowRequest(zoneID: "zone"), from: HeadlessPresenter(), signals: recorder.sink)
    loaded.scheduler.run()
    #expect(recorder.signals.first == .displayed)
    #expect(recorder.signals.last == .dismissed)
    #expect(!recorder.signals.contains { if case .rewarded = $0 { true } else { false } })
  }

  @Test func presentFailureMapsToShowFailed() throws {
    let loaded = try loadAdapterAd(.wellBehaved.with { $0.presentFailureRate = 1 })
    let recorder = SignalRecorder()
    loaded.loaded.ad.show(
      AdapterShowRequest(zoneID: "zone"), from: HeadlessPresenter(), signals: recorder.sink)
    loaded.scheduler.run()
    #expect(recorder.signals.map(\.failureKind) == [.internalError])
  }

  @Test func expiredAdFailsWithExpired() throws {
    let loaded = try loadAdapterAd()
    loaded.scheduler.advance(by: .seconds(3600))
    let recorder = SignalRecorder()
    loaded.loaded.ad.show(
      AdapterShowRequest(zoneID: "zone"), from: HeadlessPresenter(), signals: recorder.sink)
    loaded.scheduler.run()
    #expect(recorder.signals.map(\.failureKind) == [.expired])
  }

  @Test func secondShowOfTheSameSDKAdFailsAsAlreadyUsed() throws {
    let loaded = try loadAdapterAd()
    let gad = try #require((loaded.loaded.ad as? GoogleAdapterAd)?.rewardedAd)
    gad.present(from: nil) {}  // someone used the SDK ad behind the adapter's back
    let recorder = SignalRecorder()
    loaded.loaded.ad.show(
      AdapterShowRequest(zoneID: "zone"), from: HeadlessPresenter(), signals: recorder.sink)
    loaded.scheduler.run()
    // The refusal comes first; the first presentation's callbacks follow (the adapter is now the
    // delegate), forwarded as they come.
    #expect(recorder.signals.map(\.failureKind) == [.notReady, nil, nil, nil])
    if case .showFailed(let error) = recorder.signals.first { #expect(error.vendorCode == 18) }
  }

  // MARK: Quirks are forwarded as they come

  @Test func lateRewardIsForwardedAfterTheDismissal() throws {
    let loaded = try loadAdapterAd(.wellBehaved.with { $0.rewardAfterDismissRate = 1 })
    let recorder = SignalRecorder()
    loaded.loaded.ad.show(
      AdapterShowRequest(zoneID: "zone"), from: HeadlessPresenter(), signals: recorder.sink)
    loaded.scheduler.run()
    #expect(recorder.signals.map(\.name) == ["displayed", "revenuePaid", "dismissed", "rewarded"])
    #expect(recorder.signals.last == .rewarded(AdapterSignal.NetworkReward(type: "gems", amount: 5)))
  }

  @Test func duplicateRewardIsForwardedTwice() throws {
    let loaded = try loadAdapterAd(.wellBehaved.with { $0.duplicateRewardRate = 1 })
    let recorder = SignalRecorder()
    loaded.loaded.ad.show(
      AdapterShowRequest(zoneID: "zone"), from: HeadlessPresenter(), signals: recorder.sink)
    loaded.scheduler.run()
    #expect(
      recorder.signals.map(\.name) == ["displayed", "revenuePaid", "rewarded", "rewarded", "dismissed"])
  }

  @Test func lateAndDuplicateRewardTogether() throws {
    let loaded = try loadAdapterAd(
      .wellBehaved.with {
        $0.duplicateRewardRate = 1; $0.rewardAfterDismissRate = 1
      })
    let recorder = SignalRecorder()
    loaded.loaded.ad.show(
      AdapterShowRequest(zoneID: "zone"), from: HeadlessPresenter(), signals: recorder.sink)
    loaded.scheduler.run()
    #expect(
      recorder.signals.map(\.name) == ["displayed", "revenuePaid", "dismissed", "rewarded", "rewarded"])
  }

  // MARK: Server-side verification and discard

  @Test func customDataBecomesTheSSVCustomRewardString() throws {
    let loaded = try loadAdapterAd()
    let gad = try #require((loaded.loaded.ad as? GoogleAdapterAd)?.rewardedAd)
    loaded.loaded.ad.show(
      AdapterShowRequest(zoneID: "zone", customData: "player=7"), from: HeadlessPresenter(),
      signals: SignalRecorder().sink)
    #expect(gad.serverSideVerificationOptions?.customRewardText == "player=7")
    loaded.scheduler.run()
    #expect(loaded.adapter.mobileAds.simulatedRewardCallbacks.map(\.customData) == ["player=7"])
  }

  @Test func noCustomDataLeavesSSVOptionsUnset() throws {
    let loaded = try loadAdapterAd()
    let gad = try #require((loaded.loaded.ad as? GoogleAdapterAd)?.rewardedAd)
    loaded.loaded.ad.show(
      AdapterShowRequest(zoneID: "zone"), from: HeadlessPresenter(), signals: SignalRecorder().sink)
    #expect(gad.serverSideVerificationOptions == nil)
  }

  @Test func discardStopsForwardingAndReleasesTheSDKAd() throws {
    let loaded = try loadAdapterAd()
    let recorder = SignalRecorder()
    loaded.loaded.ad.show(
      AdapterShowRequest(zoneID: "zone"), from: HeadlessPresenter(), signals: recorder.sink)
    loaded.scheduler.advance(by: .seconds(1))
    #expect(recorder.signals.first == .displayed)
    loaded.loaded.ad.discard()
    loaded.scheduler.run()
    #expect(recorder.signals.map(\.name) == ["displayed", "revenuePaid"])
    #expect((loaded.loaded.ad as? GoogleAdapterAd)?.rewardedAd == nil)
  }

  @Test func showAfterDiscardFailsAsNotReady() throws {
    let loaded = try loadAdapterAd()
    loaded.loaded.ad.discard()
    let recorder = SignalRecorder()
    loaded.loaded.ad.show(
      AdapterShowRequest(zoneID: "zone"), from: HeadlessPresenter(), signals: recorder.sink)
    #expect(recorder.signals.map(\.failureKind) == [.notReady])
  }

  @Test func adaptersOnTheSameSeedAgree() throws {
    let profile = GoogleBehaviorProfile.default
    func run() -> [String] {
      (0..<20).map { index in
        guard let loaded = try? loadAdapterAd(profile, seed: 5 + UInt64(index)) else { return "no ad" }
        let recorder = SignalRecorder()
        loaded.loaded.ad.show(
          AdapterShowRequest(zoneID: "z"), from: HeadlessPresenter(), signals: recorder.sink)
        loaded.scheduler.run()
        return "\(loaded.scheduler.now) \(recorder.signals)"
      }
    }
    #expect(run() == run())
  }
}

extension AdapterSignal {
  /// The case name, for order assertions.
  fileprivate var name: String {
    switch self {
    case .displayed: "displayed"
    case .clicked: "clicked"
    case .revenuePaid: "revenuePaid"
    case .rewarded: "rewarded"
    case .dismissed: "dismissed"
    case .showFailed: "showFailed"
    }
  }

  /// The failure kind of a `.showFailed`, `nil` otherwise.
  fileprivate var failureKind: AdapterError.Kind? {
    if case .showFailed(let error) = self { return error.kind }
    return nil
  }
}
