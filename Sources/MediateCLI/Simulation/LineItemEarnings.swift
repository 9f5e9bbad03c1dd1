import MediationKit

/// What each line item really earned in a run, the way AdMob's automatic eCPM learns it: per
/// line item (network and placement), how often it filled, how often it was shown, the revenue
/// its `revenue_paid` events reported, and how long its successful loads took. Streaming and
/// mergeable like the rest of ``SimulationStats``; recorded when asked
/// (``Simulator/Settings/keepsLineItemEarnings``).
struct LineItemEarnings: Equatable {
  /// A line item as the events name it.
  struct Key: Hashable {
    var network: NetworkID
    var placementID: String
  }

  /// One line item's figures.
  struct Item: Equatable {
    var fills = 0
    var impressions = 0
    var revenueUSD = 0.0
    /// Successful load times in buckets of ``LineItemEarnings/bucketMilliseconds``; the last
    /// bucket holds everything longer.
    var loadLatency = [Int](repeating: 0, count: LineItemEarnings.buckets)

    /// Realized revenue per thousand impressions; `nil` before the first impression.
    var learnedECPM: Double? { impressions == 0 ? nil : revenueUSD * 1000 / Double(impressions) }

    /// The smallest bucket bound (in milliseconds) at or below which `fraction` of the successful
    /// loads finished; `nil` without loads or when the quantile is past the last bucket.
    func loadLatencyQuantile(_ fraction: Double) -> Int? {
      let total = loadLatency.reduce(0, +)
      guard total > 0 else { return nil }
      let rank = max(1, Int((fraction * Double(total)).rounded(.up)))
      var seen = 0
      for (bucket, count) in loadLatency.enumerated() {
        seen += count
        if seen >= rank {
          return bucket == LineItemEarnings.buckets - 1
            ? nil : (bucket + 1) * LineItemEarnings.bucketMilliseconds
        }
      }
      return nil
    }

    mutating func merge(_ other: Item) {
      fills += other.fills
      impressions += other.impressions
      revenueUSD += other.revenueUSD
      for index in loadLatency.indices { loadLatency[index] += other.loadLatency[index] }
    }
  }

  static let bucketMilliseconds = 50
  /// Buckets up to two minutes (the longest line item timeout), then one for longer.
  static let buckets = 120_000 / bucketMilliseconds + 1

  private(set) var items: [Key: Item] = [:]

  subscript(network: NetworkID, placementID: String) -> Item {
    items[Key(network: network, placementID: placementID)] ?? Item()
  }

  /// A ready load: the winner filled, in its response's load time.
  mutating func recordFill(_ info: AdInfo) {
    let key = Key(network: info.network, placementID: info.placementID)
    items[key, default: Item()].fills += 1
    let loaded = info.responses.first {
      $0.state == .loaded && $0.network == info.network && $0.placementID == info.placementID
    }
    if let latency = loaded?.latency {
      let bucket = min(Self.buckets - 1, Int(max(0, latency.milliseconds)) / Self.bucketMilliseconds)
      items[key, default: Item()].loadLatency[bucket] += 1
    }
  }

  mutating func recordImpression(_ info: AdInfo) {
    items[Key(network: info.network, placementID: info.placementID), default: Item()].impressions += 1
  }

  mutating func recordRevenue(_ revenue: RewardedAdEvent.Revenue) {
    items[Key(network: revenue.network, placementID: revenue.placementID), default: Item()].revenueUSD +=
      revenue.usd
  }

  mutating func merge(_ other: LineItemEarnings) {
    for (key, item) in other.items { items[key, default: Item()].merge(item) }
  }
}
