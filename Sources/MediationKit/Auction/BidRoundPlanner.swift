/// A planner that opens with a bidding round: every bidding line item is asked at once; when all
/// have answered or the round's timeout passes, the bids at or above their floors are ranked by
/// ``BidRanking`` and the planner's ``loadOrder(ranked:)`` lines up the loads.
protocol BidRoundPlanner: LoadPlanner {
  var round: BidRound { get set }
  var sequence: LoadSequence { get set }
  /// The entries to load once the round has closed with at least one bid at or above its floor,
  /// `ranked` best first; may record the fate of entries it leaves out in `sequence`.
  mutating func loadOrder(ranked: [Int]) -> [Int]
}

/// The bidding round's open requests.
struct BidRound: Sendable {
  /// The round's limit (``LoadBudget/auctionTimeout``).
  let timeout: Duration
  /// The bids still open and when each was asked for, in entry order.
  /// Performance: a short array rather than a dictionary (no hashing; a round has few bidders).
  private(set) var pending: [(entry: Int, askedAt: Duration)] = []
  var isOpen = false

  init(timeout: Duration) { self.timeout = timeout }

  /// Makes room for `count` requests at once (appending them one by one reallocates).
  mutating func reserve(_ count: Int) { pending.reserveCapacity(count) }

  /// Opens a request for `entry`'s bid, asked at `now`.
  mutating func ask(_ entry: Int, at now: Duration) { pending.append((entry, now)) }

  /// Whether `entry`'s bid is still open.
  func isPending(_ entry: Int) -> Bool { pending.contains { $0.entry == entry } }

  /// Closes the request for `entry`'s bid; when it was asked for, or `nil` if it was not open.
  mutating func answer(_ entry: Int) -> Duration? {
    guard let index = pending.firstIndex(where: { $0.entry == entry }) else { return nil }
    return pending.remove(at: index).askedAt
  }

  /// Closes every request still open; they are returned in entry order.
  mutating func closeAll() -> [(entry: Int, askedAt: Duration)] {
    defer { pending.removeAll() }
    return pending
  }
}

extension BidRoundPlanner {
  var isFinished: Bool { sequence.isFinished }

  mutating func start(now: Duration) -> [LoadAction] {
    // Performance: one array, sized once, the timer first (not the timer's array `+` the bids').
    var actions: [LoadAction] = []
    actions.reserveCapacity(sequence.plan.entries.count + 1)
    actions.append(.startAuctionTimer(min(round.timeout, sequence.remaining(at: now))))
    round.reserve(sequence.plan.entries.count)
    for (index, entry) in sequence.plan.entries.enumerated() where entry.isBidder {
      if let unavailable = sequence.unavailability(of: index) {
        sequence.responses[index] = sequence.response(index, unavailable.fate, error: unavailable.reason)
      } else {
        round.ask(index, at: now)
        actions.append(.requestBid(entry: index))
      }
    }
    if round.pending.isEmpty { return closeRound(now: now) }
    round.isOpen = true
    return actions
  }

  mutating func bidAnswered(entry: Int, result: Result<AdapterBid, AdapterError>, now: Duration)
    -> [LoadAction]
  {
    guard round.isOpen, let askedAt = round.answer(entry) else { return [] }
    switch result {
    case .success(let bid):
      sequence.bids[entry] = bid
      sequence.responses[entry] = sequence.response(
        entry, .bid, latency: now - askedAt, ecpm: bid.price, bid: bid.price)
    case .failure(let error):
      sequence.responses[entry] = sequence.response(entry, .noBid, latency: now - askedAt, error: "\(error)")
    }
    return round.pending.isEmpty ? closeRound(now: now) : []
  }

  mutating func auctionTimedOut(now: Duration) -> [LoadAction] {
    guard round.isOpen else { return [] }
    let late = round.closeAll()
    for (entry, askedAt) in late {
      let latency = now - askedAt
      sequence.responses[entry] =
        sequence.stopAwaiting(entry)
        ? sequence.response(
          entry, .notStarted, latency: latency, error: "adapter start not complete within the auction timeout"
        )
        : sequence.response(entry, .timedOut, latency: latency, error: "no bid within the auction timeout")
    }
    return [.cancelBids(late.map(\.entry))] + closeRound(now: now)
  }

  mutating func loaded(entry: Int, ad: AdapterLoadedAd, now: Duration) -> [LoadAction] {
    sequence.loaded(entry: entry, ad: ad, now: now)
  }

  mutating func failed(entry: Int, error: AdapterError, now: Duration) -> [LoadAction] {
    sequence.failed(entry: entry, error: error, now: now)
  }

  mutating func timedOut(entry: Int, now: Duration) -> [LoadAction] {
    sequence.timedOut(entry: entry, now: now)
  }

  mutating func awaitingStart(entry: Int) {
    if round.isOpen, round.isPending(entry) {
      sequence.startAwaiting(entry)
    } else {
      sequence.awaitingStart(entry: entry)
    }
  }

