import Dispatch
import MediationKit

/// How the simulated MAX SDK behaves: fill, latency, prices, user behaviour and the real-world
/// callback quirks, all drawn from the SDK's ``SeededRandom``.
///
/// The quirks are rare in ``default`` but never impossible, as in production; tests force one
/// by setting its probability to 1.
public struct MaxBehaviorProfile: Sendable {
  /// Delivering delegate calls on another thread than the scheduler's executor.
  public struct OffThreadCallbacks: Sendable {
    /// The chance that one delegate call hops to ``queue``.
    public var probability: Double
    /// The queue the hopped calls run on (a serial queue keeps their relative order).
    public var queue: DispatchQueue

    /// Creates the option.
    public init(probability: Double, queue: DispatchQueue) {
      self.probability = probability
      self.queue = queue
    }
  }

  /// The chance that a load fills. Default 0.9.
  public var fillRate: Double = 0.9
  /// The chance that a load that does not fill fails with a transport error (`-1001` timeout,
  /// `-1000` network error or `-5001` ad load failed, equally likely) instead of `204` no fill.
  /// Default 0.1.
  public var loadErrorShare: Double = 0.1
  /// The median load latency (log-normal). Default 700 ms.
  public var loadLatencyMedian: Duration = .milliseconds(700)
  /// The spread of the load latency (sigma of the underlying normal). Default 0.5.
  public var loadLatencySigma: Double = 0.5
  /// How long `initializeSdk` takes. Default 250 ms.
  public var initializationLatency: Duration = .milliseconds(250)
  /// The eCPM (USD) of an ad unit's line item when the app sets none. Default 10.
  public var defaultECPM: Double = 10
  /// The spread of the price around the line item's eCPM (log-normal sigma). Default 0.25.
  public var priceSigma: Double = 0.25
  /// The ``MAAd/revenuePrecision`` of served ads. Default `"exact"`.
  public var revenuePrecision: String = "exact"
  /// The mediated networks that fill, picked uniformly.
  public var networkNames: [String] = ["AppLovin", "Google AdMob", "Unity Ads", "ironSource", "Mintegral"]
  /// The reward the ad unit grants when the app configures none (vendor default: 0 and "").
  public var reward: (amount: Int, label: String) = (MAReward.defaultAmount, MAReward.defaultLabel)
  /// From `show` to `didDisplay`. Default 200–500 ms.
  public var displayLatency: ClosedRange<Duration> = .milliseconds(200) ... .milliseconds(500)
  /// How long the video plays. Default 15–30 s.
  public var watchDuration: ClosedRange<Duration> = .seconds(15) ... .seconds(30)
  /// How long the end card stays after the video, before `didHide`. Default 1–3 s.
  public var endCardDuration: ClosedRange<Duration> = .seconds(1) ... .seconds(3)
  /// The chance the user closes the ad before the video ends (no reward). Default 0.1.
  public var skipRate: Double = 0.1
  /// The chance the user taps the ad. Default 0.05.
  public var clickRate: Double = 0.05

  /// Quirk: the chance `didRewardUser` arrives after `didHide` (mediated networks). Default 0.05.
  public var rewardAfterHideRate: Double = 0.05
  /// How long after `didHide` the late reward arrives. Default 0.1–2 s.
  public var lateRewardDelay: ClosedRange<Duration> = .milliseconds(100) ... .seconds(2)
  /// Quirk: the chance `didHide` comes seconds after the ad left the screen. Default 0.03.
  public var lateHideRate: Double = 0.03
  /// How late the late `didHide` is. Default 3–10 s.
  public var lateHideDelay: ClosedRange<Duration> = .seconds(3) ... .seconds(10)
  /// Quirk: the chance the mediated network reports the reward twice. Default 0.02.
  public var duplicateRewardRate: Double = 0.02
  /// Quirk: the chance the ad fails to display (`didFail(toDisplay:)`, `-4205`). Default 0.01.
  public var displayFailureRate: Double = 0.01
  // MARK: Bidding (simulation of MAX as a bidder)

  /// The median time MAX takes to answer a bid request (log-normal). Default 200 ms.
  public var bidLatencyMedian: Duration = .milliseconds(200)
  /// The spread of the bid latency (sigma of the underlying normal). Default 0.3.
  public var bidLatencySigma: Double = 0.3
  /// How long loading the ad of a won bid takes (the creative comes with the bid). Default 50 ms.
  public var bidLoadLatency: Duration = .milliseconds(50)
  /// How many bids an ad unit keeps redeemable; older unredeemed ones expire, so lost bids never
  /// accumulate. Default 1024.
  public var maxOutstandingBids: Int = 1024

  // MARK: Privacy (what `ALPrivacySettings` does to demand)

  /// Fill probability factor when GDPR consent was asked and refused
  /// (`ALPrivacySettings.setHasUserConsent(false)`; non-personalized ads). Default 0.85.
  public var noConsentFillFactor: Double = 0.85
  /// Price factor without GDPR consent (non-personalized ads). Default 0.6.
  public var noConsentPriceFactor: Double = 0.6
  /// Price factor under CCPA do-not-sell (`ALPrivacySettings.setDoNotSell(true)`). Default 0.8.
  public var doNotSellPriceFactor: Double = 0.8
  /// Fill probability factor for an age-restricted (child-directed) user
  /// (`ALPrivacySettings.setIsAgeRestrictedUser(true)`). Such users never get bids. Default 0.7.
  public var ageRestrictedFillFactor: Double = 0.7
  /// Price factor for an age-restricted (child-directed) user. Default 0.5.
  public var ageRestrictedPriceFactor: Double = 0.5

  /// How many S2S rewarded callbacks ``ALSdk/simulatedServerCallbacks`` keeps (the oldest are
  /// dropped, so memory does not grow with the number of impressions); 0 keeps none.
  /// ``ALSdk/simulatedServerCallbackCount`` counts them all. Default 64.
  public var serverCallbackHistoryLimit = 64

  /// Quirk: delegate calls delivered from another thread. Default `nil` (never), which keeps
  /// runs on a `VirtualScheduler` deterministic; tests turn it on with a real queue.
  public var offThreadCallbacks: OffThreadCallbacks? = nil

  /// Creates the default profile; change fields to taste.
  public init() {}

  /// Realistic defaults.
  public static let `default` = MaxBehaviorProfile()

  /// A profile with no randomness left in the user's behaviour and no quirks: always fills,
  /// never skips, clicks or fails. A base for tests that force one behaviour at a time.
  public static var wellBehaved: MaxBehaviorProfile {
    var profile = MaxBehaviorProfile()
    profile.fillRate = 1
    profile.skipRate = 0
    profile.clickRate = 0
    profile.rewardAfterHideRate = 0
    profile.lateHideRate = 0
    profile.duplicateRewardRate = 0
    profile.displayFailureRate = 0
    return profile
  }
}
