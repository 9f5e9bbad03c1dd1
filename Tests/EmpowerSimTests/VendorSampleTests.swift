import EmpowerSim
import Foundation
import MediationKit
import MediationKitTesting
import Observation
import Testing

// The Empower guide's Swift samples, as close to verbatim as Swift 6 on Linux allows:
// - `UIViewController` → a class adopting `AdPresenting`; `viewDidLoad`/`@IBAction` become methods
//   the test calls.
// - UI calls (buttons, alerts, music) record state; `UserManager.shared` is a per-sample instance.
// - `DispatchQueue.main` → `MainQueue`, a stand-in the test drains on virtual time (the real main
//   queue would run on wall-clock time, and its `@Sendable` closures cannot capture these
//   non-Sendable view controllers under Swift 6).
// - SwiftUI's `ObservableObject`/`@Published` (Combine) → `@Observable`; `UIApplication`'s root view
//   controller → an injected presenter.

/// Stand-in for `DispatchQueue.main`: runs queued closures, in order, when the test drains it.
final class MainQueue {
  private var work: [(due: Duration, sequence: Int, action: () -> Void)] = []
  private var sequence = 0
  let scheduler: VirtualScheduler

  init(scheduler: VirtualScheduler) { self.scheduler = scheduler }

  func now() -> Duration { scheduler.now }

  func async(execute action: @escaping () -> Void) { asyncAfter(deadline: now(), execute: action) }

  func asyncAfter(deadline: Duration, execute action: @escaping () -> Void) {
    sequence += 1
    work.append((deadline, sequence, action))
  }

  /// Runs every closure due by now.
  func drain() {
    while let next = work.filter({ $0.due <= now() }).min(by: {
      ($0.due, $0.sequence) < ($1.due, $1.sequence)
    }) {
      work.removeAll { $0.sequence == next.sequence }
      next.action()
    }
  }

  /// Moves virtual time forward by `duration` in small steps, draining the main queue as it goes.
  func pump(for duration: Duration, step: Duration = .milliseconds(100)) {
    var elapsed = Duration.zero
    while elapsed < duration {
      scheduler.advance(by: step)
      drain()
      elapsed += step
    }
  }
}

/// Stand-in for the app's `UserManager.shared`.
final class UserManager {
  private(set) var coins = 0
  func addCoins(_ amount: Int) { coins += amount }
}

/// Stand-in for `UIButton`.
final class Button {
  enum State { case normal }
  var isEnabled = false
  private(set) var title = ""
  func setTitle(_ title: String, for state: State) { self.title = title }
}

// MARK: - Quick Start

enum QuickStart {
  class StoreViewController: AdPresenting, AdStatusDelegate {

    private let rewardedZoneId = "YOUR_REWARDED_ZONE_ID"

    // Recorded UI state.
    let userManager = UserManager()
    private(set) var watchAdButtonEnabled = false
    private(set) var alerts: [String] = []
    private(set) var loadCount = 0
    private(set) var rewardTypes: [String] = []

    func viewDidLoad() {
      loadRewardedAd()
    }

    func loadRewardedAd() {
      loadCount += 1
      EMAManager.shared.loadRewardedAd(zoneId: rewardedZoneId, delegate: self)
    }

    func watchAdButtonTapped() {
      if EMAManager.shared.isRewardedReady(zoneId: rewardedZoneId) {
        EMAManager.shared.showRewarded(zoneId: rewardedZoneId, from: self)
      } else {
        showAlert("Ad not ready", "Please try again in a moment.")
      }
    }

    func rewardedStatusChanged(adStatus: AdStatus) {
      switch adStatus {
      case .ready:
        enableWatchAdButton()
      case .rewarded(let type, let amount):
        // USER COMPLETED THE AD — grant the reward
        rewardTypes.append(type)  // added: the guide binds `type` but never uses it (a warning)
        grantReward(amount)
      case .closed, .skipped:
        loadRewardedAd()  // Preload next
      case .failed:
        disableWatchAdButton()
      default:
        break
      }
    }

