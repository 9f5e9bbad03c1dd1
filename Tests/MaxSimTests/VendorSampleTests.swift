import Foundation
import MaxSim
import MediationKit
import MediationKitTesting
import Testing

/// The Swift `ExampleViewController` from AppLovin's "Rewarded Ads" guide, as close to the guide
/// as Swift 6 on Linux allows:
/// - it adopts `AdPresenting` instead of subclassing `UIViewController`, and is `@MainActor` as
///   a view controller is, with `@preconcurrency` conformances to the (Objective-C style,
///   nonisolated) delegate protocols;
/// - the retry goes through the injected scheduler instead of `DispatchQueue.main.asyncAfter`,
///   so it runs on virtual time (the scheduler stands in for the main queue, hence
///   `MainActor.assumeIsolated`);
/// - it also adopts `MAAdRevenueDelegate`, and records what the guide prints, for the tests;
/// - its failure callbacks also read `error.code` the way the MAX SDK's Swift interface types it
///   (the `MAErrorCode` enum: `==` against a case, `rawValue`, an exhaustive `switch`), which
///   the guide does not show.
@MainActor
final class ExampleViewController: AdPresenting, @preconcurrency MARewardedAdDelegate,
  @preconcurrency MAAdRevenueDelegate
{
  var rewardedAd: MARewardedAd!
  var retryAttempt = 0.0

  // Test instrumentation, not in the guide.
  let scheduler: any Scheduler
  var events: [String] = []
  var retryDelays: [Double] = []
  var failureTimes: [Duration] = []
  var rewardLog: [String] = []
  var revenues: [Double] = []
  var errorCodes: [String] = []

  init(scheduler: any Scheduler) {
    self.scheduler = scheduler
  }

  func createRewardedAd() {
    rewardedAd = MARewardedAd.shared(withAdUnitIdentifier: "ad_unit_ID")
    rewardedAd.delegate = self
    rewardedAd.revenueDelegate = self

    // Load the first ad
    rewardedAd.load()
  }

  func showAdIfReady() {
    if rewardedAd.isReady {
      rewardedAd.show()
    }
  }

  // MARK: MAAdDelegate Protocol

  func didLoad(_ ad: MAAd) {
    // Rewarded ad is ready to show. '[self.rewardedAd isReady]' now returns 'YES'.
    events.append("load")

    // Reset retry attempt
    retryAttempt = 0
  }

  func didFailToLoadAd(forAdUnitIdentifier adUnitIdentifier: String, withError error: MAError) {
    // Rewarded ad failed to load
    // AppLovin recommends that you retry with exponentially higher delays up to a maximum delay (in this case 64 seconds).

    retryAttempt += 1
    let delaySec = pow(2.0, min(6.0, retryAttempt))
    events.append("fail \(delaySec)")
    errorCodes.append(describe(error))
    retryDelays.append(delaySec)
    failureTimes.append(scheduler.now)

    scheduler.schedule(after: .seconds(delaySec)) {
      MainActor.assumeIsolated {
        self.rewardedAd.load()
      }
    }
  }

  func didDisplay(_ ad: MAAd) {}

  func didClick(_ ad: MAAd) {}

  func didHide(_ ad: MAAd) {
    // Rewarded ad is hidden. Pre-load the next ad
    events.append("hide")
    rewardedAd.load()
  }

  func didFail(toDisplay ad: MAAd, withError error: MAError) {
    // Rewarded ad failed to display. AppLovin recommends that you load the next ad.
    errorCodes.append(describe(error))
    rewardedAd.load()
  }

  // Test instrumentation, not in the guide: app code reading `MAError.code` (an `MAErrorCode`).
  func describe(_ error: MAError) -> String {
    if error.code == .noFill { return "no fill (\(error.code.rawValue))" }
    switch error.code {
    case .networkError, .networkTimeout, .noNetwork: return "network (\(error.code.rawValue))"
    case .fullscreenAdAlreadyShowing, .fullscreenAdNotReady, .fullscreenAdInvalidViewController,
      .adDisplayFailed:
      return "display (\(error.code.rawValue))"
    case .unspecified, .noFill, .adLoadFailed, .invalidAdUnitIdentifier, .simulatedInvalidBidToken:
      return "other (\(error.code.rawValue))"
    @unknown default: return "unknown (\(error.code.rawValue))"
    }
  }

  // MARK: MARewardedAdDelegate Protocol

  func didStartRewardedVideo(for ad: MAAd) {}

  func didCompleteRewardedVideo(for ad: MAAd) {}

  func didRewardUser(for ad: MAAd, with reward: MAReward) {
    // Rewarded ad was displayed and user should receive the reward
    rewardLog.append("Rewarded user: \(reward.amount) \(reward.label)")
  }

  // MARK: MAAdRevenueDelegate Protocol

  func didPayRevenue(for ad: MAAd) {
    revenues.append(ad.revenue)
  }
}

