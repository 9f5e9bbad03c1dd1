import Foundation
import GoogleSim
import Testing

// MediationKit's facade also has a `RewardedAd`: import only the declarations these screens need,
// so `RewardedAd` means Google's, as in an app that imports GoogleMobileAds.
import protocol MediationKit.AdPresenting
import struct MediationKit.SeededRandom

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
//
// It keeps the guide's v11 names (`GADRewardedAd`, `GADRequest`, `present(fromRootViewController:…)`,
// …), which GoogleSim offers as deprecated aliases of the current names: the class and the tests
// that drive it are marked deprecated, so exercising the aliases on purpose raises no warning.
@available(*, deprecated, message: "the guide's Google Mobile Ads v11 names, kept as deprecated aliases")
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

// A rewarded-ad screen written from Google's current Swift API reference (Google Mobile Ads 12 and
// later: no `GAD` prefix). The differences from an iOS screen are the platform's, as above: it
// adopts `AdPresenting` instead of subclassing `UIViewController`, `print` goes to `messages`, and
// the reload after dismissal uses the completion-handler form of the load.
final class RewardedAdViewController: AdPresenting, FullScreenContentDelegate {
  static let adUnitID = "ca-app-pub-3940256099942544/1712485313"

  private var rewardedAd: RewardedAd?
  /// The last ad presented, kept to show that a used ad cannot be presented again.
  private var presentedAd: RewardedAd?
  private(set) var coins = 0
  private(set) var messages: [String] = []
  private(set) var paidEvents: [String] = []
  private(set) var initializationStates: [String: AdapterInitializationState] = [:]
  var isAdReady: Bool { rewardedAd != nil }

  private func print(_ message: String) { messages.append(message) }

  func startGoogleMobileAdsSDK() {
    MobileAds.shared.start { status in
      self.initializationStates = status.adapterStatusesByClassName.mapValues(\.state)
    }
  }

  /// Loads with the `async` form.
  func loadRewardedAd() async {
    do {
      rewardedAd = try await RewardedAd.load(with: Self.adUnitID, request: Request())
      configure(rewardedAd)
    } catch {
      print("Rewarded ad failed to load with error: \(error.localizedDescription)")
    }
  }

  /// Loads with the completion-handler form.
  func requestRewardedAd() {
    RewardedAd.load(with: Self.adUnitID, request: Request()) { ad, error in
      if let error {
        self.print("Rewarded ad failed to load with error: \(error.localizedDescription)")
        return
      }
      self.rewardedAd = ad
      self.print("Rewarded ad loaded.")
      self.configure(ad)
    }
  }

  private func configure(_ ad: RewardedAd?) {
    ad?.fullScreenContentDelegate = self
    let options = ServerSideVerificationOptions()
    options.userIdentifier = "player-7"
    options.customRewardText = "SAMPLE_CUSTOM_DATA_STRING"
    ad?.serverSideVerificationOptions = options
    ad?.paidEventHandler = { adValue in
      self.paidEvents.append("\(adValue.value) \(adValue.currencyCode)")
    }
  }

  func show() {
    guard let rewardedAd else {
      return print("Ad wasn't ready.")
    }
    do {
      try rewardedAd.canPresent(from: self)
    } catch {
      return print("Ad can't be presented: \(error.localizedDescription)")
    }
    presentedAd = rewardedAd
    rewardedAd.present(from: self) {
      let reward = rewardedAd.adReward
      self.print("Reward received with currency \(reward.type), amount \(reward.amount.doubleValue)")
      self.coins += reward.amount.intValue
    }
  }

  /// Presents the ad shown last once more, skipping the check: the SDK refuses it.
  func presentUsedAdAgain() {
    presentedAd?.present(from: self) { self.print("Rewarded twice.") }
  }

  /// What the check-before-present says about the ad shown last.
  func checkUsedAd() -> NSError? {
    do {
      try presentedAd?.canPresent(from: self)
      return nil
    } catch {
      return error as NSError
    }
  }

  // MARK: FullScreenContentDelegate

  func adDidRecordImpression(_ ad: FullScreenPresentingAd) {
    print("\(#function) called")
  }

  func adDidRecordClick(_ ad: FullScreenPresentingAd) {
    print("\(#function) called")
  }

  func ad(_ ad: FullScreenPresentingAd, didFailToPresentFullScreenContentWithError error: Error) {
    let error = error as NSError
    print("\(#function) called: \(error.domain) \(error.code)")
  }

  func adWillPresentFullScreenContent(_ ad: FullScreenPresentingAd) {
    print("\(#function) called")
  }

  func adWillDismissFullScreenContent(_ ad: FullScreenPresentingAd) {
    print("\(#function) called")
  }

  func adDidDismissFullScreenContent(_ ad: FullScreenPresentingAd) {
    print("\(#function) called")
    rewardedAd = nil
    requestRewardedAd()
  }
}

