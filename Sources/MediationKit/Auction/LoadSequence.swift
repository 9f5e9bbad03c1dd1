/// The loading half every planner shares: the line items to load, one at a time in the order the
/// planner chose, each within its timeout and the zone's budget, and every entry's response.
struct LoadSequence: Sendable {
  let plan: LoadPlan
  private let unavailable: [NetworkID: LoadPlan.Unavailable]
  private let deadline: Duration
  private let startedAt: Duration
  /// Each entry's response so far, by plan index.
  var responses: [AdInfo.NetworkResponse?]
  /// The bids of the round before, by entry; they price the loads they win.
  var bids: [Int: AdapterBid] = [:]
  /// The entries (bids or the load) waiting for their network's start.
  private var awaiting: Set<Int> = []
  private(set) var isFinished = false
  /// The entries to load, in order, and how many of them were taken.
  private var candidates: [Int] = []
  private var nextCandidate = 0
  private var current: (entry: Int, startedAt: Duration)?

  init(plan: LoadPlan, budget: LoadBudget, unavailable: [NetworkID: LoadPlan.Unavailable], now: Duration) {
    self.plan = plan
    self.unavailable = unavailable
    startedAt = now
    deadline = now + budget.loadTimeout
    responses = Array(repeating: nil, count: plan.entries.count)
  }

  /// Records that `entry` (a bid or the load) waits for its network's start.
  mutating func startAwaiting(_ entry: Int) { awaiting.insert(entry) }

  /// Ends `entry`'s wait for its network's start; whether it was waiting.
  @discardableResult
  mutating func stopAwaiting(_ entry: Int) -> Bool {
    awaiting.remove(entry) != nil
  }

  /// What is left of the zone's budget at `now`.
  func remaining(at now: Duration) -> Duration { deadline - now }

  /// Why `entry` cannot be asked, if it cannot: switched off by the configuration, or its network
  /// unavailable.
  func unavailability(of entry: Int) -> LoadPlan.Unavailable? {
    plan.entries[entry].switchedOff ?? unavailable[plan.entries[entry].item.network]
  }

  /// Starts loading `candidates` in order.
  mutating func begin(candidates: [Int], now: Duration) -> [LoadAction] {
    self.candidates = candidates
    return advance(now: now)
  }

  mutating func loaded(entry: Int, ad: AdapterLoadedAd, now: Duration) -> [LoadAction] {
    guard !isFinished, let current, current.entry == entry else {
      return [
        .discard(
          ad,
          RewardedAdEvent.Diagnostic(.lateLoad, "ad from attempt \(entry) arrived after it ended; discarded"))
      ]
    }
    let item = plan.entries[entry].item
    let (price, precision): (Double, AdapterSignal.RevenuePrecision) =
      if let bid = bids[entry] { (bid.price, .exact) } else if let reported = ad.ecpm {
        (reported, .estimated)
      } else {
        (item.ecpm, .publisherDefined)
      }
    responses[entry] = response(
      entry, .loaded, latency: now - current.startedAt, ecpm: price, bid: bids[entry]?.price)
    self.current = nil
    isFinished = true
    // Bids that were not needed lost to the winner.
    for other in candidates[nextCandidate...] where responses[other]?.state == .bid {
      responses[other]?.state = .outbid
    }
    return [
      .finish(.filled(entry: entry, ad: ad, price: price, precision: precision, responses: finalResponses()))
    ]
  }

  mutating func failed(entry: Int, error: AdapterError, now: Duration) -> [LoadAction] {
    guard !isFinished, let current, current.entry == entry else { return [] }
    responses[entry] = response(
      entry, .failed, latency: now - current.startedAt, bid: bids[entry]?.price, error: "\(error)")
    self.current = nil
    return advance(now: now)
  }

  mutating func timedOut(entry: Int, now: Duration) -> [LoadAction] {
    guard !isFinished, let current, current.entry == entry else { return [] }
    if now >= deadline { return budgetEnded(now: now) }
    let latency = now - current.startedAt
    responses[entry] =
      stopAwaiting(entry)
      ? response(
        entry, .notStarted, latency: latency, bid: bids[entry]?.price,
        error: "adapter start not complete within the line item's \(MessageFormat.duration(latency)) timeout")
      : response(
        entry, .timedOut, latency: latency, bid: bids[entry]?.price,
        error: "no answer within \(MessageFormat.duration(latency))")
    self.current = nil
    return [.cancel(entry: entry)] + advance(now: now)
  }