@Suite(.serialized) @MainActor struct VendorSampleTests {
  /// Installs a virtual-time `ALSdk.shared()` for `body`, then restores the previous one.
  private func withVirtualSDK(
    _ profile: MaxBehaviorProfile, seed: UInt64 = 1, _ body: (VirtualScheduler) throws -> Void
  ) rethrows {
    let scheduler = VirtualScheduler()
    let previous = ALSdk.installShared(
      ALSdk(scheduler: scheduler, random: SeededRandom(seed: seed), profile: profile))
    defer { ALSdk.installShared(previous) }
    try body(scheduler)
  }

  @Test func rewardsTheUserAndPreloadsTheNextAd() {
    var profile = MaxBehaviorProfile.wellBehaved
    profile.reward = (amount: 5, label: "gems")
    withVirtualSDK(profile) { scheduler in
      ALSdk.shared()!.userIdentifier = "user-id"
      #expect(ALSdk.shared().userIdentifier == "user-id")
      ALSdk.shared().initializeSdk { _ in }
      let controller = ExampleViewController(scheduler: scheduler)
      controller.createRewardedAd()
      scheduler.run()
      #expect(controller.rewardedAd.isReady)
      controller.showAdIfReady()
      scheduler.run()
      #expect(controller.rewardLog == ["Rewarded user: 5 gems"])
      #expect(controller.revenues.count == 1)
      #expect(controller.revenues.allSatisfy { $0 > 0 })
      #expect(controller.events == ["load", "hide", "load"])
      #expect(controller.rewardedAd.isReady, "didHide preloaded the next ad")
    }
  }

  @Test func privacyClassMethodsOfTheGuideSetTheSharedSDKsSignalsOnly() {
    withVirtualSDK(.wellBehaved) { scheduler in
      let (_, isolated) = makeSDK()
      ALPrivacySettings.setHasUserConsent(false)
      ALPrivacySettings.setDoNotSell(true)
      ALPrivacySettings.setIsAgeRestrictedUser(true)
      #expect(!ALPrivacySettings.hasUserConsent() && ALSdk.shared().privacySettings.isUserConsentSet())
      #expect(ALPrivacySettings.isDoNotSell() && ALPrivacySettings.isAgeRestrictedUser())
      #expect(!isolated.privacySettings.isUserConsentSet() && !isolated.privacySettings.isAgeRestrictedUser())
      let controller = ExampleViewController(scheduler: scheduler)
      controller.createRewardedAd()
      scheduler.run()
      #expect(controller.events == ["load"])
      controller.showAdIfReady()
      scheduler.run()
      #expect(controller.revenues.count == 1)
    }
  }

  @Test func retriesWithExponentialBackoffCappedAt64Seconds() {
    var profile = MaxBehaviorProfile.wellBehaved
    profile.fillRate = 0
    profile.loadErrorShare = 0
    profile.loadLatencyMedian = .zero
    withVirtualSDK(profile) { scheduler in
      let controller = ExampleViewController(scheduler: scheduler)
      controller.createRewardedAd()
      scheduler.run(until: .seconds(300))  // failures at 0, 2, 6, 14, 30, 62, 126, 190, 254 s
      #expect(controller.retryDelays == [2, 4, 8, 16, 32, 64, 64, 64, 64])
      #expect(controller.errorCodes == Array(repeating: "no fill (204)", count: 9))
      let gaps = zip(controller.failureTimes.dropFirst(), controller.failureTimes).map { ($0 - $1).seconds }
      #expect(gaps == [2, 4, 8, 16, 32, 64, 64, 64])
    }
  }

  @Test func backoffResetsAfterASuccessfulLoad() {
    var profile = MaxBehaviorProfile.wellBehaved
    profile.fillRate = 0.4
    profile.loadErrorShare = 0
    withVirtualSDK(profile, seed: 11) { scheduler in
      let controller = ExampleViewController(scheduler: scheduler)
      controller.createRewardedAd()
      for _ in 0..<12 {
        scheduler.run(until: scheduler.now + .seconds(600))
        controller.showAdIfReady()
      }
      var streak = 0.0
      var resets = 0
      for event in controller.events {
        if event == "load" {
          if streak > 0 { resets += 1 }
          streak = 0
        } else if event.hasPrefix("fail") {
          streak += 1
          #expect(event == "fail \(pow(2.0, min(6.0, streak)))")
        }
      }
      #expect(resets > 0, "the run should include failures followed by a fill")
      #expect(controller.rewardLog.count > 1)
    }
  }
}