    private func grantReward(_ amount: Int) {
      userManager.addCoins(amount)
      showAlert("Reward Earned!", "You received \(amount) coins!")
    }

    private func showAlert(_ title: String, _ message: String) { alerts.append("\(title) \(message)") }
    private func enableWatchAdButton() { watchAdButtonEnabled = true }
    private func disableWatchAdButton() { watchAdButtonEnabled = false }
  }
}

// MARK: - Status Handling

enum StatusHandling {
  class StoreViewController: AdPresenting {
    let rewardedZoneId = "YOUR_REWARDED_ZONE_ID"
    let watchAdButton = Button()
    let userManager = UserManager()
    let main: MainQueue
    private(set) var musicPlaying = true
    private(set) var loadCount = 0
    private(set) var statusLog: [String] = []

    init(main: MainQueue) { self.main = main }

    func loadRewardedAd() {
      loadCount += 1
      EMAManager.shared.loadRewardedAd(zoneId: rewardedZoneId, delegate: self)
    }

    func watchAdButtonTapped() {
      if EMAManager.shared.isRewardedReady(zoneId: rewardedZoneId) {
        EMAManager.shared.showRewarded(zoneId: rewardedZoneId, from: self)
      }
    }

    func record(_ status: AdStatus) { statusLog.append(status.description) }
    func grantReward(_ amount: Int) { userManager.addCoins(amount) }
    func pauseBackgroundMusic() { musicPlaying = false }
    func resumeBackgroundMusic() { musicPlaying = true }
  }
}

extension StatusHandling.StoreViewController: AdStatusDelegate {

  func rewardedStatusChanged(adStatus: AdStatus) {
    record(adStatus)  // added: lets the test check the sample against what the SDK reported
    switch adStatus {
    case .initializing:
      watchAdButton.isEnabled = false
      watchAdButton.setTitle("Loading...", for: .normal)

    case .ready:
      watchAdButton.isEnabled = true
      watchAdButton.setTitle("Watch Ad for 100 Coins", for: .normal)

    case .shown:
      pauseBackgroundMusic()

    case .rewarded(_, let amount):
      // User completed the ad — grant the reward
      grantReward(amount)

    case .closed, .skipped:
      // .closed = reward earned, .skipped = dismissed without a reward.
      resumeBackgroundMusic()
      loadRewardedAd()  // Preload next

    case .failed:
      watchAdButton.isEnabled = false
      watchAdButton.setTitle("Ad Unavailable", for: .normal)
      retryLoadAfterDelay()

    // The guide ends with `default: break`; every case is handled above, so Swift warns that it
    // never runs, and it is left out here.
    }
  }

  private func retryLoadAfterDelay() {
    main.asyncAfter(deadline: main.now() + .seconds(30)) { [weak self] in
      self?.loadRewardedAd()
    }
  }
}

// MARK: - SwiftUI Integration

// @Observable needs iOS 17 / macOS 14.
@available(macOS 14, iOS 17, tvOS 17, *)
@Observable
class RewardedAdCoordinator: NSObject, AdStatusDelegate {
  var isReady = false
  var isLoading = true

  private let zoneId: String
  var onRewardEarned: ((Int) -> Void)?

  @ObservationIgnored private let main: MainQueue
  @ObservationIgnored private let rootViewController: AdPresenting?

  init(zoneId: String, main: MainQueue, rootViewController: AdPresenting?) {
    self.zoneId = zoneId
    self.main = main
    self.rootViewController = rootViewController
    super.init()
    load()
  }

  func load() {
    isLoading = true
    EMAManager.shared.loadRewardedAd(zoneId: zoneId, delegate: self)
  }

  func show() {
    guard isReady,
      let rootVC = rootViewController
    else { return }

    EMAManager.shared.showRewarded(zoneId: zoneId, from: rootVC)
  }

