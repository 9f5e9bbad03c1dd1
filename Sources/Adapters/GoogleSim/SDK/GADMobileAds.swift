import Dispatch
import Foundation
import MediationKit
import Synchronization

/// The Google Mobile Ads SDK: initialization, plus the simulated ad server behind every load.
///
/// The guide's code uses the process-wide ``sharedInstance()``. Everything else — the
/// ``GoogleAdapter``, tests, the simulator — makes its own instance with ``init(scheduler:random:profile:)``
/// and loads through it with ``GADRewardedAd/load(withAdUnitID:request:mobileAds:completionHandler:)``,
/// so two instances never see each other's state. Tests that run guide code install a
/// virtual-time instance as the shared one with ``installShared(_:)``.
public final class GADMobileAds: Sendable {
  /// The class name under which the Google SDK reports its own initialization status.
  public static let sdkAdapterClassName = "GADMobileAds"
  /// The simulated SDK's version string.
  public static let sdkVersion = "11.13.0-sim"

  /// The scheduler every delay goes through: latencies, the presentation timeline and expiry.
  public let scheduler: any Scheduler
  /// The behaviour this instance simulates.
  public let profile: GoogleBehaviorProfile

  private enum StartPhase {
    case idle
    case starting
    case started(GADInitializationStatus)
  }

  private struct State {
    var random: SeededRandom
    var startPhase = StartPhase.idle
    var adUnits: [String: GADSimulatedAdUnit] = [:]
    var rewardCallbacks: [GADSimulatedRewardCallback] = []
  }

  private let state: Mutex<State>
  private let startHandlers = SchedulerConfined<[GADInitializationCompletionHandler]>([])

  /// Creates an isolated SDK instance.
  ///
  /// - Parameters:
  ///   - scheduler: The clock and executor for every delay and callback.
  ///   - random: The seeded stream every behavioural draw comes from.
  ///   - profile: How the simulated network behaves.
  public init(scheduler: any Scheduler, random: SeededRandom, profile: GoogleBehaviorProfile = .default) {
    self.scheduler = scheduler
    self.profile = profile
    self.state = Mutex(State(random: random))
  }

  // MARK: Shared instance

  private static let shared = Mutex<GADMobileAds?>(nil)

  /// The process-wide instance the guide's code uses.
  ///
  /// Unless a test installed another with ``installShared(_:)``, it runs on wall-clock time
  /// (a ``DispatchScheduler``) with a fixed seed and the default profile.
  public static func sharedInstance() -> GADMobileAds {
    shared.withLock { instance in
      if let instance { return instance }
      let created = GADMobileAds(
        scheduler: DispatchScheduler(queue: DispatchQueue(label: "GoogleSim.GADMobileAds")),
        random: SeededRandom(seed: 0x4741_444D), profile: .default)
      instance = created
      return created
    }
  }

  /// Makes `instance` the one ``sharedInstance()`` returns. Thread-safe; for tests that run
  /// guide code on virtual time.
  ///
  /// - Parameter instance: The new shared instance, or `nil` to go back to the lazily made
  ///   wall-clock default.
  /// - Returns: The instance that was shared before, so the caller can restore it.
  @discardableResult
  public static func installShared(_ instance: GADMobileAds?) -> GADMobileAds? {
    shared.withLock { current in
      let previous = current
      current = instance
      return previous
    }
  }

  // MARK: Initialization

  /// Starts the Google Mobile Ads SDK and its mediation adapters.
  ///
  /// Calls `completionHandler` once every adapter finished initializing or
  /// ``GoogleBehaviorProfile/initTimeout`` passed, whichever is first. Calling it again after
  /// the start completed reports the same status.
  /// - Parameter completionHandler: Called on the scheduler with the initialization status.
  public func start(completionHandler: GADInitializationCompletionHandler? = nil) {
    enum Action {
      case reportNow(GADInitializationStatus)
      case wait
      case begin(delay: Duration, status: GADInitializationStatus)
    }
    let action = state.withLock { state -> Action in
      switch state.startPhase {
      case .started(let status): return .reportNow(status)
      case .starting: return .wait
      case .idle:
        state.startPhase = .starting
        let (delay, status) = Self.drawInitialization(profile: profile, random: &state.random)
        return .begin(delay: delay, status: status)
      }
    }
    switch action {
    case .reportNow(let status):
      let box = SchedulerConfined(completionHandler)
      scheduler.execute { box.get()?(status) }
    case .wait:
      if let completionHandler { startHandlers.set(startHandlers.get() + [completionHandler]) }
    case .begin(let delay, let status):
      if let completionHandler { startHandlers.set(startHandlers.get() + [completionHandler]) }
      scheduler.schedule(after: delay) { [self] in
        state.withLock { $0.startPhase = .started(status) }
        for handler in startHandlers.exchange([]) { handler(status) }
      }
    }
  }

