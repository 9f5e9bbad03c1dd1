import MediationKit

/// Streaming statistics of a simulation: constant memory whatever the number of requests, and
/// mergeable, so shards can run on any number of cores and merge to the same figures.
struct SimulationStats: Equatable {
  var requests = 0
  var fills = 0
  var shows = 0
  var rewards = 0
  var skips = 0
  var showFailures = 0
  /// Shows refused by the zone's frequency cap or pacing.
  var capped = 0
  var revenueUSD = 0.0
  /// Sum of the eCPMs of shown impressions, for the average eCPM.
  var shownECPMSum = 0.0
  var oracleRevenueUSD = 0.0
  var readyLatency = LatencyHistogram()
  /// From each session's show request (its start) to its `shown`.
  var showLatency = LatencyHistogram()
  var wins: [NetworkID: Int] = [:]
  /// Revenue paid per network, in USD.
  var revenueByNetwork: [NetworkID: Double] = [:]
  /// Every line item's fates, when the run was asked to keep them (``Simulator/Settings/keepsFunnel``).
  var funnel = WaterfallFunnel()
  /// Every line item's fills, impressions, revenue and load times, when the run was asked to keep
  /// them (``Simulator/Settings/keepsLineItemEarnings``).
  var lineItems = LineItemEarnings()
  /// Participating networks the oracle could not ask (their adapters are not `SimulatedNetwork`).
  var unquotedNetworks: Set<NetworkID> = []
  /// Revenue and oracle revenue of the first and the last tenth of each shard's sessions: each
  /// shard is one engine learning from scratch, so these show what learned eCPMs gain over time.
  var firstTenth = RevenueAgainstOracle()
  var lastTenth = RevenueAgainstOracle()
  /// The counts the vendors' reports are made of, when the run records them
  /// (``SimulationRecording/reports``).
  var reports = ReportAggregates()
  /// One shard's event log lines, when the run records them; ``ShardMerger`` hands them on in
  /// shard order and never merges them.
  var eventLog: String?

  mutating func merge(_ other: SimulationStats) {
    requests += other.requests
    fills += other.fills
    shows += other.shows
    rewards += other.rewards
    skips += other.skips
    showFailures += other.showFailures
    capped += other.capped
    revenueUSD += other.revenueUSD
    shownECPMSum += other.shownECPMSum
    oracleRevenueUSD += other.oracleRevenueUSD
    readyLatency.merge(other.readyLatency)
    showLatency.merge(other.showLatency)
    wins.merge(other.wins, uniquingKeysWith: +)
    revenueByNetwork.merge(other.revenueByNetwork, uniquingKeysWith: +)
    funnel.merge(other.funnel)
    lineItems.merge(other.lineItems)
    unquotedNetworks.formUnion(other.unquotedNetworks)
    firstTenth.merge(other.firstTenth)
    lastTenth.merge(other.lastTenth)
    reports.merge(other.reports)
  }

  var fillRate: Double { requests == 0 ? 0 : Double(fills) / Double(requests) }
  /// Shows per session (show request).
  var showRate: Double { requests == 0 ? 0 : Double(shows) / Double(requests) }
  var averageECPM: Double { shows == 0 ? 0 : shownECPMSum / Double(shows) }
  var revenueEfficiency: Double { oracleRevenueUSD == 0 ? 0 : revenueUSD / oracleRevenueUSD }
}

/// Revenue paid in some of a run's sessions, and what the oracle would have earned in them.
struct RevenueAgainstOracle: Equatable {
  var revenueUSD = 0.0
  var oracleRevenueUSD = 0.0

  var efficiency: Double { oracleRevenueUSD == 0 ? 0 : revenueUSD / oracleRevenueUSD }

  mutating func merge(_ other: RevenueAgainstOracle) {
    revenueUSD += other.revenueUSD
    oracleRevenueUSD += other.oracleRevenueUSD
  }
}

/// Time-to-ready in whole milliseconds: exact up to two minutes, then by the second up to ten.
struct LatencyHistogram: Equatable {
  static let exactLimit = 120_000
  private var exact = [UInt32](repeating: 0, count: LatencyHistogram.exactLimit + 1)
  private var seconds = [UInt32](repeating: 0, count: 481)
  private(set) var count = 0

  mutating func record(_ duration: Duration) {
    let ms = Int(max(0, duration.milliseconds))
    if ms <= Self.exactLimit {
      exact[ms] += 1
    } else {
      seconds[min(seconds.count - 1, (ms - Self.exactLimit) / 1000)] += 1
    }
    count += 1
  }

  mutating func merge(_ other: LatencyHistogram) {
    guard other.count > 0 else { return }
    for index in exact.indices where other.exact[index] != 0 { exact[index] += other.exact[index] }
    for index in seconds.indices where other.seconds[index] != 0 { seconds[index] += other.seconds[index] }
    count += other.count
  }

  /// How many values are at most each of `limits` (in milliseconds, ascending), for a CDF.
  func countsAtOrBelow(_ limits: [Int]) -> [Int] {
    var counts: [Int] = []
    var seen = 0
    var ms = 0
    var second = 0
    for limit in limits {
      while ms <= min(limit, Self.exactLimit) {
        seen += Int(exact[ms])
        ms += 1
      }
      // Past two minutes values are kept by the second: a bucket counts once it starts by `limit`.
      while second < seconds.count && Self.exactLimit + 1 + second * 1000 <= limit {
        seen += Int(seconds[second])
        second += 1
      }
      counts.append(seen)
    }
    return counts
  }

  /// The smallest recorded value at or below which `fraction` of the values fall (nearest rank).
  func quantile(_ fraction: Double) -> Int {
    guard count > 0 else { return 0 }
    let rank = max(1, Int((fraction * Double(count)).rounded(.up)))
    var seen = 0
    for (ms, n) in exact.enumerated() where n > 0 {
      seen += Int(n)
      if seen >= rank { return ms }
    }
    for (second, n) in seconds.enumerated() where n > 0 {
      seen += Int(n)
      if seen >= rank { return Self.exactLimit + second * 1000 }
    }
    return Self.exactLimit + seconds.count * 1000
  }
}

/// What became of every line item in every auction of a run: per line item, how often it loaded,
/// failed, timed out, was skipped or not reached, bid, did not bid, bid below its floor or was
/// outbid — gathered from the `AdInfo` responses of ready loads and the waterfall of failed ones.
struct WaterfallFunnel: Equatable {
  /// A line item, as the auction's responses name it.
  struct LineItemKey: Hashable, Comparable {
    var priority: Int
    var network: NetworkID
    var placementID: String

    static func < (lhs: LineItemKey, rhs: LineItemKey) -> Bool {
      (lhs.priority, lhs.network.rawValue, lhs.placementID) < (
        rhs.priority, rhs.network.rawValue, rhs.placementID
      )
    }
  }

  private(set) var counts: [LineItemKey: [AdInfo.NetworkResponse.State: Int]] = [:]
  /// How many auctions were recorded.
  private(set) var auctions = 0

  mutating func record(_ responses: [AdInfo.NetworkResponse]) {
    auctions += 1
    for response in responses {
      let key = LineItemKey(
        priority: response.priority, network: response.network, placementID: response.placementID)
      counts[key, default: [:]][response.state, default: 0] += 1
    }
  }

  mutating func merge(_ other: WaterfallFunnel) {
    auctions += other.auctions
    for (key, states) in other.counts { counts[key, default: [:]].merge(states, uniquingKeysWith: +) }
  }
}
