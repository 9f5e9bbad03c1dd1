/// One zone load, as a pure state machine: which bidders to ask, which line item to load next and
/// with what timeout, and what each answer means.
///
/// - `waterfall`: every line item, one at a time, in ``WaterfallOrder``; first fill wins.
/// - `bidding`: every bidding line item is asked at once; when all have answered or the auction
///   timeout passes, bids are ranked by ``BidRanking`` and loaded best first.
/// - `hybrid`: the bidding round first; then the waterfall's non-bidding items priced at or above
///   the best bid, in waterfall order, then the bids. Items priced below the best bid are skipped.
///
/// Each load gets its line item's timeout, capped by what is left of the zone's budget; the
/// auction round is capped the same way. A network that has not started is never asked: the owner
/// says when a bid or load waits for its network's start (``awaitingStart(entry:)``), which counts
/// against the same timeouts, and when the start refuses it (``notStarted(entry:reason:now:)``);
/// either way an entry that never reached its network ends `not_started`. Answers for an attempt that already ended are stale: a
/// stale ad is handed back to be discarded. When the budget runs out the load fails with
/// `loadTimeout`.
struct Auction {
  enum Action {
    /// Ask entry `entry`'s network for a bid; feed the answer back with `bidAnswered`.
    /// (Actions name entries, not line items: the owner has the plan, and a line item's strings
    /// would be copied into every action.)
    case requestBid(entry: Int)
    /// Start the auction timer; feed `auctionTimedOut` when it fires.
    case startAuctionTimer(Duration)
    /// Cancel the bid requests still open.
    case cancelBids([Int])
    /// Load entry `entry` (with its bid, if any); feed the answer back tagged with `entry`. The
    /// timeout includes any wait for the network's start.
    case load(entry: Int, bid: AdapterBid?, timeout: Duration)
    /// Cancel the network request of `entry` (or its wait for the network's start).
    case cancel(entry: Int)
    /// Release an ad that arrived too late to be used.
    case discard(AdapterLoadedAd, Diagnostic)
    /// The load is over.
    case finish(Outcome)
  }

  enum Outcome {
    case filled(
      entry: Int, ad: AdapterLoadedAd, price: Double, precision: RevenuePrecision,
      responses: [NetworkResponse])
    case failed(MediationError, responses: [NetworkResponse])
  }

  /// A line item's place in the auction: bidders first (config order), then the waterfall.
  struct Entry: Sendable {
    let item: LineItem
    let configIndex: Int
    let isBidder: Bool
    /// The line item's load timeout, converted from its seconds once per zone.
    let timeout: Duration

    init(item: LineItem, configIndex: Int, isBidder: Bool) {
      self.item = item
      self.configIndex = configIndex
      self.isBidder = isBidder
      self.timeout = .seconds(item.timeoutSeconds)
    }
  }

  /// Why a network cannot be asked, and the fate its line items get.
  struct Unavailable: Sendable {
    /// ``NetworkResponse/State/skipped`` (not registered) or ``NetworkResponse/State/notStarted``.
    let fate: NetworkResponse.State
    let reason: String
  }

  /// The zone's entries for its strategy; the same for every load, so computed once per zone.
  static func plan(for zone: ZoneConfig) -> [Entry] {
    let strategy = zone.strategy
    let items = zone.lineItems
    let bidders = strategy == .waterfall ? [] : items.indices.filter { items[$0].bidding }
    let waterfall = WaterfallOrder.sortedIndices(items).filter { index in
      strategy == .waterfall || (strategy == .hybrid && !items[index].bidding)
    }
    return bidders.map { Entry(item: items[$0], configIndex: $0, isBidder: true) }
      + waterfall.map { Entry(item: items[$0], configIndex: $0, isBidder: false) }
  }

  /// The indices of `plan`'s waterfall entries, in order.
  static func waterfallEntries(of plan: [Entry]) -> [Int] {
    plan.indices.filter { !plan[$0].isBidder }
  }

  private enum Phase { case bidding, loading, finished }