  /// The current initialization status: every adapter `.notReady` until the start completes.
  public var initializationStatus: GADInitializationStatus {
    let phase = state.withLock { $0.startPhase }
    if case .started(let status) = phase { return status }
    var statuses: [String: GADAdapterStatus] = [:]
    for name in [Self.sdkAdapterClassName] + profile.mediationAdapterClassNames {
      statuses[name] = GADAdapterStatus(state: .notReady, description: "Not started.", latency: 0)
    }
    return GADInitializationStatus(adapterStatusesByClassName: statuses)
  }

  private static func drawInitialization(
    profile: GoogleBehaviorProfile, random: inout SeededRandom
  ) -> (Duration, GADInitializationStatus) {
    let timeout = profile.initTimeout.seconds
    var statuses: [String: GADAdapterStatus] = [:]
    var slowest = 0.0
    let entries =
      [(Self.sdkAdapterClassName, profile.initLatencyMedian, profile.sdkReadyRate)]
      + profile.mediationAdapterClassNames.map {
        ($0, profile.mediationInitLatencyMedian, profile.mediationAdapterReadyRate)
      }
    for (name, median, readyRate) in entries {
      let latency = random.logNormal(median: median.seconds, sigma: 0.5)
      let ready = random.chance(readyRate)
      if latency >= timeout {
        statuses[name] = GADAdapterStatus(state: .notReady, description: "Timeout.", latency: timeout)
        slowest = timeout
      } else if ready {
        statuses[name] = GADAdapterStatus(state: .ready, description: "Ready.", latency: latency)
        slowest = max(slowest, latency)
      } else {
        statuses[name] = GADAdapterStatus(
          state: .notReady, description: "Adapter failed to initialize.", latency: latency)
        slowest = max(slowest, latency)
      }
    }
    let delay = Duration.milliseconds(Int64((slowest * 1000).rounded()))
    return (delay, GADInitializationStatus(adapterStatusesByClassName: statuses))
  }

  // MARK: Simulated ad server

  /// Configures the simulated ad server's line item for `adUnitID` (what the AdMob console
  /// holds for a real ad unit). Ad units never configured use the profile's defaults.
  ///
  /// - Parameters:
  ///   - adUnit: The line item's eCPM and reward.
  ///   - adUnitID: The ad unit it applies to.
  public func setSimulatedAdUnit(_ adUnit: GADSimulatedAdUnit, forAdUnitID adUnitID: String) {
    state.withLock { $0.adUnits[adUnitID] = adUnit }
  }

  /// The server-side verification callbacks the simulated ad server sent, one per rewarded
  /// impression (the server de-duplicates what the client may report twice).
  public var simulatedRewardCallbacks: [GADSimulatedRewardCallback] {
    state.withLock { $0.rewardCallbacks }
  }

  struct ServedAd: Sendable {
    var priceECPM: Double
    var reward: (type: String, amount: Decimal)
    var responseIdentifier: String
  }

  /// Decides one load's outcome and latency, drawing from the seeded stream.
  func planLoad(adUnitID: String) -> (delay: Duration, outcome: Result<ServedAd, NSError>) {
    if adUnitID.isEmpty {
      return (
        .milliseconds(10), .failure(.gad(.invalidRequest, "Invalid ad unit ID: the ad unit ID is empty."))
      )
    }
    return state.withLock { state in
      let errorDraw = state.random.nextUnit()
      let fillDraw = state.random.nextUnit()
      let latency = state.random.logNormal(
        median: profile.loadLatencyMedian.seconds, sigma: profile.loadLatencySigma)
      let noise = state.random.logNormal(median: 1, sigma: profile.priceSigma)
      let responseIdentifier = state.random.uuidString()
      let delay = Duration.milliseconds(Int64((latency * 1000).rounded()))
      if errorDraw < profile.timeoutRate {
        return (
          profile.timeoutLatency,
          .failure(
            .gad(
              .timeout,
              "Request Error: The Google ad request was unable to be fulfilled before a timeout occurred."))
        )
      }
      if errorDraw < profile.timeoutRate + profile.networkErrorRate {
        return (delay, .failure(.gad(.networkError, "Request Error: A network error occurred.")))
      }
      guard fillDraw < profile.fillRate else {
        return (delay, .failure(.gad(.noFill, "Request Error: No ad to show.")))
      }
      let unit =
        state.adUnits[adUnitID]
        ?? GADSimulatedAdUnit(
          ecpm: profile.defaultECPM, rewardType: profile.defaultRewardType,
          rewardAmount: profile.defaultRewardAmount)
      return (
        delay,
        .success(
          ServedAd(
            priceECPM: unit.ecpm * noise, reward: (unit.rewardType, unit.rewardAmount),
            responseIdentifier: responseIdentifier))
      )
    }
  }

