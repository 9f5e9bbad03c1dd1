/// How the simulated Unity Ads network and its users behave. Every draw comes from the SDK
/// instance's seeded random streams, so one profile and one seed give the same behaviour.
public struct UnityBehaviorProfile: Sendable, Equatable {
  /// How long ``UnityAds/initialize(_:testMode:initializationDelegate:)`` takes. Default 300 ms.
  public var initLatency: Duration
  /// Probability that a load fills (given no error). Default 0.8.
  public var fillRate: Double
  /// Probability that a load fails with ``UnityAdsLoadError/internal``. Default 0.02.
  public var internalErrorRate: Double
  /// Median load latency (log-normal). Default 800 ms.
  public var loadLatencyMedian: Duration
  /// Spread of the load latency (sigma of the underlying normal). Default 0.5.
  public var loadLatencySigma: Double
  /// Probability the video player fails before the ad starts. Default 0.01.
  public var videoPlayerErrorRate: Double
  /// How long the video plays, drawn uniformly. Default 15–30 s.
  public var watchTime: ClosedRange<Duration>
  /// Probability the user skips the ad. Default 0.15.
  public var skipRate: Double
  /// The earliest a user can skip, after the start. Default 5 s.
  public var earliestSkip: Duration
  /// Probability the user taps the ad. Default 0.05.
  public var clickRate: Double
  /// Fill probability factor without GDPR consent (`gdpr.consent` false). Default 0.85.
  public var noConsentFillFactor: Double
  /// Fill probability factor for child-directed users (`user.nonbehavioral` true). Default 0.7.
  public var childDirectedFillFactor: Double

  /// Creates a profile; every parameter defaults to the value documented on its property.
  public init(
    initLatency: Duration = .milliseconds(300),
    fillRate: Double = 0.8,
    internalErrorRate: Double = 0.02,
    loadLatencyMedian: Duration = .milliseconds(800),
    loadLatencySigma: Double = 0.5,
    videoPlayerErrorRate: Double = 0.01,
    watchTime: ClosedRange<Duration> = .seconds(15) ... .seconds(30),
    skipRate: Double = 0.15,
    earliestSkip: Duration = .seconds(5),
    clickRate: Double = 0.05,
    noConsentFillFactor: Double = 0.85,
    childDirectedFillFactor: Double = 0.7
  ) {
    self.initLatency = initLatency
    self.fillRate = fillRate
    self.internalErrorRate = internalErrorRate
    self.loadLatencyMedian = loadLatencyMedian
    self.loadLatencySigma = loadLatencySigma
    self.videoPlayerErrorRate = videoPlayerErrorRate
    self.watchTime = watchTime
    self.skipRate = skipRate
    self.earliestSkip = earliestSkip
    self.clickRate = clickRate
    self.noConsentFillFactor = noConsentFillFactor
    self.childDirectedFillFactor = childDirectedFillFactor
  }

  /// The defaults.
  public static let `default` = UnityBehaviorProfile()
}
