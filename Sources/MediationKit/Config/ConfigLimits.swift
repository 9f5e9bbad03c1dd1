import Foundation

extension MediationConfig {
  /// The limits validation enforces, so absurd values are caught before they misbehave.
  public enum Limits {
    /// Longest line item timeout, in seconds.
    public static let maxLineItemTimeout = 120.0
    /// Longest zone load budget, in seconds.
    public static let maxLoadTimeout = 600.0
    /// Longest ad expiry, in seconds (one day).
    public static let maxAdExpiry = 86_400.0
    /// Longest reward grace window, in seconds.
    public static let maxRewardGrace = 60.0
    /// Longest bidding auction, in seconds.
    public static let maxAuctionTimeout = 60.0
    /// Highest eCPM, in USD.
    public static let maxECPM = 10_000.0
    /// Longest server callback URL (or URL template), in characters.
    public static let maxServerCallbackURLLength = 8192
    /// Most ads a zone keeps ready (`queueDepth`).
    public static let maxQueueDepth = 5
    /// Highest weight of an experiment arm.
    public static let maxArmWeight = 1_000_000
    /// Most experiments on one zone.
    public static let maxExperimentsPerZone = 10
    /// Most arms in one experiment.
    public static let maxArmsPerExperiment = 20
    /// Longest experiment id or arm id, in characters (events, revenue and the reward ledger
    /// carry them).
    public static let maxExperimentIDLength = 128
    /// Longest configuration `version`, in characters.
    public static let maxVersionLength = 256
    /// Largest reward amount: every network's SDK holds it (a 32-bit integer) and a `Double`
    /// holds it exactly.
    public static let maxRewardAmount = 1_000_000_000
    /// Highest `caps.maxPerHour` and `caps.maxPerDay`.
    public static let maxShowsPerCap = 100_000
    /// Highest line item `priority` (the last tier).
    public static let maxPriority = 1000
  }
}

extension ZoneConfig {
  /// An issue when `value` is not finite or outside `range` (excluding the lower bound if `lowerOpen`).
  /// `path` is built only for an issue: a valid configuration (every `Mediator.apply`) builds none.
  static func rangeIssue(
    _ path: @autoclosure () -> String, _ value: Double, _ range: ClosedRange<Double>, lowerOpen: Bool = false
  ) -> MediationConfig.Issue? {
    let tooLow = lowerOpen ? value <= range.lowerBound : value < range.lowerBound
    guard !value.isFinite || tooLow || value > range.upperBound else { return nil }
    let path = path()
    let unit = path.hasSuffix("Seconds") ? " seconds" : ""
    let low = lowerOpen ? "> \(format(range.lowerBound))" : "≥ \(format(range.lowerBound))"
    return MediationConfig.Issue(
      path: path,
      message:
        "must be a finite number \(low) and ≤ \(format(range.upperBound))\(unit), found \(format(value))")
  }

  /// An issue when the integer `value` is outside `range`, built like ``rangeIssue(_:_:_:lowerOpen:)``.
  static func integerIssue(_ path: @autoclosure () -> String, _ value: Int, _ range: ClosedRange<Int>)
    -> MediationConfig.Issue?
  {
    guard !range.contains(value) else { return nil }
    return MediationConfig.Issue(
      path: path(),
      message: "must be an integer between \(range.lowerBound) and \(range.upperBound), found \(value)")
  }

  /// A number as messages write it: whole numbers without a fraction, `Infinity`, `NaN`.
  static func format(_ value: Double) -> String {
    if value.isNaN { return "NaN" }
    if value.isInfinite { return value > 0 ? "Infinity" : "-Infinity" }
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
  }
}
