import MediationKit

/// What a simulation's networks did, counted the way the vendors' reports count it: per day,
/// segment (country) and line item, the attempts, responses, impressions and revenue
/// (``AttemptOutcome``), and per day and segment the zone's ad requests. Mergeable, like the rest
/// of ``SimulationStats``.
struct ReportAggregates: Equatable {
  /// A report row's dimensions.
  struct Key: Hashable, Comparable {
    var day: Int
    var segment: String?
    var network: NetworkID
    var placementID: String

    static func < (lhs: Key, rhs: Key) -> Bool {
      (lhs.day, lhs.segment ?? "", lhs.network.rawValue, lhs.placementID) < (
        rhs.day, rhs.segment ?? "", rhs.network.rawValue, rhs.placementID
      )
    }
  }

  /// A report row's metrics.
  struct Counts: Equatable {
    var attempts = 0
    var responses = 0
    var impressions = 0
    var revenueUSD = 0.0

    mutating func merge(_ other: Counts) {
      attempts += other.attempts
      responses += other.responses
      impressions += other.impressions
      revenueUSD += other.revenueUSD
    }
  }

  private(set) var rows: [Key: Counts] = [:]

  /// One auction's responses, on `day` in `segment`.
  mutating func record(_ responses: [AdInfo.NetworkResponse], day: Int, segment: String?) {
    for response in responses {
      let outcome = AttemptOutcome(response.state, bid: response.bid)
      guard outcome.isAttempt else { continue }
      let key = Key(day: day, segment: segment, network: response.network, placementID: response.placementID)
      rows[key, default: Counts()].attempts += 1
      if outcome == .fill { rows[key, default: Counts()].responses += 1 }
    }
  }

  /// One impression of `network`'s `placementID` and what it paid.
  mutating func recordImpression(
    network: NetworkID, placementID: String, usd: Double, day: Int, segment: String?
  ) {
    let key = Key(day: day, segment: segment, network: network, placementID: placementID)
    rows[key, default: Counts()].impressions += 1
    rows[key, default: Counts()].revenueUSD += usd
  }

  mutating func merge(_ other: ReportAggregates) {
    for (key, counts) in other.rows { rows[key, default: Counts()].merge(counts) }
  }
}
