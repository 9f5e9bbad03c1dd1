import Foundation
import GoogleSim
import MediationKit
import MediationKitTesting
import Testing

extension GoogleBehaviorProfile {
  /// A copy with `change` applied.
  func with(_ change: (inout GoogleBehaviorProfile) -> Void) -> GoogleBehaviorProfile {
    var copy = self
    change(&copy)
    return copy
  }
}

/// A virtual-time SDK instance and its scheduler.
func makeMobileAds(
  _ profile: GoogleBehaviorProfile = .wellBehaved, seed: UInt64 = 42
) -> (VirtualScheduler, MobileAds) {
  let scheduler = VirtualScheduler()
  return (scheduler, MobileAds(scheduler: scheduler, random: SeededRandom(seed: seed), profile: profile))
}

/// Loads one ad with the completion form and runs the scheduler until it is delivered.
func loadAd(
  _ mobileAds: MobileAds, on scheduler: VirtualScheduler, adUnitID: String = "ca-app-pub-test/1"
) -> (GoogleSim.RewardedAd?, NSError?) {
  var result: (GoogleSim.RewardedAd?, NSError?) = (nil, nil)
  RewardedAd.load(with: adUnitID, request: Request(), mobileAds: mobileAds) { ad, error in
    result = (ad, error as NSError?)
  }
  scheduler.run()
  return result
}

/// Records every full-screen callback and reward, in order, with the virtual time it came at.
final class CallbackRecorder: FullScreenContentDelegate {
  private let scheduler: any Scheduler
  private(set) var events: [String] = []
  private(set) var times: [Duration] = []
  private(set) var errors: [NSError] = []

  init(scheduler: any Scheduler) { self.scheduler = scheduler }

  func record(_ event: String) {
    events.append(event)
    times.append(scheduler.now)
  }

  func adDidRecordImpression(_ ad: any FullScreenPresentingAd) { record("impression") }
  func adDidRecordClick(_ ad: any FullScreenPresentingAd) { record("click") }
  func ad(_ ad: any FullScreenPresentingAd, didFailToPresentFullScreenContentWithError error: any Error) {
    errors.append(error as NSError)
    record("failToPresent(\((error as NSError).code))")
  }
  func adWillPresentFullScreenContent(_ ad: any FullScreenPresentingAd) { record("willPresent") }
  func adWillDismissFullScreenContent(_ ad: any FullScreenPresentingAd) { record("willDismiss") }
  func adDidDismissFullScreenContent(_ ad: any FullScreenPresentingAd) { record("didDismiss") }
}

/// A thread-safe single value, for completions.
final class Box<Value: Sendable>: Sendable {
  private let storage = Locked<Value?>(nil)
  var value: Value? { storage.withLock { $0 } }
  func set(_ value: Value) { storage.withLock { $0 = value } }
}

/// A `VirtualScheduler` that announces each scheduled action on an `AsyncStream`, so a test can
/// drive virtual time from a separate task exactly when work arrives — no polling, no sleeping.
final class SignallingScheduler: Scheduler {
  let base = VirtualScheduler()
  let scheduled: AsyncStream<Void>
  private let continuation: AsyncStream<Void>.Continuation

  init() {
    (scheduled, continuation) = AsyncStream.makeStream(of: Void.self)
  }

  var now: Duration { base.now }

  @discardableResult
  func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Cancellable {
    let cancellable = base.schedule(after: delay, action)
    continuation.yield()
    return cancellable
  }

  /// Runs `body` while a driver task runs the virtual scheduler every time work is scheduled
  /// (the stream buffers announcements made before the driver starts), then stops the driver and
  /// waits until it drained everything. Single use: afterwards, drive ``base`` directly.
  func driving<T>(_ body: () async throws -> T) async throws -> T {
    let driver = Task { [base, scheduled] in
      for await _ in scheduled { base.run() }
    }
    do {
      let result = try await body()
      continuation.finish()
      await driver.value
      return result
    } catch {
      continuation.finish()
      await driver.value
      throw error
    }
  }
}

/// A loaded adapter ad on virtual time, with the adapter and the SDK behind it.
struct LoadedAdapterAd {
  let scheduler: VirtualScheduler
  let adapter: GoogleAdapter
  let loaded: AdapterLoadedAd
}

/// Loads one ad through a fresh adapter.
func loadAdapterAd(
  _ profile: GoogleBehaviorProfile = .wellBehaved, seed: UInt64 = 42,
  request: AdapterLoadRequest = AdapterLoadRequest(
    zoneID: "zone", placementID: "ca-app-pub-test/1", ecpm: 12,
    reward: AdapterSignal.NetworkReward(type: "gems", amount: 5)
  )
) throws -> LoadedAdapterAd {
  let (scheduler, mobileAds) = makeMobileAds(profile, seed: seed)
  let adapter = GoogleAdapter(mobileAds: mobileAds)
  let result = Box<Result<AdapterLoadedAd, AdapterError>>()
  _ = adapter.load(request) { result.set($0) }
  scheduler.run()
  let loaded = try #require(try result.value?.get())
  return LoadedAdapterAd(scheduler: scheduler, adapter: adapter, loaded: loaded)
}
