/// Learned eCPMs (a zone's `"autoECPM": true`): per waterfall line item, what trying it has been
/// worth, learned from the zone's own loads and shows, and the order the next load tries them in.
///
/// A pure value: the zone keeps one for its whole life, feeds it every load's outcome
/// (``record(_:fillPrecision:)``) and every impression's paid revenue
/// (``paid(network:placementID:revenue:)``), and asks it for each load's order (``nextOrder()``).
///
/// **The order.** Line items are tried by descending index `price − waitCost × time / P(fill)`:
/// the price a fill pays, less what the wait costs — `time / P(fill)` is the expected time spent
/// on the line item per fill it gives. Why: swapping two adjacent line items `i`, `j` changes the
/// expected revenue by `P(i)·P(j)·(price(i) − price(j))` and the expected wait by
/// `P(j)·time(i) − P(i)·time(j)`; so with each second worth ``waitCost``, `i` goes first exactly
/// when its index is higher, and sorting by the index is optimal. With free waits it is the plain
/// price order (what a waterfall by eCPM does); the small wait cost only settles near-ties by
/// speed, and sinks a line item that stopped filling (`P(fill) → 0`) instead of leaving it on top.
/// (`P(fill) × price`, the eCPM per attempt, would put a cheap line item that always fills in front
/// of a dearer one that fills a little less often, and lose revenue.)
///
/// **The estimates.** Exponentially decayed averages over the line item's own observations, each
/// older one weighing ``decay`` times the next, so a price change is tracked within some fifty
/// observations:
/// - the fill rate and the time an attempt takes, from its attempts that reached the network
///   (filled, failed or timed out; skipped or unstarted ones say nothing about the network);
/// - the price from what the network said it paid: the impression's `revenue_paid` when the
///   network reports revenue, else the price the network gave with the ad (a bid or a reported
///   eCPM). A fill the network gave no price for counts for the fill rate only.
/// The configured `ecpm` is the prior: one pseudo-observation of an instant fill at that price,
/// which the first real observations outweigh. So before any load the order is by configured
/// eCPM, then `priority`, then the configuration's order.
///
/// **Exploration.** A line item placed low is rarely reached, so its estimate would never be
/// corrected: one that stopped paying is found out (it keeps being tried), but one that started
/// paying more never is. So every line item is tried first at least once every
/// ``explorationGap``'s upper bound of loads: after each attempt (or promotion) the next one is
/// due a seeded-random number of loads later, drawn uniformly in ``explorationGap`` — random so
/// promotions do not fall into step with any periodic pattern in the traffic. A line item that is
/// reached anyway is never due; one that never is gets promoted, for the one load, in front of
/// the others: at most one load in `explorationGap.lowerBound` (2%), at least one in
/// `explorationGap.upperBound` (1%). The draws come from the engine's seeded randomness, so
/// a run is reproducible from its seed.
struct LearnedECPMs: Sendable {
  /// The weight an observation keeps for each newer observation of the same line item.
  static let decay = 0.98
  /// What a second of waiting for a fill costs, in USD per thousand impressions.
  static let waitCost = 1.0
  /// Loads between a line item's attempts before it is promoted to the front (drawn uniformly).
  static let explorationGap = 50...100

  /// One waterfall line item's decayed sums.
  struct Estimate: Sendable {
    let entry: Int
    let network: NetworkID
    let placementID: String
    var attempts = 1.0
    var fills = 1.0
    /// Decayed sum of the attempts' durations, in seconds (over ``attempts``).
    var seconds = 0.0
    var priceWeight = 1.0
    var priceSum: Double
    /// The load from which the line item is promoted to the front.
    var dueAt: Int
    /// The last fill's contribution to the price, until its impression's revenue replaces it:
    /// the price it added (`nil`: none) and the weight that observation has now.
    var unpaid: (price: Double?, weight: Double)?

