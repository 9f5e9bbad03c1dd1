/// `waterfall`: every line item, one at a time, in ``WaterfallOrder``; the first fill wins.
struct WaterfallPlanner: LoadPlanner {
  static func plan(for zone: ZoneConfig) -> LoadPlan {
    LoadPlan(bidders: [], waterfallOf: zone.lineItems) { _ in true }
  }

  private var sequence: LoadSequence

  init(plan: LoadPlan, budget: LoadBudget, unavailable: [NetworkID: LoadPlan.Unavailable], now: Duration) {
    sequence = LoadSequence(plan: plan, budget: budget, unavailable: unavailable, now: now)
  }

  var isFinished: Bool { sequence.isFinished }

  mutating func start(now: Duration) -> [LoadAction] {
    sequence.begin(candidates: sequence.plan.waterfall, now: now)
  }

  /// A waterfall asks for no bids.
  mutating func bidAnswered(entry: Int, result: Result<AdapterBid, AdapterError>, now: Duration)
    -> [LoadAction]
  {
    []
  }

  mutating func auctionTimedOut(now: Duration) -> [LoadAction] { [] }

  mutating func loaded(entry: Int, ad: AdapterLoadedAd, now: Duration) -> [LoadAction] {
    sequence.loaded(entry: entry, ad: ad, now: now)
  }

  mutating func failed(entry: Int, error: AdapterError, now: Duration) -> [LoadAction] {
    sequence.failed(entry: entry, error: error, now: now)
  }

  mutating func timedOut(entry: Int, now: Duration) -> [LoadAction] {
    sequence.timedOut(entry: entry, now: now)
  }

  mutating func awaitingStart(entry: Int) { sequence.awaitingStart(entry: entry) }

  mutating func startCompleted(entry: Int) { sequence.awaiting.remove(entry) }

  mutating func notStarted(entry: Int, reason: String, now: Duration) -> [LoadAction] {
    sequence.awaiting.remove(entry)
    return sequence.notStarted(entry: entry, reason: reason, now: now)
  }

  mutating func switchedOff(entry: Int, reason: String, now: Duration) -> [LoadAction] {
    sequence.awaiting.remove(entry)
    return sequence.notStarted(entry: entry, reason: reason, now: now, fate: .disabled)
  }
}