  /// One presentation's timeline, as offsets from the call to `present`.
  struct PresentationPlan: Sendable {
    var failure: NSError?
    var impression: Duration = .zero
    var click: Duration?
    var rewards: [Duration] = []
    var willDismiss: Duration = .zero
    var didDismiss: Duration = .zero
  }

  /// Decides one presentation's timeline, drawing from the seeded stream in a fixed order.
  func planPresentation() -> PresentationPlan {
    state.withLock { state in
      let p = profile
      let failed = state.random.chance(p.presentFailureRate)
      let impression = state.random.duration(in: p.impressionDelay)
      let watch = state.random.duration(in: p.watchDuration)
      let skipped = state.random.chance(p.skipRate)
      let skipFraction = 0.2 + 0.6 * state.random.nextUnit()
      let clicked = state.random.chance(p.clickRate)
      let clickFraction = state.random.nextUnit()
      let endCard = state.random.duration(in: p.endCardDuration)
      let late = state.random.chance(p.rewardAfterDismissRate)
      let lateDelay = state.random.duration(in: p.lateRewardDelay)
      let twice = state.random.chance(p.duplicateRewardRate)
      let twiceDelay = state.random.duration(in: p.duplicateRewardDelay)

      guard !failed else {
        return PresentationPlan(failure: .gad(.internal, "Internal error: the ad failed to present."))
      }
      var plan = PresentationPlan()
      plan.impression = impression
      if skipped {
        plan.willDismiss = impression + watch * skipFraction
        plan.didDismiss = plan.willDismiss + p.dismissAnimation
      } else {
        let earned = impression + watch
        plan.willDismiss = earned + endCard
        plan.didDismiss = plan.willDismiss + p.dismissAnimation
        let first = late ? plan.didDismiss + lateDelay : earned
        plan.rewards = twice ? [first, first + twiceDelay] : [first]
      }
      // The user can tap while the ad is on screen: during the video or on the end card.
      if clicked { plan.click = impression + (plan.willDismiss - impression) * clickFraction }
      return plan
    }
  }

  func recordRewardCallback(_ callback: GADSimulatedRewardCallback) {
    state.withLock { $0.rewardCallbacks.append(callback) }
  }
}

/// A simulated line item: what the AdMob console would hold for an ad unit.
public struct GADSimulatedAdUnit: Sendable, Equatable {
  /// The line item's eCPM in USD; served prices are this times log-normal noise.
  public var ecpm: Double
  /// The reward type configured for the ad unit.
  public var rewardType: String
  /// The reward amount configured for the ad unit.
  public var rewardAmount: Decimal

  /// Creates a line item.
  public init(ecpm: Double, rewardType: String, rewardAmount: Decimal) {
    self.ecpm = ecpm
    self.rewardType = rewardType
    self.rewardAmount = rewardAmount
  }
}

/// A server-side verification callback the simulated ad server sent to the publisher's server.
public struct GADSimulatedRewardCallback: Sendable, Equatable {
  /// The ad unit that served the rewarded impression.
  public var adUnitID: String
  /// The `custom_data` parameter (``GADServerSideVerificationOptions/customRewardString``).
  public var customData: String?
  /// The `user_id` parameter (``GADServerSideVerificationOptions/userIdentifier``).
  public var userIdentifier: String?
  /// The reward type.
  public var rewardType: String
  /// The reward amount.
  public var rewardAmount: Decimal
  /// The callback's unique transaction id (the ad response's identifier).
  public var transactionID: String
}