  private let strategy: AuctionStrategy
  private let entries: [Entry]
  /// ``waterfallEntries(of:)`` of `entries`.
  private let waterfall: [Int]
  private let unavailable: [NetworkID: Unavailable]
  private let deadline: Duration
  private let startedAt: Duration
  private let auctionTimeout: Duration
  private var responses: [NetworkResponse?]
  private var phase = Phase.loading
  private var pendingBids: [Int: Duration] = [:]
  private var bids: [Int: AdapterBid] = [:]
  /// The entries to load, in order, and how many of them were taken.
  private var candidates: [Int] = []
  private var nextCandidate = 0
  private var current: (entry: Int, startedAt: Duration)?
  /// The bids and the load waiting for their network's start.
  private var awaiting: Set<Int> = []

  /// - Parameters:
  ///   - strategy: The zone's strategy.
  ///   - loadTimeout: The zone's load budget (``ZoneConfig/loadTimeoutSeconds``), converted once
  ///     per zone rather than per load.
  ///   - auctionTimeout: The zone's bidding round limit (``ZoneConfig/auctionTimeoutSeconds``).
  ///   - plan: ``plan(for:)`` of the zone.
  ///   - waterfall: ``waterfallEntries(of:)`` of `plan`, computed once per zone too.
  ///   - unavailable: Networks that cannot be asked, with the reason (not registered, not started).
  ///   - now: The current time.
  init(
    strategy: AuctionStrategy, loadTimeout: Duration, auctionTimeout: Duration, plan: [Entry],
    waterfall: [Int], unavailable: [NetworkID: Unavailable], now: Duration
  ) {
    self.strategy = strategy
    entries = plan
    self.waterfall = waterfall
    self.unavailable = unavailable
    startedAt = now
    deadline = now + loadTimeout
    self.auctionTimeout = auctionTimeout
    // Appended rather than `Array(repeating:count:)`, whose unspecialized allocation looks the
    // array's storage type up in the runtime's metadata cache on every call.
    var responses: [NetworkResponse?] = []
    responses.reserveCapacity(plan.count)
    for _ in plan { responses.append(nil) }
    self.responses = responses
  }

  var isFinished: Bool { phase == .finished }

  mutating func start(now: Duration) -> [Action] {
    var actions: [Action] = []
    for (index, entry) in entries.enumerated() where entry.isBidder {
      if let unavailable = unavailable[entry.item.network] {
        responses[index] = response(index, unavailable.fate, error: unavailable.reason)
      } else {
        pendingBids[index] = now
        actions.append(.requestBid(entry: index))
      }
    }
    if pendingBids.isEmpty {
      return actions.isEmpty ? closeAuction(now: now) : actions + closeAuction(now: now)
    }
    phase = .bidding
    return [.startAuctionTimer(min(auctionTimeout, deadline - now))] + actions
  }

  mutating func bidAnswered(entry: Int, result: Result<AdapterBid, AdapterError>, now: Duration) -> [Action] {
    guard phase == .bidding, let askedAt = pendingBids.removeValue(forKey: entry) else { return [] }
    switch result {
    case .success(let bid):
      bids[entry] = bid
      responses[entry] = response(entry, .bid, latency: now - askedAt, ecpm: bid.price, bid: bid.price)
    case .failure(let error):
      responses[entry] = response(entry, .noBid, latency: now - askedAt, error: "\(error)")
    }
    return pendingBids.isEmpty ? closeAuction(now: now) : []
  }

  mutating func auctionTimedOut(now: Duration) -> [Action] {
    guard phase == .bidding else { return [] }
    let late = pendingBids.keys.sorted()
    for entry in late {
      responses[entry] =
        awaiting.remove(entry) != nil
        ? response(
          entry, .notStarted, latency: now - pendingBids[entry]!,
          error: "adapter start not complete within the auction timeout")
        : response(
          entry, .timedOut, latency: now - pendingBids[entry]!, error: "no bid within the auction timeout")
    }
    pendingBids.removeAll()
    return [.cancelBids(late)] + closeAuction(now: now)
  }

