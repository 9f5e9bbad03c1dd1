import Foundation
import MediationKit

/// Proposes a better configuration for one zone from simulated traffic, and measures it on seeds
/// it never saw.
///
/// 1. **Learn** (training seeds `seed`, `seed + 1`, …): the zone as configured runs on the
///    simulator; every line item's realized eCPM (its `revenue_paid` per impression, as AdMob's
///    automatic eCPM learns it), fills and successful load times are gathered
///    (``LineItemEarnings``).
/// 2. **Propose** candidates (``OptimizationCandidates``): waterfall orders by priority tier,
///    timeouts from the learned load times, eCPMs that are materially wrong, bidding where the
///    adapter bids, for each allowed strategy.
/// 3. **Choose** the candidate that earns the most on the training seeds, among those whose
///    time-to-ready p99 is no worse than the original's; the original itself (its values brought
///    into the safe range, ``SafeValues/clamped(_:)``) is a candidate, so the proposal never
///    earns less than it on the training seeds.
/// 4. **Measure** the original against the proposal on the held-out seeds
///    (`seed + heldOutSeedOffset` onwards) with the paired ``Comparison``.
struct Optimizer {
  struct Settings {
    /// The zone as configured (server callbacks kept: they are written back unchanged).
    var zone: ZoneConfig
    var networks: [NetworkID]
    var seed: UInt64
    /// Requests per simulated run (one seed).
    var requests: Int
    var privacy = PrivacySettings()
    /// The strategies the proposal may use: one with `--strategy`, else all three.
    var strategies: [ZoneConfig.AuctionStrategy] = ZoneConfig.AuctionStrategy.allCases
    /// The networks whose adapters answer bid requests.
    var biddingNetworks: Set<NetworkID> = []
    var trainingReplications = 2
    var heldOutReplications = 5
    /// Whether the held-out comparison keeps every line item's fates, for the HTML report.
    var keepsFunnel = false
    /// `--market FILE`: what the networks pay or do, in training and held out.
    var market: MarketPrices?
    var calibrated: CalibratedMarket?
  }

  /// The held-out seeds start this far from the training seeds, so the two never overlap.
  static let heldOutSeedOffset: UInt64 = 1_000_000

  let settings: Settings
  let registry: AdapterRegistry

  var trainingSeeds: [UInt64] { (0..<settings.trainingReplications).map { settings.seed &+ UInt64($0) } }
  var heldOutSeed: UInt64 { settings.seed &+ Self.heldOutSeedOffset }

  /// Learns, proposes, chooses and measures; `progress` gets the requests simulated so far.
  func run(progress: (@Sendable (Int) -> Void)? = nil) throws(MediationError) -> Optimization {
    var done = 0
    func simulate(_ zone: ZoneConfig, learning: Bool) throws(MediationError) -> SimulationStats {
      var merged = SimulationStats()
      for seed in trainingSeeds {
        var simulation = Simulator.Settings(
          zone: ServerCallbackChecks.withoutCallbacks(zone), networks: settings.networks, seed: seed,
          requests: settings.requests, privacy: settings.privacy, keepsFunnel: learning,
          keepsLineItemEarnings: learning, market: settings.market)
        simulation.calibrated = settings.calibrated
        let simulator = Simulator(settings: simulation, registry: registry)
        merged.merge(try simulator.run())
        done += settings.requests
        progress?(done)
      }
      return merged
    }
    let original = try simulate(settings.zone, learning: true)
    let learned = LearnedZone(zone: settings.zone, stats: original)
    let candidates = OptimizationCandidates(
      zone: settings.zone, learned: learned, strategies: settings.strategies,
      biddingNetworks: settings.biddingNetworks
    ).all
    // The original, with any value beyond the validator's range or the zone's budget brought
    // into it, is the first candidate: the proposal keeps it unless something earns more.
    let baseline = SafeValues.clamped(settings.zone)
    var evaluated = [
      (zone: baseline, stats: baseline == settings.zone ? original : try simulate(baseline, learning: false))
    ]
    for candidate in candidates where candidate != baseline {
      evaluated.append((candidate, try simulate(candidate, learning: false)))
    }
    let best = Self.choose(
      evaluated, strategies: settings.strategies,
      p99Limit: original.readyLatency.quantile(0.99))
    var bestByStrategy: [ZoneConfig.AuctionStrategy: SimulationStats] = [:]
    for (zone, stats) in evaluated
    where settings.strategies.contains(zone.strategy)
      && stats.revenueUSD > bestByStrategy[zone.strategy]?.revenueUSD ?? -1
    {
      bestByStrategy[zone.strategy] = stats
    }
    let comparison = Comparison(
      settings: Comparison.Settings(
        a: ServerCallbackChecks.withoutCallbacks(settings.zone),
        b: ServerCallbackChecks.withoutCallbacks(best.zone), networks: settings.networks, seed: heldOutSeed,
        requests: settings.requests, replications: settings.heldOutReplications, privacy: settings.privacy,
        keepsFunnel: settings.keepsFunnel, market: settings.market, calibrated: settings.calibrated),
      registry: registry)
    let trained = done
    let heldOut = try comparison.run { progress?(trained + $0) }
    return Optimization(
      original: settings.zone, proposed: best.zone, learned: learned, candidatesEvaluated: evaluated.count,
      trainingRevenue: (original.revenueUSD, best.stats.revenueUSD), bestByStrategy: bestByStrategy,
      heldOut: heldOut,
      heldOutSettings: comparison.settings)
  }
}

