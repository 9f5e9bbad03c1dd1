import MediationKit
import MediationKitTesting
import Testing

@testable import UnitySim

/// Every Unity callback, translated into exactly the signal or completion the seam expects.
@Suite("Unity adapter mapping")
struct UnityAdapterMappingTests {
  @Test func showStartIsDisplayed() {
    let recorder = SignalRecorder()
    ShowListener(recorder.sink).unityAdsShowStart("Rewarded_iOS")
    #expect(recorder.signals == [.displayed])
  }

  @Test func showClickIsClicked() {
    let recorder = SignalRecorder()
    ShowListener(recorder.sink).unityAdsShowClick("Rewarded_iOS")
    #expect(recorder.signals == [.clicked])
  }

  @Test func completedIsRewardedThenDismissed() {
    let recorder = SignalRecorder()
    ShowListener(recorder.sink).unityAdsShowComplete("Rewarded_iOS", withFinish: .completed)
    #expect(recorder.signals == [.rewarded(nil), .dismissed])
  }

  @Test func skippedIsDismissedWithoutReward() {
    let recorder = SignalRecorder()
    ShowListener(recorder.sink).unityAdsShowComplete("Rewarded_iOS", withFinish: .skipped)
    #expect(recorder.signals == [.dismissed])
  }

  @Test func duplicateCallbacksAreForwardedUnchanged() {
    let recorder = SignalRecorder()
    let listener = ShowListener(recorder.sink)
    listener.unityAdsShowComplete("Rewarded_iOS", withFinish: .completed)
    listener.unityAdsShowComplete("Rewarded_iOS", withFinish: .completed)
    #expect(recorder.signals == [.rewarded(nil), .dismissed, .rewarded(nil), .dismissed])
  }

  @Test(arguments: [
    (UnityAdsShowError.showErrorNotInitialized, AdapterError.Kind.notInitialized),
    (.showErrorNotReady, .notReady),
    (.showErrorVideoPlayerError, .internalError),
    (.showErrorInvalidArgument, .invalidRequest),
    (.showErrorNoConnection, .networkError),
    (.showErrorAlreadyShowing, .anotherAdShowing),
    (.showErrorInternalError, .internalError),
    (.showErrorTimeout, .timeout),
  ])
  func showFailedIsShowFailed(error: UnityAdsShowError, kind: AdapterError.Kind) {
    let recorder = SignalRecorder()
    ShowListener(recorder.sink).unityAdsShowFailed("Rewarded_iOS", withError: error, withMessage: "boom")
    #expect(
      recorder.signals == [.showFailed(AdapterError(kind, vendorCode: error.rawValue, message: "boom"))])
  }

  @Test func loadedCompletesWithANewAdAtTheLineItemsPrice() {
    let recorder = LoadRecorder()
    LoadListener(
      sdk: makeSDK().sdk, unshown: UnshownAds(), sink: .ignored, completion: recorder.completion
    ).unityAdsAdLoaded("Rewarded_iOS")
    #expect(recorder.results.count == 1)
    #expect((recorder.ad?.ad as? UnityAd)?.placementId == "Rewarded_iOS")
    #expect(recorder.ad?.ecpm == nil)
  }

  @Test(arguments: [
    (UnityAdsLoadError.initializeFailed, AdapterError.Kind.notInitialized),
    (.internal, .internalError),
    (.invalidArgument, .invalidRequest),
    (.noFill, .noFill),
    (.timeout, .timeout),
  ])
  func failedCompletesWithAMappedError(error: UnityAdsLoadError, kind: AdapterError.Kind) {
    let recorder = LoadRecorder()
    LoadListener(
      sdk: makeSDK().sdk, unshown: UnshownAds(), sink: .ignored, completion: recorder.completion
    )
    .unityAdsAdFailed(toLoad: "Rewarded_iOS", withError: error, withMessage: "nope")
    #expect(recorder.results.count == 1)
    #expect(recorder.error == AdapterError(kind, vendorCode: error.rawValue, message: "nope"))
  }

  @Test func aLoadCompletesAtMostOnceAndNeverAfterCancellation() {
    let once = LoadRecorder()
    let listener = LoadListener(
      sdk: makeSDK().sdk, unshown: UnshownAds(), sink: .ignored, completion: once.completion)
    listener.unityAdsAdLoaded("Rewarded_iOS")
    listener.unityAdsAdFailed(toLoad: "Rewarded_iOS", withError: .noFill, withMessage: "late")
    #expect(once.results.count == 1)

    let cancelled = LoadRecorder()
    let other = LoadListener(
      sdk: makeSDK().sdk, unshown: UnshownAds(), sink: .ignored, completion: cancelled.completion)
    other.cancel()
    other.unityAdsAdLoaded("Rewarded_iOS")
    #expect(cancelled.results.isEmpty)
  }
}

/// The adapter driving its simulated SDK on virtual time: the callbacks the SDK really makes.
@Suite("Unity adapter over its SDK")
struct UnityAdapterFlowTests {
  @Test func registrationDescribesUnityAndGivesEachAdapterItsOwnSDK() {
    let registration = UnityNetwork.registration()
    #expect(registration.info.id == "unity")
    #expect(registration.info.capabilities == [.rewarded])
    let environment = AdapterEnvironment(scheduler: VirtualScheduler(), random: SeededRandom(seed: 1))
    let first = registration.makeAdapter(environment) as? UnityAdapter
    let second = registration.makeAdapter(environment) as? UnityAdapter
    #expect(first != nil && second != nil)
    #expect(first?.sdk !== second?.sdk)
    #expect(first?.sdk !== UnityAdsSDK.shared)
  }