    var fillRate: Double { fills / attempts }
    var price: Double { priceSum / priceWeight }
    /// The mean time an attempt takes, in seconds.
    var attemptSeconds: Double { seconds / attempts }
    /// The order's index: the price less the cost of the expected wait per fill.
    var value: Double {
      fillRate > 0 ? price - LearnedECPMs.waitCost * attemptSeconds / fillRate : -.infinity
    }
  }

  /// The waterfall entries' estimates, in the plan's configured order.
  private(set) var estimates: [Estimate]
  private var random: SeededRandom
  /// Loads ordered so far.
  private(set) var loads = 0
  /// How many line items the last order promoted to its front.
  private(set) var promoted = 0

  /// Estimates for `plan`'s waterfall entries with their configured eCPMs as the prior;
  /// exploration draws from `random`.
  init(plan: LoadPlan, random: SeededRandom) {
    var random = random
    var estimates: [Estimate] = []
    for entry in plan.waterfall {
      let item = plan.entries[entry].item
      estimates.append(
        Estimate(
          entry: entry, network: item.network, placementID: item.placementId, priceSum: max(0, item.ecpm),
          dueAt: Self.draw(after: 0, &random)))
    }
    self.estimates = estimates
    self.random = random
  }

  /// The plan entries in the order their values rank them: higher first, ties in configured
  /// order. What every load tries, promotions aside.
  var ranking: [Int] {
    estimates.indices.sorted { lhs, rhs in
      let left = estimates[lhs].value
      let right = estimates[rhs].value
      return left != right ? left > right : lhs < rhs
    }
    .map { estimates[$0].entry }
  }

  /// Each entry's learned price (when filled), by plan entry; configured eCPMs for the rest.
  func prices(in plan: LoadPlan) -> [Double] {
    var prices = plan.entries.map(\.item.ecpm)
    for estimate in estimates { prices[estimate.entry] = estimate.price }
    return prices
  }

  /// The plan of the next load: `plan` (the one these estimates were made for) with its
  /// waterfall in the learned order and priced at the learned prices. A line item promoted for
  /// exploration is priced at infinity for the load, so a hybrid zone does not skip it for a bid.
  mutating func nextLoad(in plan: LoadPlan) -> LoadPlan {
    let order = nextOrder()
    var prices = self.prices(in: plan)
    for entry in order.prefix(promoted) { prices[entry] = .infinity }
    return plan.learned(order: order, prices: prices)
  }

  /// The next load's waterfall: the line items due for exploration first (longest due first;
  /// ``promoted`` of them), then the ``ranking``.
  mutating func nextOrder() -> [Int] {
    loads += 1
    var due: [(dueAt: Int, entry: Int)] = []
    for index in estimates.indices where estimates[index].dueAt <= loads {
      due.append((estimates[index].dueAt, estimates[index].entry))
      estimates[index].dueAt = Self.draw(after: loads, &random)
    }
    promoted = due.count
    let ranking = self.ranking
    guard !due.isEmpty else { return ranking }
    let front = due.sorted { $0.dueAt != $1.dueAt ? $0.dueAt < $1.dueAt : $0.entry < $1.entry }.map(\.entry)
    return front + ranking.filter { !front.contains($0) }
  }

  /// Learns from one load's `responses`: each waterfall line item that reached its network
  /// filled or did not. The filled one's price counts when `fillPrecision` says the network gave
  /// it (not ``AdapterSignal/RevenuePrecision/publisherDefined``).
  mutating func record(_ responses: [AdInfo.NetworkResponse], fillPrecision: AdapterSignal.RevenuePrecision?)
  {
    for response in responses {
      guard let index = index(response.network, response.placementID) else { continue }
      switch response.state {
      case .loaded:
        let networkPrice = fillPrecision.flatMap { $0 == .publisherDefined ? nil : response.ecpm }
        observe(index, filled: true, price: networkPrice, seconds: response.latency?.seconds ?? 0)
      case .failed, .timedOut:
        observe(index, filled: false, price: nil, seconds: response.latency?.seconds ?? 0)
      default:
        continue
      }
    }
  }