/// Runs the guide's code and the current-reference screen against a virtual-time `MobileAds`
/// installed as the shared instance. Serialized: the tests swap the process-wide shared instance.
@Suite("Guide sample", .serialized)
struct VendorSampleTests {
  /// Installs a virtual-time shared instance for the duration of `body`.
  private func withVirtualSharedInstance(
    _ profile: GoogleBehaviorProfile, seed: UInt64 = 2024,
    _ body: (SignallingScheduler, MobileAds) async throws -> Void
  ) async throws {
    let scheduler = SignallingScheduler()
    let mobileAds = MobileAds(scheduler: scheduler, random: SeededRandom(seed: seed), profile: profile)
    let previous = MobileAds.installShared(mobileAds)
    defer { MobileAds.installShared(previous) }
    try await body(scheduler, mobileAds)
  }

  @available(*, deprecated, message: "drives the guide's v11 names")
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

  @available(*, deprecated, message: "drives the guide's v11 names")
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

  @available(*, deprecated, message: "drives the guide's v11 names")
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
    let previous = MobileAds.installShared(mobileAds)
    #expect(MobileAds.shared === mobileAds)
    MobileAds.installShared(previous)
    #expect(MobileAds.shared !== mobileAds)
  }

  // MARK: The screen written from Google's current reference

  @Test func currentReferenceScreenLoadsBothWaysPresentsAndRewards() async throws {
    let profile = GoogleBehaviorProfile.wellBehaved.with { $0.clickRate = 1 }
    try await withVirtualSharedInstance(profile) { scheduler, mobileAds in
      let viewController = RewardedAdViewController()
      try await scheduler.driving {
        viewController.startGoogleMobileAdsSDK()
        await viewController.loadRewardedAd()
      }
      #expect(viewController.isAdReady)
      #expect(viewController.initializationStates[MobileAds.sdkAdapterClassName] == .ready)

      viewController.show()
      scheduler.base.run()

      #expect(viewController.coins == 10)
      let messages = viewController.messages
      #expect(messages.first == "adWillPresentFullScreenContent(_:) called")
      #expect(messages.contains("adDidRecordImpression(_:) called"))
      #expect(messages.contains("adDidRecordClick(_:) called"))
      #expect(messages.contains("Reward received with currency coins, amount 10.0"))
      #expect(
        Array(messages.suffix(3)) == [
          "adWillDismissFullScreenContent(_:) called", "adDidDismissFullScreenContent(_:) called",
          "Rewarded ad loaded.",
        ])
      #expect(messages.count == 7)
      #expect(viewController.paidEvents.count == 1)
      #expect(viewController.paidEvents.first?.hasSuffix(" USD") == true)
      let callback = try #require(mobileAds.simulatedRewardCallbacks.first)
      #expect(callback.customData == "SAMPLE_CUSTOM_DATA_STRING")
      #expect(callback.userIdentifier == "player-7")

      // The ad reloaded with the completion-handler form is new: it presents and rewards again.
      #expect(viewController.isAdReady)
      viewController.show()
      scheduler.base.run()
      #expect(viewController.coins == 20)
      #expect(mobileAds.simulatedRewardCallbacks.map(\.userIdentifier) == ["player-7", "player-7"])
    }
  }

  @Test func currentReferenceScreenCannotPresentAUsedAd() async throws {
    try await withVirtualSharedInstance(.wellBehaved) { scheduler, _ in
      let viewController = RewardedAdViewController()
      try await scheduler.driving { await viewController.loadRewardedAd() }
      #expect(viewController.checkUsedAd() == nil)  // nothing presented yet
      viewController.show()
      scheduler.base.run()
      #expect(viewController.coins == 10)

      let checked = try #require(viewController.checkUsedAd())
      #expect(checked.domain == RequestError.errorDomain)
      #expect(checked.code == PresentationError.codeAdAlreadyUsed.rawValue)
      #expect(checked.code == 18)

      viewController.presentUsedAdAgain()
      scheduler.base.run()
      #expect(
        viewController.messages.last
          == "ad(_:didFailToPresentFullScreenContentWithError:) called: com.google.admob 18")
      #expect(!viewController.messages.contains("Rewarded twice."))
      #expect(viewController.coins == 10)
    }
  }

  @Test func currentReferenceScreenReportsAFailedLoad() async throws {
    try await withVirtualSharedInstance(.wellBehaved.with { $0.fillRate = 0 }) { scheduler, _ in
      let viewController = RewardedAdViewController()
      try await scheduler.driving { await viewController.loadRewardedAd() }
      viewController.show()
      #expect(
        viewController.messages == [
          "Rewarded ad failed to load with error: Request Error: No ad to show.", "Ad wasn't ready.",
        ])
    }
  }

  @Test func loadErrorsCarryTheCurrentDomainAndCodes() async throws {
    try await withVirtualSharedInstance(.wellBehaved.with { $0.fillRate = 0 }) { scheduler, _ in
      let error = try await scheduler.driving { () async -> NSError? in
        do {
          _ = try await RewardedAd.load(with: RewardedAdViewController.adUnitID, request: Request())
          return nil
        } catch {
          return error as NSError
        }
      }
      #expect(error?.domain == RequestError.errorDomain)
      #expect(error?.code == RequestError.noFill.rawValue)
      #expect(error?.code == RequestError.Code.noFill.rawValue)
    }
  }
}