  /// Ranks the bids and lines up the loads.
  private mutating func closeAuction(now: Duration) -> [Action] {
    phase = .loading
    if bids.isEmpty {
      // Nothing to rank, mark below the floor or price the waterfall against: the waterfall
      // items in order (what the general path below gives with no bids, without its arrays).
      candidates = waterfall
      return advance(now: now)
    }
    let ranked = BidRanking.ranked(
      bids.map {
        BidRanking.Entry(
          item: entries[$0.key].item, configIndex: entries[$0.key].configIndex, price: $0.value.price)
      })
    let rankedEntries = ranked.map { rankedBid in
      bids.keys.first { entries[$0].configIndex == rankedBid.configIndex }!
    }
    for (entry, bid) in bids where !rankedEntries.contains(entry) {
      responses[entry] = response(
        entry, .belowFloor, ecpm: bid.price, bid: bid.price,
        error: "bid \(Self.money(bid.price)) below floor \(Self.money(entries[entry].item.bidFloor))")
    }
    let bestBid = ranked.first?.price
    var priced: [Int] = []
    for (index, entry) in entries.enumerated() where !entry.isBidder {
      if let bestBid, entry.item.ecpm < bestBid {
        responses[index] = response(
          index, .skipped, error: "priced below the best bid \(Self.money(bestBid))")
      } else {
        priced.append(index)
      }
    }
    candidates = priced + rankedEntries
    return advance(now: now)
  }

  mutating func loaded(entry: Int, ad: AdapterLoadedAd, now: Duration) -> [Action] {
    guard phase == .loading, let current, current.entry == entry else {
      return [
        .discard(ad, Diagnostic(.lateLoad, "ad from attempt \(entry) arrived after it ended; discarded"))
      ]
    }
    let item = entries[entry].item
    let (price, precision): (Double, RevenuePrecision) =
      if let bid = bids[entry] { (bid.price, .exact) } else if let reported = ad.ecpm {
        (reported, .estimated)
      } else {
        (item.ecpm, .publisherDefined)
      }
    responses[entry] = response(
      entry, .loaded, latency: now - current.startedAt, ecpm: price, bid: bids[entry]?.price)
    self.current = nil
    phase = .finished
    // Bids that were not needed lost to the winner.
    for other in candidates[nextCandidate...] where responses[other]?.state == .bid {
      responses[other]?.state = .outbid
    }
    return [
      .finish(.filled(entry: entry, ad: ad, price: price, precision: precision, responses: finalResponses()))
    ]
  }

  mutating func failed(entry: Int, error: AdapterError, now: Duration) -> [Action] {
    guard phase == .loading, let current, current.entry == entry else { return [] }
    responses[entry] = response(
      entry, .failed, latency: now - current.startedAt, bid: bids[entry]?.price, error: "\(error)")
    self.current = nil
    return advance(now: now)
  }

  mutating func timedOut(entry: Int, now: Duration) -> [Action] {
    guard phase == .loading, let current, current.entry == entry else { return [] }
    if now >= deadline { return budgetEnded(now: now) }
    let latency = now - current.startedAt
    responses[entry] =
      awaiting.remove(entry) != nil
      ? response(
        entry, .notStarted, latency: latency, bid: bids[entry]?.price,
        error: "adapter start not complete within the line item's \(Self.format(latency)) timeout")
      : response(
        entry, .timedOut, latency: latency, bid: bids[entry]?.price,
        error: "no answer within \(Self.format(latency))")
    self.current = nil
    return [.cancel(entry: entry)] + advance(now: now)
  }

  mutating func budgetEnded(now: Duration) -> [Action] {
    guard phase != .finished else { return [] }
    var actions: [Action] = []
    if phase == .bidding {
      let late = pendingBids.keys.sorted()
      for entry in late {
        responses[entry] = budgetResponse(entry, latency: now - pendingBids[entry]!)
      }
      pendingBids.removeAll()
      actions.append(.cancelBids(late))
    }
    if let current {
      responses[current.entry] = budgetResponse(current.entry, latency: now - current.startedAt)
      actions.append(.cancel(entry: current.entry))
      self.current = nil
    }
    return actions
      + fail(
        MediationError(.loadTimeout, "no fill within the zone's \(Self.format(deadline - startedAt)) budget"))
  }

  /// The fate of `entry`'s bid or load still open when the zone's budget ran out.
  private mutating func budgetResponse(_ entry: Int, latency: Duration) -> NetworkResponse {
    awaiting.remove(entry) != nil
      ? response(
        entry, .notStarted, latency: latency, bid: bids[entry]?.price,
        error: "adapter start not complete when the zone load budget ran out")
      : response(
        entry, .timedOut, latency: latency, bid: bids[entry]?.price, error: "zone load budget ran out")
  }

