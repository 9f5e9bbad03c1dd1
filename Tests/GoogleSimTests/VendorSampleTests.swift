import Foundation
import GoogleSim
import MediationKit
import Testing

// The guide's Swift view controller ("Annonces avec récompense", Google Mobile Ads iOS), as close
// to the guide as Swift 6 on Linux allows. Differences, each forced by the platform:
// - it adopts `AdPresenting` instead of subclassing `UIViewController`;
// - `print` goes to `messages`, so the test can read what the guide would have printed;
// - `show()` presents `rewardedAd` (the guide's snippet binds `rewardedAd` but calls `ad.present`,
//   and prints `reward.amount` as the currency: fixed to `reward.type`);
// - the reload after dismissal uses the completion-handler form (the guide's Objective-C
//   sample), because a non-`Sendable` view controller cannot be sent into a `Task` under strict
//   concurrency; on iOS, where `UIViewController` is `@MainActor`, `Task { await loadRewardedAd() }`
//   would do.
final class ViewController: AdPresenting, GADFullScreenContentDelegate {
  private var rewardedAd: GADRewardedAd?
  private(set) var coins = 0
  private(set) var messages: [String] = []
  var isAdReady: Bool { rewardedAd != nil }

  private func print(_ message: String) { messages.append(message) }

  func viewDidLoad() async {
    await loadRewardedAd()
  }

  func loadRewardedAd() async {
    do {
      rewardedAd = try await GADRewardedAd.load(
        withAdUnitID: "ca-app-pub-3940256099942544/1712485313", request: GADRequest())
      rewardedAd?.fullScreenContentDelegate = self
      let options = GADServerSideVerificationOptions()
      options.customRewardString = "SAMPLE_CUSTOM_DATA_STRING"
      rewardedAd?.serverSideVerificationOptions = options
    } catch {
      print("Rewarded ad failed to load with error: \(error.localizedDescription)")
    }
  }

  /// The guide's Objective-C `loadRewardedAd`, in Swift: the completion-handler form.
  func requestRewardedAd() {
    GADRewardedAd.load(withAdUnitID: "ca-app-pub-3940256099942544/1712485313", request: GADRequest()) {
      ad, error in
      if let error {
        self.print("Rewarded ad failed to load with error: \(error.localizedDescription)")
        return
      }
      self.rewardedAd = ad
      self.print("Rewarded ad loaded.")
      self.rewardedAd?.fullScreenContentDelegate = self
    }
  }

  func show() {
    guard let rewardedAd = rewardedAd else {
      return print("Ad wasn't ready.")
    }

    // The presenter parameter is optional.
    rewardedAd.present(fromRootViewController: self) {
      let reward = rewardedAd.adReward
      self.print("Reward received with currency \(reward.type), amount \(reward.amount.doubleValue)")
      self.coins += reward.amount.intValue
    }
  }

  // MARK: GADFullScreenContentDelegate

  func adDidRecordImpression(_ ad: GADFullScreenPresentingAd) {
    print("\(#function) called")
  }

  func adDidRecordClick(_ ad: GADFullScreenPresentingAd) {
    print("\(#function) called")
  }

  /// Tells the delegate that the ad failed to present full screen content.
  func ad(_ ad: GADFullScreenPresentingAd, didFailToPresentFullScreenContentWithError error: Error) {
    print("Ad did fail to present full screen content.")
  }

  /// Tells the delegate that the ad will present full screen content.
  func adWillPresentFullScreenContent(_ ad: GADFullScreenPresentingAd) {
    print("Ad will present full screen content.")
  }

  func adWillDismissFullScreenContent(_ ad: GADFullScreenPresentingAd) {
    print("\(#function) called")
  }

  /// Tells the delegate that the ad dismissed full screen content.
  func adDidDismissFullScreenContent(_ ad: GADFullScreenPresentingAd) {
    print("Ad did dismiss full screen content.")
    // Clear the rewarded ad, and load the next one as the guide recommends.
    rewardedAd = nil
    requestRewardedAd()
  }
}