  /// Learns an impression's paid revenue: it replaces the price its fill added. Revenue the core
  /// estimated from the configured eCPM (``AdapterSignal/RevenuePrecision/publisherDefined``) says nothing.
  mutating func paid(network: NetworkID, placementID: String, revenue: AdapterSignal.ImpressionRevenue) {
    guard let index = index(network, placementID), let unpaid = estimates[index].unpaid.take(),
      revenue.precision != .publisherDefined
    else { return }
    let ecpm = revenue.usd * 1000
    if let provisional = unpaid.price {
      estimates[index].priceSum += unpaid.weight * (ecpm - provisional)
    } else {
      estimates[index].priceSum += unpaid.weight * ecpm
      estimates[index].priceWeight += unpaid.weight
    }
  }

  private func index(_ network: NetworkID, _ placementID: String) -> Int? {
    estimates.firstIndex { $0.network == network && $0.placementID == placementID }
  }

  private mutating func observe(_ index: Int, filled: Bool, price: Double?, seconds: Double) {
    var estimate = estimates[index]
    estimate.attempts = estimate.attempts * Self.decay + 1
    estimate.seconds = estimate.seconds * Self.decay + max(0, seconds)
    estimate.fills = estimate.fills * Self.decay + (filled ? 1 : 0)
    if let price {
      estimate.priceWeight = estimate.priceWeight * Self.decay + 1
      estimate.priceSum = estimate.priceSum * Self.decay + max(0, price)
    }
    if var unpaid = estimate.unpaid, price != nil {
      unpaid.weight *= Self.decay
      estimate.unpaid = unpaid
    }
    if filled { estimate.unpaid = (price, 1) }
    estimate.dueAt = Self.draw(after: loads, &random)
    estimates[index] = estimate
  }

  /// The load a line item last tried at `load` is promoted at, unless it is tried before.
  private static func draw(after load: Int, _ random: inout SeededRandom) -> Int {
    let gap = explorationGap
    return load + gap.lowerBound + Int(random.nextUnit() * Double(gap.count))
  }
}

extension LearnedECPMs {
  /// What the estimates have learned, as plain values (a flight recording's checkpoint).
  struct Snapshot: Codable, Sendable, Equatable {
    struct Estimate: Codable, Sendable, Equatable {
      var attempts: Double
      var fills: Double
      var seconds: Double
      var priceWeight: Double
      var priceSum: Double
      var dueAt: Int
      var unpaidPrice: Double?
      var unpaidWeight: Double?
    }

    var estimates: [Estimate]
    var randomState: UInt64
    var loads: Int
    var promoted: Int
  }

  var snapshot: Snapshot {
    Snapshot(
      estimates: estimates.map {
        Snapshot.Estimate(
          attempts: $0.attempts, fills: $0.fills, seconds: $0.seconds, priceWeight: $0.priceWeight,
          priceSum: $0.priceSum, dueAt: $0.dueAt, unpaidPrice: $0.unpaid?.price,
          unpaidWeight: $0.unpaid?.weight)
      },
      randomState: random.state, loads: loads, promoted: promoted)
  }

  /// Takes what `snapshot` learned, when it is of the same waterfall (as many estimates).
  mutating func restore(_ snapshot: Snapshot) {
    guard snapshot.estimates.count == estimates.count else { return }
    for (index, learned) in snapshot.estimates.enumerated() {
      estimates[index].attempts = learned.attempts
      estimates[index].fills = learned.fills
      estimates[index].seconds = learned.seconds
      estimates[index].priceWeight = learned.priceWeight
      estimates[index].priceSum = learned.priceSum
      estimates[index].dueAt = learned.dueAt
      estimates[index].unpaid = learned.unpaidWeight.map { (learned.unpaidPrice, $0) }
    }
    random = SeededRandom(seed: snapshot.randomState)
    loads = snapshot.loads
    promoted = snapshot.promoted
  }
}
