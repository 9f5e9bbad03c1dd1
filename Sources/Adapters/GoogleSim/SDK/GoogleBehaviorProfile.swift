import Foundation
import MediationKit

/// How the simulated Google Mobile Ads SDK behaves: fill, latencies, prices, user behaviour and
/// callback quirks, privacy rules and bidding. Every draw comes from the ``MobileAds`` instance's
/// `SeededRandom`, so one seed and one profile give one timeline, byte for byte.
///
/// A load's market outcome (fill or error, price, latency) is drawn from a stream keyed by the ad
/// unit ID and the request's auction id, so it does not depend on what was loaded or shown before;
/// the user's behaviour during a presentation comes from the instance's own sequential stream.
///
/// The defaults are realistic for rewarded video on AdMob with mediation; tests set a probability
/// to 0 or 1 to force a behaviour.
public struct GoogleBehaviorProfile: Sendable, Equatable {
  // MARK: Initialization

  /// Median time for the Google SDK itself to initialize.
  public var initLatencyMedian: Duration = .milliseconds(300)
  /// Class names of the mediation adapters reported by `start(completionHandler:)`, besides the
  /// Google SDK's own entry (``MobileAds/sdkAdapterClassName``).
  public var mediationAdapterClassNames: [String] = [
    "GADMediationAdapterAppLovin", "GADMediationAdapterUnity",
  ]
  /// Median initialization latency of a mediation adapter.
  public var mediationInitLatencyMedian: Duration = .milliseconds(800)
  /// Probability that a mediation adapter initializes successfully.
  public var mediationAdapterReadyRate = 0.97
  /// Probability that the Google SDK itself initializes (it practically always does).
  public var sdkReadyRate = 1.0
  /// After this long the SDK calls the start handler anyway (10 s in the real SDK); adapters that
  /// are still starting are reported `.notReady`.
  public var initTimeout: Duration = .seconds(10)

  // MARK: Loading

  /// Probability that a request that did not error gets an ad.
  public var fillRate = 0.8
  /// Probability that a request fails with ``RequestError/Code/timeout`` (code 5).
  public var timeoutRate = 0.01
  /// Probability that a request fails with ``RequestError/Code/networkError`` (code 2).
  public var networkErrorRate = 0.01
  /// Median load latency (log-normal).
  public var loadLatencyMedian: Duration = .milliseconds(900)
  /// Spread of the load latency (sigma of the underlying normal).
  public var loadLatencySigma = 0.5
  /// How long a request takes to fail with a timeout.
  public var timeoutLatency: Duration = .seconds(10)
  /// Spread of the price around the line item's eCPM (log-normal noise, median 1).
  public var priceSigma = 0.25
  /// eCPM (USD) of an ad unit with no simulated line item configured.
  public var defaultECPM = 10.0
  /// Reward type of an ad unit with no simulated configuration.
  public var defaultRewardType = "coins"
  /// Reward amount of an ad unit with no simulated configuration.
  public var defaultRewardAmount: Decimal = 10
  /// How long a loaded ad can be presented (one hour in the real SDK).
  public var adLifetime: Duration = .seconds(3600)

  // MARK: Privacy

  /// Fill probability factor for non-personalized requests (`npa=1`: no GDPR consent).
  public var nonPersonalizedFillFactor = 0.85
  /// Price factor for non-personalized requests (`npa=1`).
  public var nonPersonalizedPriceFactor = 0.6
  /// Price factor for requests with restricted data processing (`rdp=1`: CCPA do-not-sell).
  public var restrictedDataProcessingPriceFactor = 0.8
  /// Fill probability factor for child-directed requests (or under the age of consent). Such
  /// requests never get a bid.
  public var childDirectedFillFactor = 0.7
  /// Price factor for child-directed requests (or under the age of consent).
  public var childDirectedPriceFactor = 0.5

  // MARK: Bidding

  /// Median time the ad server takes to answer a bid request (log-normal).
  public var bidLatencyMedian: Duration = .milliseconds(300)
  /// Spread of the bid latency (sigma of the underlying normal).
  public var bidLatencySigma = 0.4
  /// Median time to load the ad of a winning bid (log-normal): the ad is already chosen.
  public var bidLoadLatencyMedian: Duration = .milliseconds(150)
  /// Spread of the bid-load latency (sigma of the underlying normal).
  public var bidLoadLatencySigma = 0.3
  /// How long a bid's token can be loaded; afterwards the load fails as an invalid request.
  public var bidLifetime: Duration = .seconds(60)

  // MARK: Presenting

  /// Probability that presenting fails with ``PresentationError.Code/internal`` (code 17).
  public var presentFailureRate = 0.005
  /// Delay between `adWillPresentFullScreenContent` and `adDidRecordImpression`.
  public var impressionDelay: ClosedRange<Duration> = .milliseconds(100) ... .milliseconds(500)
  /// Length of the video (uniform).
  public var watchDuration: ClosedRange<Duration> = .seconds(15) ... .seconds(30)
  /// Time on the end card after the video, before the user closes the ad.
  public var endCardDuration: ClosedRange<Duration> = .seconds(1) ... .seconds(4)
  /// Time between `adWillDismissFullScreenContent` and `adDidDismissFullScreenContent`.
  public var dismissAnimation: Duration = .milliseconds(300)
  /// Probability that the user closes the ad before earning the reward.
  public var skipRate = 0.12
  /// Probability that the user taps the ad.
  public var clickRate = 0.04

  // MARK: Quirks

  /// Probability that the reward handler runs after `adDidDismissFullScreenContent` (mediated
  /// demand whose SDK reports the reward late).
  public var rewardAfterDismissRate = 0.04
  /// How long after the dismissal a late reward arrives.
  public var lateRewardDelay: ClosedRange<Duration> = .milliseconds(200) ... .seconds(2)
  /// Probability that the reward handler runs twice for one impression.
  public var duplicateRewardRate = 0.01
  /// Time between the two calls of a duplicated reward.
  public var duplicateRewardDelay: ClosedRange<Duration> = .milliseconds(10) ... .milliseconds(500)

  // MARK: Bookkeeping

  /// How many of the most recent server-side verification callbacks
  /// ``MobileAds/simulatedRewardCallbacks`` keeps (older ones are dropped, so memory does not
  /// grow with the number of impressions); 0 keeps none. ``MobileAds/simulatedRewardCallbackCount``
  /// counts them all.
  public var rewardCallbackHistoryLimit = 64

  /// The realistic default profile.
  public static let `default` = GoogleBehaviorProfile()

  /// Creates the default profile; change its properties to taste.
  public init() {}

  /// A profile with no randomness left in the user's behaviour and no quirks: every request fills,
  /// nothing times out or fails, the user never skips or clicks, the reward comes once and on time.
  /// A base for tests that force one behaviour at a time (like MaxSim's `wellBehaved`).
  public static var wellBehaved: GoogleBehaviorProfile {
    var profile = GoogleBehaviorProfile()
    profile.fillRate = 1
    profile.timeoutRate = 0
    profile.networkErrorRate = 0
    profile.presentFailureRate = 0
    profile.skipRate = 0
    profile.clickRate = 0
    profile.rewardAfterDismissRate = 0
    profile.duplicateRewardRate = 0
    profile.mediationAdapterReadyRate = 1
    return profile
  }
}