/// Runs the guide's code against a virtual-time `GADMobileAds` installed as the shared instance.
/// Serialized: the tests swap the process-wide shared instance.
@Suite("Guide sample", .serialized)
struct VendorSampleTests {
  /// Installs a virtual-time shared instance for the duration of `body`.
  private func withVirtualSharedInstance(
    _ profile: GoogleBehaviorProfile, seed: UInt64 = 2024,
    _ body: (SignallingScheduler, GADMobileAds) async throws -> Void
  ) async throws {
    let scheduler = SignallingScheduler()
    let mobileAds = GADMobileAds(scheduler: scheduler, random: SeededRandom(seed: seed), profile: profile)
    let previous = GADMobileAds.installShared(mobileAds)
    defer { GADMobileAds.installShared(previous) }
    try await body(scheduler, mobileAds)
  }

  @Test func rewardIsGrantedAndTheAdReloadedAfterDismissal() async throws {
    try await withVirtualSharedInstance(.wellBehaved) { scheduler, mobileAds in
      #expect(GADMobileAds.sharedInstance() === mobileAds)
      let viewController = ViewController()
      try await scheduler.driving {
        GADMobileAds.sharedInstance().start(completionHandler: nil)
        await viewController.viewDidLoad()
      }
      #expect(viewController.isAdReady)
      #expect(mobileAds.initializationStatus.adapterStatusesByClassName["GADMobileAds"]?.state == .ready)

      viewController.show()
      scheduler.base.run()

      #expect(viewController.coins == 10)
      #expect(
        viewController.messages == [
          "Ad will present full screen content.",
          "adDidRecordImpression(_:) called",
          "Reward received with currency coins, amount 10.0",
          "adWillDismissFullScreenContent(_:) called",
          "Ad did dismiss full screen content.",
          "Rewarded ad loaded.",
        ])
      #expect(viewController.isAdReady)  // reloaded after the dismissal
      #expect(mobileAds.simulatedRewardCallbacks.map(\.customData) == ["SAMPLE_CUSTOM_DATA_STRING"])

      // The reloaded ad is a new, single-use ad: it can be shown again.
      viewController.show()
      scheduler.base.run()
      #expect(viewController.coins == 20)
    }
  }

  @Test func lateRewardStillReachesTheGuideHandler() async throws {
    try await withVirtualSharedInstance(.wellBehaved.with { $0.rewardAfterDismissRate = 1 }) { scheduler, _ in
      let viewController = ViewController()
      try await scheduler.driving { await viewController.viewDidLoad() }
      viewController.show()
      scheduler.base.run()
      // The handler captured the ad, so `adReward` is still readable after `rewardedAd = nil`.
      #expect(viewController.coins == 10)
      let dismissed = try #require(
        viewController.messages.firstIndex(of: "Ad did dismiss full screen content."))
      let rewarded = try #require(viewController.messages.firstIndex { $0.hasPrefix("Reward received") })
      #expect(dismissed < rewarded)
    }
  }

  @Test func failedLoadIsReportedAndShowSaysNotReady() async throws {
    try await withVirtualSharedInstance(.wellBehaved.with { $0.fillRate = 0 }) { scheduler, _ in
      let viewController = ViewController()
      try await scheduler.driving { await viewController.viewDidLoad() }
      #expect(!viewController.isAdReady)
      viewController.show()
      #expect(
        viewController.messages == [
          "Rewarded ad failed to load with error: Request Error: No ad to show.", "Ad wasn't ready.",
        ])
    }
  }

  @Test func installSharedSwapsAndRestoresTheProcessDefault() {
    let (_, mobileAds) = makeMobileAds()
    let previous = GADMobileAds.installShared(mobileAds)
    #expect(GADMobileAds.sharedInstance() === mobileAds)
    GADMobileAds.installShared(previous)
    #expect(GADMobileAds.sharedInstance() !== mobileAds)
  }
}