  @Test func startInitializesTheSDK() throws {
    let (scheduler, adapter) = makeAdapter()
    let started = Recorded<Result<Void, AdapterError>>()
    adapter.start(AdapterStartRequest(placementIDs: [])) { started.append($0) }
    scheduler.run()
    #expect(started.values.count == 1)
    #expect(adapter.sdk.isInitialized())
  }

  @Test func aCompletedShowIsDisplayedRewardedDismissed() throws {
    let (scheduler, adapter) = makeAdapter(profile: UnityBehaviorProfile(skipRate: 0, clickRate: 1))
    let ad = try loadOne(adapter, scheduler)
    let signals = SignalRecorder()
    ad.show(AdapterShowRequest(zoneID: "z"), from: HeadlessPresenter(), signals: signals.sink)
    scheduler.run()
    #expect(signals.signals == [.displayed, .clicked, .rewarded(nil), .dismissed])
    #expect(!adapter.sdk.isShowing)
  }

  @Test func aSkippedShowIsDisplayedDismissed() throws {
    let (scheduler, adapter) = makeAdapter(profile: UnityBehaviorProfile(skipRate: 1, clickRate: 0))
    let ad = try loadOne(adapter, scheduler)
    let signals = SignalRecorder()
    ad.show(AdapterShowRequest(zoneID: "z"), from: HeadlessPresenter(), signals: signals.sink)
    scheduler.run()
    #expect(signals.signals == [.displayed, .dismissed])
  }

  @Test func theSecondShowOfAPlacementFailsNotReady() throws {
    let (scheduler, adapter) = makeAdapter(profile: UnityBehaviorProfile(skipRate: 0))
    let ad = try loadOne(adapter, scheduler)
    let first = SignalRecorder()
    let second = SignalRecorder()
    ad.show(AdapterShowRequest(zoneID: "z"), from: HeadlessPresenter(), signals: first.sink)
    scheduler.run()
    ad.show(AdapterShowRequest(zoneID: "z"), from: HeadlessPresenter(), signals: second.sink)
    scheduler.run()
    guard case .showFailed(let error)? = second.signals.first else {
      Issue.record("expected showFailed, got \(second.signals)")
      return
    }
    #expect(error.kind == .notReady)
    #expect(error.vendorCode == UnityAdsShowError.showErrorNotReady.rawValue)
  }

  @Test func aLoadBeforeInitializationFailsNotInitialized() {
    let scheduler = VirtualScheduler()
    let adapter = UnityAdapter(
      sdk: UnityAdsSDK(scheduler: scheduler, random: SeededRandom(seed: 1)), gameId: "1234567")
    let recorder = LoadRecorder()
    _ = adapter.load(request(), completion: recorder.completion)
    scheduler.run()
    #expect(recorder.error?.kind == .notInitialized)
  }

  @Test func noFillIsReportedAsNoFill() {
    let (scheduler, adapter) = makeAdapter(profile: UnityBehaviorProfile(fillRate: 0, internalErrorRate: 0))
    adapter.start(AdapterStartRequest(placementIDs: [])) { _ in }
    let recorder = LoadRecorder()
    _ = adapter.load(request(), completion: recorder.completion)
    scheduler.run()
    #expect(recorder.error?.kind == .noFill)
    #expect(recorder.error?.vendorCode == UnityAdsLoadError.noFill.rawValue)
  }

  private func loadOne(_ adapter: UnityAdapter, _ scheduler: VirtualScheduler) throws -> any AdapterAd {
    adapter.start(AdapterStartRequest(placementIDs: ["Rewarded_iOS"])) { _ in }
    let recorder = LoadRecorder()
    _ = adapter.load(request(), completion: recorder.completion)
    scheduler.run()
    return try #require(recorder.ad?.ad)
  }
}

func makeSDK() -> (scheduler: VirtualScheduler, sdk: UnityAdsSDK) {
  let scheduler = VirtualScheduler()
  return (scheduler, UnityAdsSDK(scheduler: scheduler, random: SeededRandom(seed: 1)))
}

func makeAdapter(
  profile: UnityBehaviorProfile = UnityBehaviorProfile(fillRate: 1, internalErrorRate: 0)
) -> (VirtualScheduler, UnityAdapter) {
  var profile = profile
  profile.videoPlayerErrorRate = 0
  let scheduler = VirtualScheduler()
  let sdk = UnityAdsSDK(scheduler: scheduler, random: SeededRandom(seed: 7), profile: profile)
  return (scheduler, UnityAdapter(sdk: sdk, gameId: "1234567"))
}

func request(_ placementID: String = "Rewarded_iOS") -> AdapterLoadRequest {
  AdapterLoadRequest(
    zoneID: "z", placementID: placementID, ecpm: 10,
    reward: AdapterSignal.NetworkReward(type: "coins", amount: 10))
}

/// Values appended from any thread.
final class Recorded<Value: Sendable>: Sendable {
  private let storage = Locked<[Value]>([])
  func append(_ value: Value) { storage.withLock { $0.append(value) } }
  var values: [Value] { storage.withLock { $0 } }
}
