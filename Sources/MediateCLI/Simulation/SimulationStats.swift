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
  var wins: [NetworkID: Int] = [:]
  /// Participating networks the oracle could not ask (their adapters are not `SimulatedNetwork`).
  var unquotedNetworks: Set<NetworkID> = []

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
    wins.merge(other.wins, uniquingKeysWith: +)
    unquotedNetworks.formUnion(other.unquotedNetworks)
  }

  var fillRate: Double { requests == 0 ? 0 : Double(fills) / Double(requests) }
  var averageECPM: Double { shows == 0 ? 0 : shownECPMSum / Double(shows) }
  var revenueEfficiency: Double { oracleRevenueUSD == 0 ? 0 : revenueUSD / oracleRevenueUSD }
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