  func rewardedStatusChanged(adStatus: AdStatus) {
    main.async {
      switch adStatus {
      case .ready:
        self.isReady = true
        self.isLoading = false
      case .failed:
        self.isReady = false
        self.isLoading = false
      case .rewarded(_, let amount):
        self.onRewardEarned?(amount)
      case .closed, .skipped:
        self.isReady = false
        self.load()  // Reload
      default:
        break
      }
    }
  }
}

/// `StoreView`'s state and actions, without SwiftUI.
// RewardedAdCoordinator needs iOS 17 / macOS 14.
@available(macOS 14, iOS 17, tvOS 17, *)
final class StoreView {
  let rewardedAd: RewardedAdCoordinator
  private(set) var coins = 0
  var showRewardAlert = false

  init(main: MainQueue) {
    rewardedAd = RewardedAdCoordinator(
      zoneId: "YOUR_ZONE_ID", main: main, rootViewController: HeadlessPresenter())
  }

  var buttonTitle: String { rewardedAd.isReady ? "Watch Ad for 100 Coins" : "Ad Unavailable" }
  var buttonDisabled: Bool { !rewardedAd.isReady }

  func buttonTapped() { rewardedAd.show() }

  func onAppear() {
    rewardedAd.onRewardEarned = { [weak self] amount in
      self?.coins += amount
      self?.showRewardAlert = true
    }
  }
}

// MARK: - Tests

@Suite(.serialized) struct VendorSampleTests {
  /// Installs a virtual-time SDK as `EMAManager.shared` for `body`, then puts the previous one back.
  func withSharedSDK(
    profile: EmpowerBehaviorProfile, autoReload: Bool = false, seed: UInt64 = 99,
    _ body: (EMAManager, VirtualScheduler) throws -> Void
  ) rethrows {
    let (manager, scheduler) = makeManager(seed: seed, profile: profile)
    for zone in ["YOUR_REWARDED_ZONE_ID", "YOUR_ZONE_ID"] {
      manager.configureZone(
        EmpowerZoneSettings(zoneId: zone, rewardType: "coins", rewardAmount: 100, autoReload: autoReload))
    }
    let previous = EMAManager.installShared(manager)
    defer { EMAManager.installShared(previous) }
    try body(manager, scheduler)
  }

  @Test func quickStartGrantsTheZoneRewardOncePerCompletedAdAndPreloads() {
    withSharedSDK(profile: alwaysComplete) { manager, scheduler in
      let controller = QuickStart.StoreViewController()
      controller.viewDidLoad()
      controller.watchAdButtonTapped()
      #expect(controller.alerts == ["Ad not ready Please try again in a moment."])
      scheduler.run()
      #expect(controller.watchAdButtonEnabled)
      for round in 1...5 {
        controller.watchAdButtonTapped()
        scheduler.run()
        #expect(controller.userManager.coins == 100 * round)
        #expect(controller.loadCount == 1 + round, "reloads on .closed")
        #expect(manager.isRewardedReady(zoneId: "YOUR_REWARDED_ZONE_ID"))
      }
      #expect(controller.rewardTypes == Array(repeating: "coins", count: 5))
    }
  }

  @Test func quickStartGrantsNothingForSkippedAdsButStillPreloads() {
    withSharedSDK(profile: alwaysSkip) { manager, scheduler in
      let controller = QuickStart.StoreViewController()
      controller.viewDidLoad()
      scheduler.run()
      for round in 1...5 {
        controller.watchAdButtonTapped()
        scheduler.run()
        #expect(controller.loadCount == 1 + round, "reloads on .skipped")
      }
      #expect(controller.userManager.coins == 0)
      #expect(manager.isRewardedReady(zoneId: "YOUR_REWARDED_ZONE_ID"))
    }
  }

