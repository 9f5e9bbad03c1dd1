import Foundation
import MediationKit

/// Two configurations of one zone on the same engine, over replications with common random
/// numbers: replication r of A and of B both run with seed `seed + r`, so both sides meet the
/// same users, bids and fills, and the difference B − A is the configurations' doing, not noise.
struct Comparison {
  struct Settings {
    /// Side A's and side B's zone (the same id, possibly different settings).
    var a: ZoneConfig
    var b: ZoneConfig
    var networks: [NetworkID]
    /// Replication r runs with seed `seed + r` (wrapping).
    var seed: UInt64
    var requests: Int
    var replications: Int
    var privacy = PrivacySettings()
    /// Whether to record every line item's fates, for the HTML report.
    var keepsFunnel = false
    /// `--market FILE`: what the networks pay or do, on both sides.
    var market: MarketPrices?
    var calibrated: CalibratedMarket?
  }

  let settings: Settings
  let registry: AdapterRegistry

  /// The seed of replication `index`, on both sides.
  func seed(ofReplication index: Int) -> UInt64 { settings.seed &+ UInt64(index) }

  /// Runs every replication of A, then of B on the same seed; `progress` gets the requests done.
  func run(progress: (@Sendable (Int) -> Void)? = nil) throws(MediationError) -> ComparisonResult {
    var result = ComparisonResult(replications: settings.replications)
    for index in 0..<settings.replications {
      for side in ComparisonResult.Side.allCases {
        let zone = side == .a ? settings.a : settings.b
        var simulation = Simulator.Settings(
          zone: zone, networks: settings.networks, seed: seed(ofReplication: index),
          requests: settings.requests, privacy: settings.privacy, keepsFunnel: settings.keepsFunnel,
          market: settings.market)
        simulation.calibrated = settings.calibrated
        let simulator = Simulator(settings: simulation, registry: registry)
        let started = ContinuousClock.now
        let stats = try simulator.run()
        result.add(stats, side: side, wall: (ContinuousClock.now - started).seconds)
        progress?((index * 2 + (side == .a ? 1 : 2)) * settings.requests)
      }
    }
    return result
  }
}

/// A metric compared between the two sides, read from a run's ``SimulationStats``.
enum ComparedMetric: String, CaseIterable {
  case revenue = "revenue_usd"
  case revenueEfficiency = "revenue_efficiency"
  case fillRate = "fill_rate"
  case shows, rewards
  case readyP50 = "ready_ms_p50"
  case readyP90 = "ready_ms_p90"
  case readyP99 = "ready_ms_p99"

  func value(_ stats: SimulationStats) -> Double {
    switch self {
    case .revenue: stats.revenueUSD
    case .revenueEfficiency: stats.revenueEfficiency
    case .fillRate: stats.fillRate
    case .shows: Double(stats.shows)
    case .rewards: Double(stats.rewards)
    case .readyP50: Double(stats.readyLatency.quantile(0.5))
    case .readyP90: Double(stats.readyLatency.quantile(0.9))
    case .readyP99: Double(stats.readyLatency.quantile(0.99))
    }
  }

  /// A total over every request (it adds up across replications) rather than a rate or a quantile.
  var isTotal: Bool { self == .revenue || self == .shows || self == .rewards }

  /// Whether a larger value is better (time-to-ready: smaller is).
  var higherIsBetter: Bool { !(self == .readyP50 || self == .readyP90 || self == .readyP99) }

  var label: String {
    switch self {
    case .revenue: "revenue"
    case .revenueEfficiency: "efficiency vs oracle"
    case .fillRate: "fill rate"
    case .shows: "shows"
    case .rewards: "rewards"
    case .readyP50: "ready p50"
    case .readyP90: "ready p90"
    case .readyP99: "ready p99"
    }
  }
}

/// What a comparison measured: each side's figures over every replication (merged, as the
/// simulator reports them) and, per metric, each replication's value on each side.
struct ComparisonResult {
  enum Side: CaseIterable { case a, b }

  struct Delta: Equatable {
    /// B − A: for totals, summed over the replications (so A + diff = B, as reported); for rates
    /// and quantiles, the mean of the per-replication differences.
    var diff: Double
    /// The paired t 95% interval of `diff`, on the same scale; `nil` with fewer than 2 replications.
    var ci95: ClosedRange<Double>?
  }

  let replications: Int
  private(set) var a = SimulationStats()
  private(set) var b = SimulationStats()
  private(set) var wallA = 0.0
  private(set) var wallB = 0.0
  /// Per metric, replication r's value on A (index r) and on B.
  private(set) var perReplicationA: [ComparedMetric: [Double]] = [:]
  private(set) var perReplicationB: [ComparedMetric: [Double]] = [:]

  init(replications: Int) { self.replications = replications }

  /// Adds one replication of one side (replications in order, A before B).
  mutating func add(_ stats: SimulationStats, side: Side, wall: Double) {
    for metric in ComparedMetric.allCases {
      switch side {
      case .a: perReplicationA[metric, default: []].append(metric.value(stats))
      case .b: perReplicationB[metric, default: []].append(metric.value(stats))
      }
    }
    switch side {
    case .a:
      a.merge(stats)
      wallA += wall
    case .b:
      b.merge(stats)
      wallB += wall
    }
  }

  func differences(_ metric: ComparedMetric) -> PairedDifferences {
    PairedDifferences(a: perReplicationA[metric] ?? [], b: perReplicationB[metric] ?? [])
  }

  func delta(_ metric: ComparedMetric) -> Delta {
    let differences = differences(metric)
    let scale = metric.isTotal ? Double(differences.count) : 1
    let interval = differences.confidenceInterval95
    return Delta(
      diff: differences.mean * scale,
      ci95: interval.map { ($0.lowerBound * scale)...($0.upperBound * scale) })
  }

  /// The verdict on revenue.
  var verdict: ComparisonVerdict { ComparisonVerdict(delta(.revenue).ci95) }
}
