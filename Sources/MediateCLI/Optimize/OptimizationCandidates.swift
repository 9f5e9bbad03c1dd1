import Foundation
import MediationKit

/// The configurations of a zone the optimizer tries, built from what it learned. Every value is
/// safe by construction (``SafeValues``): timeouts within the zone's load budget, floors and
/// eCPMs within the validator's range, priorities within 0…1000.
///
/// Per allowed strategy:
/// - `waterfall`: every order of the line items (up to ``exhaustiveOrderLimit`` items; beyond,
///   the configured order and the learned one), each line item in its own priority tier;
/// - `bidding`: the configured bidders, and every line item whose network's adapter bids;
/// - `hybrid`: the same two bidder sets, the waterfall part in the configured and the learned order.
///
/// Every candidate gets the tuned timeouts; each also comes with the learned eCPMs written back,
/// when some line item's learned eCPM differs from its configured one by more than
/// ``materialECPMChange`` (a smaller difference is the price noise's mean, not a wrong eCPM).
struct OptimizationCandidates {
  /// Up to this many waterfall line items, every order is tried (4 items: 24 orders).
  static let exhaustiveOrderLimit = 4
  /// A learned eCPM is written back when it is off the configured one by more than this fraction.
  static let materialECPMChange = 0.10
  /// The shortest timeout proposed, in seconds.
  static let minimumTimeout = 1.0
  /// Timeouts are proposed in steps of this many seconds.
  static let timeoutStep = 0.5

  let zone: ZoneConfig
  let learned: LearnedZone
  let strategies: [ZoneConfig.AuctionStrategy]
  let biddingNetworks: Set<NetworkID>

  /// Every candidate, without duplicates, the learned waterfall order first.
  var all: [ZoneConfig] {
    var result: [ZoneConfig] = []
    func add(_ candidate: ZoneConfig) {
      guard candidate.strategy == .waterfall || candidate.lineItems.contains(where: \.bidding),
        !result.contains(candidate)
      else { return }
      result.append(candidate)
    }
    let base = tuned(zone)
    let bidderSets = [base.lineItems.map(\.bidding), base.lineItems.map { $0.bidding || canBid($0) }]
    for strategy in strategies {
      for eCPMs in eCPMVariants {
        var zone = base
        zone.use(strategy)
        for (index, ecpm) in eCPMs.enumerated() { zone.lineItems[index].ecpm = ecpm }
        switch strategy {
        case .waterfall:
          for order in orders(of: Array(zone.lineItems.indices)) { add(ordered(zone, order)) }
        case .bidding:
          for bidders in bidderSets { add(withBidders(zone, bidders)) }
        case .hybrid:
          for bidders in bidderSets {
            let zone = withBidders(zone, bidders)
            let waterfall = zone.lineItems.indices.filter { !zone.lineItems[$0].bidding }
            for order in [learnedOrder(waterfall), configuredOrder(waterfall)] { add(ordered(zone, order)) }
          }
        }
      }
    }
    return result
  }

  /// The configured eCPMs, and the learned ones when one of them is materially different.
  var eCPMVariants: [[Double]] {
    let configured = zone.lineItems.map(\.ecpm)
    let learnedECPMs = learned.lineItems.map { figures in
      guard let value = figures.learnedECPM,
        abs(value - figures.item.ecpm) > Self.materialECPMChange * figures.item.ecpm
      else { return figures.item.ecpm }
      return SafeValues.learnedECPM(value)
    }
    return learnedECPMs == configured ? [configured] : [configured, learnedECPMs]
  }

  /// The zone with safe values and tuned timeouts: each line item's timeout lets
  /// ``LearnedZone/timeoutQuantile`` of its successful loads through, in steps of
  /// ``timeoutStep``, never below ``minimumTimeout`` nor above the configured timeout or the
  /// zone's load budget.
  func tuned(_ zone: ZoneConfig) -> ZoneConfig {
    var zone = SafeValues.clamped(zone)
    for index in zone.lineItems.indices {
      guard let milliseconds = learned.lineItems[index].loadQuantileMilliseconds else { continue }
      let stepped = (Double(milliseconds) / 1000 / Self.timeoutStep).rounded(.up) * Self.timeoutStep
      zone.lineItems[index].timeoutSeconds = min(
        zone.lineItems[index].timeoutSeconds, max(Self.minimumTimeout, stepped))
    }
    return zone
  }