  @Test(arguments: [false, true])
  func statusHandlingSampleOnTheDefaultProfile(autoReload: Bool) {
    withSharedSDK(profile: .default, autoReload: autoReload) { manager, scheduler in
      let main = MainQueue(scheduler: scheduler)
      let controller = StatusHandling.StoreViewController(main: main)
      controller.loadRewardedAd()
      main.pump(for: .seconds(5))
      for _ in 0..<60 {
        if controller.watchAdButton.isEnabled {
          controller.watchAdButtonTapped()
          main.pump(for: .seconds(1))
          #expect(!controller.musicPlaying, "paused on .shown")
        }
        main.pump(for: .seconds(40))
      }
      let log = controller.statusLog
      let closed = log.filter { $0 == "closed" }.count
      let skipped = log.filter { $0 == "skipped" }.count
      let rewarded = log.filter { $0 == "rewarded(coins, 100)" }.count
      let failed = log.filter { $0.hasPrefix("failed") }.count
      #expect(closed > 20 && skipped > 0 && failed > 0)
      #expect(rewarded == closed, "every completed ad rewards exactly once")
      #expect(controller.userManager.coins == 100 * closed)
      #expect(controller.loadCount >= 1 + closed + skipped, "reloads on every .closed and .skipped")
      #expect(controller.musicPlaying)
      for (index, status) in log.enumerated() where status == "closed" {
        #expect(log[index - 1] == "rewarded(coins, 100)")
      }
      _ = manager
    }
  }

  @Test func statusHandlingRetriesThirtySecondsAfterAFailure() {
    withSharedSDK(profile: neverFill) { _, scheduler in
      let main = MainQueue(scheduler: scheduler)
      let controller = StatusHandling.StoreViewController(main: main)
      controller.loadRewardedAd()
      main.pump(for: .seconds(10))
      #expect(controller.watchAdButton.title == "Ad Unavailable")
      #expect(!controller.watchAdButton.isEnabled)
      #expect(controller.loadCount == 1)
      main.pump(for: .seconds(30))
      #expect(controller.loadCount == 2)
      #expect(controller.statusLog == ["initializing", "failed(no_fill)", "initializing", "failed(no_fill)"])
    }
  }

  // RewardedAdCoordinator needs iOS 17 / macOS 14.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func swiftUICoordinatorGrantsRewardsAndReloads() {
    withSharedSDK(profile: alwaysComplete) { manager, scheduler in
      let main = MainQueue(scheduler: scheduler)
      let view = StoreView(main: main)
      view.onAppear()
      #expect(view.rewardedAd.isLoading)
      #expect(view.buttonDisabled)
      view.buttonTapped()  // not ready: does nothing
      main.pump(for: .seconds(5))
      #expect(view.rewardedAd.isReady && !view.rewardedAd.isLoading)
      #expect(view.buttonTitle == "Watch Ad for 100 Coins")
      for round in 1...3 {
        view.buttonTapped()
        main.pump(for: .seconds(40))
        #expect(view.coins == 100 * round)
        #expect(view.showRewardAlert)
        view.showRewardAlert = false
        #expect(view.rewardedAd.isReady, "reloaded after .closed")
      }
      #expect(manager.isRewardedReady(zoneId: "YOUR_ZONE_ID"))
    }
  }

  // RewardedAdCoordinator needs iOS 17 / macOS 14.
  @available(macOS 14, iOS 17, tvOS 17, *)
  @Test func swiftUICoordinatorGrantsNothingForSkips() {
    withSharedSDK(profile: alwaysSkip) { _, scheduler in
      let main = MainQueue(scheduler: scheduler)
      let view = StoreView(main: main)
      view.onAppear()
      main.pump(for: .seconds(5))
      for _ in 1...3 {
        view.buttonTapped()
        main.pump(for: .seconds(40))
        #expect(view.rewardedAd.isReady, "reloaded after .skipped")
      }
      #expect(view.coins == 0)
      #expect(!view.showRewardAlert)
    }
  }

  @Test func installSharedSwapsTheProcessDefault() {
    let (manager, _) = makeManager()
    let previous = EMAManager.installShared(manager)
    #expect(EMAManager.shared === manager)
    #expect(EMAManager.installShared(previous) === manager)
    #expect(EMAManager.shared === previous)
  }
}