extension Optimizer {
  /// The candidate of an allowed strategy that earned the most, among those whose p99 is at most
  /// `p99Limit` (the original's); when none keeps p99 (possible only when `--strategy` rules the
  /// original out), the one that earned the most. Ties keep the earlier candidate, so the
  /// original (first) wins ties.
  static func choose(
    _ evaluated: [(zone: ZoneConfig, stats: SimulationStats)], strategies: [ZoneConfig.AuctionStrategy],
    p99Limit: Int
  ) -> (zone: ZoneConfig, stats: SimulationStats) {
    let allowed = evaluated.filter { strategies.contains($0.zone.strategy) }
    let withinP99 = allowed.filter { $0.stats.readyLatency.quantile(0.99) <= p99Limit }
    let pool = withinP99.isEmpty ? allowed : withinP99
    var best = pool.first ?? evaluated[0]
    for entry in pool.dropFirst() where entry.stats.revenueUSD > best.stats.revenueUSD { best = entry }
    return best
  }
}

/// What an optimization found: the learned line items, the proposal and its held-out measurement.
struct Optimization {
  let original: ZoneConfig
  let proposed: ZoneConfig
  let learned: LearnedZone
  let candidatesEvaluated: Int
  /// Revenue on the training seeds, original and proposal.
  let trainingRevenue: (original: Double, proposed: Double)
  /// Per allowed strategy, the figures of the configuration that earned the most on the training
  /// seeds, whatever its p99 (the original included): what each strategy can reach.
  let bestByStrategy: [ZoneConfig.AuctionStrategy: SimulationStats]
  /// A = the original, B = the proposal, on the held-out seeds.
  let heldOut: ComparisonResult
  let heldOutSettings: Comparison.Settings
}

/// Every line item's learned figures, in the zone's order.
struct LearnedZone {
  struct LineItemFigures {
    let item: ZoneConfig.LineItem
    /// Loads tried (loaded, failed or timed out) and filled, from the funnel.
    let attempts: Int
    let fills: Int
    let impressions: Int
    /// Realized revenue per thousand impressions; `nil` below ``minimumImpressions``.
    let learnedECPM: Double?
    /// 99.5% of this line item's successful loads took at most this long; `nil` below
    /// ``minimumImpressions`` fills.
    let loadQuantileMilliseconds: Int?

    var fillRate: Double? { attempts == 0 ? nil : Double(fills) / Double(attempts) }
  }

  /// Fewer impressions (or fills) than this teach nothing: the configured value is kept.
  static let minimumImpressions = 30
  /// The share of successful loads a proposed timeout lets through.
  static let timeoutQuantile = 0.995

  let lineItems: [LineItemFigures]

  init(lineItems: [LineItemFigures]) { self.lineItems = lineItems }

  init(zone: ZoneConfig, stats: SimulationStats) {
    lineItems = zone.lineItems.map { item in
      let earned = stats.lineItems[item.network, item.placementId]
      let key = WaterfallFunnel.LineItemKey(
        priority: item.priority, network: item.network, placementID: item.placementId)
      let fates = stats.funnel.counts[key] ?? [:]
      let attempts = [.loaded, .failed, .timedOut].reduce(0) { $0 + (fates[$1] ?? 0) }
      return LineItemFigures(
        item: item, attempts: attempts, fills: earned.fills, impressions: earned.impressions,
        learnedECPM: earned.impressions >= Self.minimumImpressions ? earned.learnedECPM : nil,
        loadQuantileMilliseconds: earned.fills >= Self.minimumImpressions
          ? earned.loadLatencyQuantile(Self.timeoutQuantile) : nil)
    }
  }

  /// The eCPM to rank line item `index` by: the learned one, else the configured one.
  func rankingECPM(_ index: Int) -> Double { lineItems[index].learnedECPM ?? lineItems[index].item.ecpm }
}