  /// Records `entry`'s wait for its network's start, if `entry` is the load under way.
  mutating func awaitingStart(entry: Int) {
    if current?.entry == entry { startAwaiting(entry) }
  }

  /// The load of `entry` ends `not_started` for `reason`, if it is the load under way.
  mutating func notStarted(
    entry: Int, reason: String, now: Duration, fate: AdInfo.NetworkResponse.State = .notStarted
  ) -> [LoadAction] {
    guard !isFinished, let current, current.entry == entry else { return [] }
    responses[entry] = response(
      entry, fate, latency: now - current.startedAt, bid: bids[entry]?.price, error: reason)
    self.current = nil
    return advance(now: now)
  }

  private mutating func budgetEnded(now: Duration) -> [LoadAction] {
    var actions: [LoadAction] = []
    if let current {
      responses[current.entry] =
        stopAwaiting(current.entry)
        ? response(
          current.entry, .notStarted, latency: now - current.startedAt, bid: bids[current.entry]?.price,
          error: "adapter start not complete when the zone load budget ran out")
        : response(
          current.entry, .timedOut, latency: now - current.startedAt, bid: bids[current.entry]?.price,
          error: "zone load budget ran out")
      actions.append(.cancel(entry: current.entry))
      self.current = nil
    }
    return actions
      + fail(
        MediationError(
          .loadTimeout, "no fill within the zone's \(MessageFormat.duration(deadline - startedAt)) budget"))
  }

  private mutating func advance(now: Duration) -> [LoadAction] {
    while nextCandidate < candidates.count {
      let entry = candidates[nextCandidate]
      nextCandidate += 1
      if let unavailable = unavailability(of: entry) {
        responses[entry] = response(entry, unavailable.fate, error: unavailable.reason)
        continue
      }
      let remaining = deadline - now
      if remaining <= .zero { return budgetEnded(now: now) }
      current = (entry, now)
      return [.load(entry: entry, bid: bids[entry], timeout: min(plan.entries[entry].timeout, remaining))]
    }
    let tried = responses.compactMap { $0 }.filter {
      ![.skipped, .notStarted, .noBid, .belowFloor].contains($0.state)
    }
    .count
    return fail(MediationError(.noFill, "no fill from \(tried) of \(plan.entries.count) line items"))
  }

  private mutating func fail(_ error: MediationError) -> [LoadAction] {
    isFinished = true
    return [.finish(.failed(error, responses: finalResponses()))]
  }

  /// Bidders first, best bid first (ties to the lower `priority` number, then config order);
  /// then the waterfall items in waterfall order.
  private func finalResponses() -> [AdInfo.NetworkResponse] {
    let entries = plan.entries
    var bidderOrder: [Int] = []
    if entries.contains(where: \.isBidder) {
      // Sized once: `filter` grows its result one append at a time.
      bidderOrder.reserveCapacity(entries.count)
      for index in entries.indices where entries[index].isBidder { bidderOrder.append(index) }
    }
    if bidderOrder.count > 1 {
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
    var result: [AdInfo.NetworkResponse] = []
    result.reserveCapacity(entries.count)
    for index in bidderOrder { result.append(responses[index] ?? response(index, .notAttempted)) }
    for index in plan.waterfall { result.append(responses[index] ?? response(index, .notAttempted)) }
    return result
  }

  /// `entry`'s response in `state`; the price defaults to the line item's.
  func response(
    _ entry: Int, _ state: AdInfo.NetworkResponse.State, latency: Duration? = nil, ecpm: Double? = nil,
    bid: Double? = nil, error: String? = nil
  ) -> AdInfo.NetworkResponse {
    let item = plan.entries[entry].item
    return AdInfo.NetworkResponse(
      of: item.network, placementID: item.placementId, priority: item.priority, ecpm: ecpm ?? item.ecpm,
      state: state, latency: latency, bid: bid, error: error)
  }
}