  private func canBid(_ item: ZoneConfig.LineItem) -> Bool { biddingNetworks.contains(item.network) }

  private func withBidders(_ zone: ZoneConfig, _ bidders: [Bool]) -> ZoneConfig {
    var zone = zone
    for index in zone.lineItems.indices { zone.lineItems[index].bidding = bidders[index] }
    return zone
  }

  /// `indices` (line items of the waterfall part) in every order, or the configured and learned
  /// ones when there are too many to try them all; the learned order first.
  private func orders(of indices: [Int]) -> [[Int]] {
    let first = [learnedOrder(indices), configuredOrder(indices)]
    guard indices.count <= Self.exhaustiveOrderLimit else { return first }
    return first + Self.permutations(indices)
  }

  /// By learned eCPM, highest first (the configured eCPM when too few impressions were seen).
  func learnedOrder(_ indices: [Int]) -> [Int] {
    indices.enumerated().sorted { lhs, rhs in
      let left = learned.rankingECPM(lhs.element)
      let right = learned.rankingECPM(rhs.element)
      return left != right ? left > right : lhs.offset < rhs.offset
    }.map(\.element)
  }

  /// The order the engine tries them in today.
  private func configuredOrder(_ indices: [Int]) -> [Int] {
    WaterfallOrder.sortedIndices(zone.lineItems).filter(indices.contains)
  }

  /// The zone with the waterfall line items `order` tried in that order: unchanged when it is
  /// already the configured order, otherwise one priority tier per line item, from the lowest
  /// priority the zone uses.
  private func ordered(_ zone: ZoneConfig, _ order: [Int]) -> ZoneConfig {
    guard order != configuredOrder(order) else { return zone }
    var zone = zone
    let first = order.map { zone.lineItems[$0].priority }.min() ?? 0
    for (rank, index) in order.enumerated() {
      zone.lineItems[index].priority = SafeValues.priority(first + rank)
    }
    return zone
  }

  static func permutations(_ values: [Int]) -> [[Int]] {
    guard values.count > 1 else { return [values] }
    return values.indices.flatMap { index in
      var rest = values
      let head = rest.remove(at: index)
      return permutations(rest).map { [head] + $0 }
    }
  }
}

/// Clamps every value the optimizer writes into the validator's range, so a proposal is valid
/// whatever the input: the limits are `MediationConfig.Limits`' and the zone's own load budget.
enum SafeValues {
  /// A learned eCPM to write: within 0.01…``MediationConfig/Limits/maxECPM``, rounded to the cent.
  static func learnedECPM(_ value: Double) -> Double {
    guard value.isFinite else { return 0.01 }
    return min(MediationConfig.Limits.maxECPM, max(0.01, (value * 100).rounded() / 100))
  }

  /// Within 0…``MediationConfig/Limits/maxECPM``: for bid floors and configured eCPMs.
  static func price(_ value: Double) -> Double {
    guard value.isFinite else { return 0 }
    return min(MediationConfig.Limits.maxECPM, max(0, value))
  }

  /// Positive and at most the zone's load budget and ``MediationConfig/Limits/maxLineItemTimeout``.
  static func timeout(_ value: Double, budget: Double) -> Double {
    let limit = min(budget, MediationConfig.Limits.maxLineItemTimeout)
    guard value.isFinite, value > 0 else { return limit }
    return min(value, limit)
  }

  /// Within 0…1000.
  static func priority(_ value: Int) -> Int { min(1000, max(0, value)) }

  /// `zone` with every value the optimizer may write brought into range: a valid configuration
  /// may still hold a line item timeout or an auction timeout beyond the zone's load budget,
  /// which the proposal never keeps.
  static func clamped(_ zone: ZoneConfig) -> ZoneConfig {
    var zone = zone
    zone.auctionTimeoutSeconds = timeout(zone.auctionTimeoutSeconds, budget: zone.loadTimeoutSeconds)
    for index in zone.lineItems.indices {
      var item = zone.lineItems[index]
      item.timeoutSeconds = timeout(item.timeoutSeconds, budget: zone.loadTimeoutSeconds)
      item.bidFloor = price(item.bidFloor)
      item.ecpm = price(item.ecpm)
      item.priority = priority(item.priority)
      zone.lineItems[index] = item
    }
    return zone
  }
}