  mutating func startCompleted(entry: Int) { sequence.stopAwaiting(entry) }

  mutating func notStarted(entry: Int, reason: String, now: Duration) -> [LoadAction] {
    ended(entry: entry, fate: .notStarted, reason: reason, now: now)
  }

  mutating func switchedOff(entry: Int, reason: String, now: Duration) -> [LoadAction] {
    ended(entry: entry, fate: .disabled, reason: reason, now: now)
  }

  /// `entry`'s bid or load ended without an answer, with `fate`.
  private mutating func ended(entry: Int, fate: AdInfo.NetworkResponse.State, reason: String, now: Duration)
    -> [LoadAction]
  {
    sequence.stopAwaiting(entry)
    if round.isOpen, let askedAt = round.answer(entry) {
      sequence.responses[entry] = sequence.response(entry, fate, latency: now - askedAt, error: reason)
      return round.pending.isEmpty ? closeRound(now: now) : []
    }
    return sequence.notStarted(entry: entry, reason: reason, now: now, fate: fate)
  }

  /// Ranks the bids and lines up the loads: with no bid, the waterfall in order.
  private mutating func closeRound(now: Duration) -> [LoadAction] {
    round.isOpen = false
    let bids = sequence.bids
    let bidders = bids.keys.sorted()
    if bidders.isEmpty { return sequence.begin(candidates: sequence.plan.waterfall, now: now) }
    let entries = sequence.plan.entries
    // `BidRanking.ranked`'s order on the entries themselves.
    let ranked = bidders.compactMap { entry -> (entry: Int, price: Double)? in
      guard let price = bids[entry]?.price, price >= entries[entry].item.bidFloor else { return nil }
      return (entry, price)
    }
    .sorted { lhs, rhs in
      BidRanking.ranksBefore(
        (lhs.price, entries[lhs.entry].item.priority, entries[lhs.entry].configIndex),
        (rhs.price, entries[rhs.entry].item.priority, entries[rhs.entry].configIndex))
    }
    let rankedEntries = ranked.map(\.entry)
    for entry in bidders where !rankedEntries.contains(entry) {
      guard let bid = bids[entry] else { continue }
      sequence.responses[entry] = sequence.response(
        entry, .belowFloor, ecpm: bid.price, bid: bid.price,
        error:
          "bid \(MessageFormat.usd(bid.price)) below floor \(MessageFormat.usd(entries[entry].item.bidFloor))"
      )
    }
    return sequence.begin(candidates: loadOrder(ranked: rankedEntries), now: now)
  }
}

/// `bidding`: the bidding round alone; the bids at or above their floors are loaded best first.
struct BiddingPlanner: BidRoundPlanner {
  static func plan(for zone: ZoneConfig) -> LoadPlan {
    let items = zone.lineItems
    return LoadPlan(bidders: items.indices.filter { items[$0].bidding }, waterfallOf: items) { _ in false }
  }

  var round: BidRound
  var sequence: LoadSequence

  init(plan: LoadPlan, budget: LoadBudget, unavailable: [NetworkID: LoadPlan.Unavailable], now: Duration) {
    round = BidRound(timeout: budget.auctionTimeout)
    sequence = LoadSequence(plan: plan, budget: budget, unavailable: unavailable, now: now)
  }

  func loadOrder(ranked: [Int]) -> [Int] { ranked }
}

/// `hybrid`: the bidding round first; then the waterfall's non-bidding items priced at or above
/// the best bid, in waterfall order, then the bids best first. Items priced below the best bid
/// are skipped (priced at their learned eCPMs when the zone learns them).
struct HybridPlanner: BidRoundPlanner {
  static func plan(for zone: ZoneConfig) -> LoadPlan {
    let items = zone.lineItems
    return LoadPlan(bidders: items.indices.filter { items[$0].bidding }, waterfallOf: items) { !$0.bidding }
  }

  var round: BidRound
  var sequence: LoadSequence

  init(plan: LoadPlan, budget: LoadBudget, unavailable: [NetworkID: LoadPlan.Unavailable], now: Duration) {
    round = BidRound(timeout: budget.auctionTimeout)
    sequence = LoadSequence(plan: plan, budget: budget, unavailable: unavailable, now: now)
  }

  mutating func loadOrder(ranked: [Int]) -> [Int] {
    let bestBid = ranked.first.flatMap { sequence.bids[$0]?.price }
    var order: [Int] = []
    order.reserveCapacity(sequence.plan.waterfall.count + ranked.count)
    // Written once per auction and shared by every item it skips.
    var skipReason: String?
    for index in sequence.plan.waterfall {
      if let bestBid, sequence.plan.price(of: index) < bestBid {
        if skipReason == nil { skipReason = "priced below the best bid \(MessageFormat.usd(bestBid))" }
        sequence.responses[index] = sequence.response(index, .skipped, error: skipReason)
      } else {
        order.append(index)
      }
    }
    order.append(contentsOf: ranked)
    return order
  }
}
