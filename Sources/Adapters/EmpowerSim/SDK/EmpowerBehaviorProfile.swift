/// How the simulated Empower network behaves: fill, latency, price, bids, privacy and user
/// behaviour.
///
/// Every draw comes from the ``EMAManager``'s seeded random streams, so one profile and one seed
/// give the same behaviour, byte for byte. A load's market outcome (fill or error, price, latency)
/// is drawn from a stream keyed by the zone id and the request's auction id, so it does not depend
/// on what was loaded or shown before; show-time user behaviour has one stream per zone.
///
/// ## Privacy
/// The manager's ``EMASettings`` privacy signals change the market outcome of each request:
/// - no GDPR consent (``EMASettings/hasUserConsent`` is `false`; `nil` means not asked): fill
///   probability × ``noConsentFillFactor``, price × ``noConsentPriceFactor`` (non-personalized ads);
/// - CCPA opt-out (``EMASettings/doNotSell`` is `true`): price × ``doNotSellPriceFactor``;
/// - child-directed (``EMASettings/isChildDirected``): fill probability ×
///   ``childDirectedFillFactor``, price × ``childDirectedPriceFactor``, and never a bid.
///
/// The factors multiply when several signals apply.
public struct EmpowerBehaviorProfile: Sendable, Equatable {
  /// Probability that a load fills (given no network error). Default 0.85.
  public var fillRate: Double
  /// Probability that a load fails with ``EMAError/Code/networkError``. Default 0.02.
  public var networkErrorRate: Double
  /// Median load latency (log-normal). Default 600 ms.
  public var loadLatencyMedian: Duration
  /// Spread of the load latency (sigma of the underlying normal). Default 0.5.
  public var loadLatencySigma: Double
  /// Spread of the price around the zone's base eCPM (log-normal, median 1). Default 0.25.
  public var priceSigma: Double
  /// How long a full ad plays before the reward, drawn uniformly. Default 15–30 s.
  public var watchTime: ClosedRange<Duration>
  /// Probability the user skips the ad. Default 0.12.
  public var skipProbability: Double
  /// The earliest a user can skip, after ``AdStatus/shown``. Default 5 s.
  public var earliestSkip: Duration
  /// Probability the user taps the ad during a show. Default 0.05.
  public var clickProbability: Double
  /// Time between ``AdStatus/rewarded(type:amount:)`` and ``AdStatus/closed`` (the end card),
  /// drawn uniformly. Default 0.5–3 s.
  public var endCardTime: ClosedRange<Duration>
  /// How long the SDK takes to start (used by the adapter's `start`). Default 250 ms.
  public var initLatency: Duration
  /// Median time to answer a bid request (log-normal). Default 250 ms.
  public var bidLatencyMedian: Duration
  /// Spread of the bid latency (sigma of the underlying normal). Default 0.4.
  public var bidLatencySigma: Double
  /// How long a load of a won bid takes (the ad is already reserved). Default 50 ms.
  public var bidLoadLatency: Duration
  /// How many answered bids the server remembers: a bid not loaded by the time this many newer
  /// bids were answered expires (its token fails with ``EMAError/Code/invalidBid``), so bids that
  /// lose their auction never accumulate. Default 1024.
  public var maxOutstandingBids: Int
  /// Fill probability factor without GDPR consent. Default 0.85.
  public var noConsentFillFactor: Double
  /// Price factor without GDPR consent (non-personalized ads). Default 0.6.
  public var noConsentPriceFactor: Double
  /// Price factor when the user opted out of the sale of personal information (CCPA). Default 0.8.
  public var doNotSellPriceFactor: Double
  /// Fill probability factor for child-directed requests (COPPA). Default 0.7.
  public var childDirectedFillFactor: Double
  /// Price factor for child-directed requests (COPPA). Default 0.5.
  public var childDirectedPriceFactor: Double

  /// Creates a profile; every parameter defaults to the realistic value documented on its property.
  public init(
    fillRate: Double = 0.85,
    networkErrorRate: Double = 0.02,
    loadLatencyMedian: Duration = .milliseconds(600),
    loadLatencySigma: Double = 0.5,
    priceSigma: Double = 0.25,
    watchTime: ClosedRange<Duration> = .seconds(15) ... .seconds(30),
    skipProbability: Double = 0.12,
    earliestSkip: Duration = .seconds(5),
    clickProbability: Double = 0.05,
    endCardTime: ClosedRange<Duration> = .milliseconds(500) ... .seconds(3),
    initLatency: Duration = .milliseconds(250),
    bidLatencyMedian: Duration = .milliseconds(250),
    bidLatencySigma: Double = 0.4,
    bidLoadLatency: Duration = .milliseconds(50),
    maxOutstandingBids: Int = 1024,
    noConsentFillFactor: Double = 0.85,
    noConsentPriceFactor: Double = 0.6,
    doNotSellPriceFactor: Double = 0.8,
    childDirectedFillFactor: Double = 0.7,
    childDirectedPriceFactor: Double = 0.5
  ) {
    self.fillRate = fillRate
    self.networkErrorRate = networkErrorRate
    self.loadLatencyMedian = loadLatencyMedian
    self.loadLatencySigma = loadLatencySigma
    self.priceSigma = priceSigma
    self.watchTime = watchTime
    self.skipProbability = skipProbability
    self.earliestSkip = earliestSkip
    self.clickProbability = clickProbability
    self.endCardTime = endCardTime
    self.initLatency = initLatency
    self.bidLatencyMedian = bidLatencyMedian
    self.bidLatencySigma = bidLatencySigma
    self.bidLoadLatency = bidLoadLatency
    self.maxOutstandingBids = maxOutstandingBids
    self.noConsentFillFactor = noConsentFillFactor
    self.noConsentPriceFactor = noConsentPriceFactor
    self.doNotSellPriceFactor = doNotSellPriceFactor
    self.childDirectedFillFactor = childDirectedFillFactor
    self.childDirectedPriceFactor = childDirectedPriceFactor
  }

  /// The realistic defaults.
  public static let `default` = EmpowerBehaviorProfile()
}

/// A zone's server-side configuration: the simulated Empower dashboard.
///
/// Simulation only: the real SDK fetches this from the Empower servers.
public struct EmpowerZoneSettings: Sendable, Equatable {
  /// The zone id, as passed to ``EMAManager/loadRewardedAd(zoneId:delegate:)``.
  public var zoneId: String
  /// The reward's type, reported in ``AdStatus/rewarded(type:amount:)``.
  public var rewardType: String
  /// The reward's amount, reported in ``AdStatus/rewarded(type:amount:)``.
  public var rewardAmount: Int
  /// The zone's base eCPM in USD; each ad's price is this times log-normal noise.
  public var baseECPM: Double
  /// Whether the SDK loads the next ad by itself after ``AdStatus/closed`` or ``AdStatus/skipped``.
  public var autoReload: Bool

  /// Creates a zone configuration.
  public init(
    zoneId: String, rewardType: String = "coins", rewardAmount: Int = 100, baseECPM: Double = 10,
    autoReload: Bool = false
  ) {
    self.zoneId = zoneId
    self.rewardType = rewardType
    self.rewardAmount = rewardAmount
    self.baseECPM = baseECPM
    self.autoReload = autoReload
  }
}