  /// `entry`'s bid or load waits for its network's start (the owner has not sent it).
  mutating func awaitingStart(entry: Int) {
    guard pendingBids[entry] != nil || current?.entry == entry else { return }
    awaiting.insert(entry)
  }

  /// `entry`'s network has started; its bid or load is sent now.
  mutating func startCompleted(entry: Int) {
    awaiting.remove(entry)
  }

  /// `entry`'s network did not start (or never will), for `reason`: its bid or load ends
  /// `not_started` and the auction goes on at once.
  mutating func notStarted(entry: Int, reason: String, now: Duration) -> [Action] {
    awaiting.remove(entry)
    if phase == .bidding, let askedAt = pendingBids.removeValue(forKey: entry) {
      responses[entry] = response(entry, .notStarted, latency: now - askedAt, error: reason)
      return pendingBids.isEmpty ? closeAuction(now: now) : []
    }
    guard phase == .loading, let current, current.entry == entry else { return [] }
    responses[entry] = response(
      entry, .notStarted, latency: now - current.startedAt, bid: bids[entry]?.price, error: reason)
    self.current = nil
    return advance(now: now)
  }

  private mutating func advance(now: Duration) -> [Action] {
    while nextCandidate < candidates.count {
      let entry = candidates[nextCandidate]
      nextCandidate += 1
      let item = entries[entry].item
      let timeout = entries[entry].timeout
      if let unavailable = unavailable[item.network] {
        responses[entry] = response(entry, unavailable.fate, error: unavailable.reason)
        continue
      }
      let remaining = deadline - now
      if remaining <= .zero { return budgetEnded(now: now) }
      current = (entry, now)
      return [
        .load(
          entry: entry, bid: bids[entry], timeout: min(timeout, remaining))
      ]
    }
    let tried = responses.compactMap { $0 }.filter {
      ![.skipped, .notStarted, .noBid, .belowFloor].contains($0.state)
    }
    .count
    return fail(MediationError(.noFill, "no fill from \(tried) of \(entries.count) line items"))
  }

  private mutating func fail(_ error: MediationError) -> [Action] {
    phase = .finished
    return [.finish(.failed(error, responses: finalResponses()))]
  }

  /// Bidders first, best bid first; then the waterfall items in waterfall order.
  private func finalResponses() -> [NetworkResponse] {
    var bidderOrder = entries.indices.filter { entries[$0].isBidder }
    if bidderOrder.count > 1 {
      // The comparator captures only what it reads, not a copy of the whole auction.
      let entries = self.entries
      let bids = self.bids
      bidderOrder.sort { lhs, rhs in
        let left = bids[lhs]?.price ?? -1
        let right = bids[rhs]?.price ?? -1
        if left != right { return left > right }
        if entries[lhs].item.priority != entries[rhs].item.priority {
          return entries[lhs].item.priority < entries[rhs].item.priority
        }
        return entries[lhs].configIndex < entries[rhs].configIndex
      }
    }
    var result: [NetworkResponse] = []
    result.reserveCapacity(entries.count)
    for index in bidderOrder { result.append(responses[index] ?? response(index, .notAttempted)) }
    for index in entries.indices where !entries[index].isBidder {
      result.append(responses[index] ?? response(index, .notAttempted))
    }
    return result
  }

  private func response(
    _ entry: Int, _ state: NetworkResponse.State, latency: Duration? = nil, ecpm: Double? = nil,
    bid: Double? = nil,
    error: String? = nil
  ) -> NetworkResponse {
    let item = entries[entry].item
    return NetworkResponse(
      network: item.network, placementID: item.placementId, priority: item.priority, ecpm: ecpm ?? item.ecpm,
      state: state, latency: latency, bid: bid, error: error)
  }

  static func format(_ duration: Duration) -> String {
    let ms = duration.milliseconds
    return ms % 1000 == 0 ? "\(ms / 1000) s" : "\(ms) ms"
  }

  static func money(_ value: Double) -> String {
    let cents = (value * 100).rounded()
    return "$\(Int(cents) / 100).\(String(Int(cents) % 100).leftPadded(2))"
  }
}

extension String {
  fileprivate func leftPadded(_ width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
