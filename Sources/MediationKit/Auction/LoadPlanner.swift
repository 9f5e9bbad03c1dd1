/// What a zone asks of one load: which bidders to ask, which line item to load next and with
/// what timeout, and what each answer means. A pure value that returns actions; the zone
/// performs them and feeds the answers back.
///
/// Every planner keeps these promises:
/// - Each load gets its line item's timeout, capped by what is left of the zone's budget; a
///   bidding round is capped the same way. When the budget runs out the load fails with
///   `loadTimeout`.
/// - A network that has not started is never asked: the zone says when a bid or load waits for
///   its network's start (``awaitingStart(entry:)``), which counts against the same timeouts, and
///   when the start refuses it (``notStarted(entry:reason:now:)``); either way an entry that never
///   reached its network ends `not_started`.
/// - Answers for an attempt that already ended are stale: a stale ad is handed back to be
///   discarded.
///
/// A new strategy is one new conforming type and one line in ``LoadPlanners/planner(for:)``.
protocol LoadPlanner: Sendable {
  /// The zone's entries for this strategy, in the order ``LoadPlan`` describes; the same for
  /// every load, so made once per zone.
  static func plan(for zone: ZoneConfig) -> LoadPlan

  init(plan: LoadPlan, budget: LoadBudget, unavailable: [NetworkID: LoadPlan.Unavailable], now: Duration)

  /// Whether the load has ended (its `finish` action was returned).
  var isFinished: Bool { get }

  mutating func start(now: Duration) -> [LoadAction]
  mutating func bidAnswered(entry: Int, result: Result<AdapterBid, AdapterError>, now: Duration)
    -> [LoadAction]
  /// The bidding round's timer (``LoadAction/startAuctionTimer(_:)``) fired.
  mutating func auctionTimedOut(now: Duration) -> [LoadAction]
  mutating func loaded(entry: Int, ad: AdapterLoadedAd, now: Duration) -> [LoadAction]
  mutating func failed(entry: Int, error: AdapterError, now: Duration) -> [LoadAction]
  /// The timeout of `entry`'s load (``LoadAction/load(entry:bid:timeout:)``) passed.
  mutating func timedOut(entry: Int, now: Duration) -> [LoadAction]
  /// `entry`'s bid or load waits for its network's start (the zone has not sent it).
  mutating func awaitingStart(entry: Int)
  /// `entry`'s network has started; its bid or load is sent now.
  mutating func startCompleted(entry: Int)
  /// `entry`'s network did not start (or never will), for `reason`: its bid or load ends
  /// `not_started` and the load goes on at once.
  mutating func notStarted(entry: Int, reason: String, now: Duration) -> [LoadAction]
  /// `entry`'s network was switched off or unregistered while its bid or load was out (the zone
  /// has cancelled it): it ends ``AdInfo/NetworkResponse/State/disabled`` for `reason` and the load goes
  /// on at once.
  mutating func switchedOff(entry: Int, reason: String, now: Duration) -> [LoadAction]
}

/// Chooses a zone's planner.
enum LoadPlanners {
  static func planner(for zone: ZoneConfig) -> any LoadPlanner.Type {
    switch zone.strategy {
    case .waterfall: WaterfallPlanner.self
    case .bidding: BiddingPlanner.self
    case .hybrid: HybridPlanner.self
    }
  }
}

/// What a planner asks the zone to do.
enum LoadAction {
  /// Ask entry `entry`'s network for a bid; feed the answer back with `bidAnswered`.
  /// (Actions name entries, not line items: the zone has the plan.)
  case requestBid(entry: Int)
  /// Start the bidding round's timer; feed `auctionTimedOut` when it fires.
  case startAuctionTimer(Duration)
  /// Cancel the bid requests still open.
  case cancelBids([Int])
  /// Load entry `entry` (with its bid, if any); feed the answer back tagged with `entry`. The
  /// timeout includes any wait for the network's start.
  case load(entry: Int, bid: AdapterBid?, timeout: Duration)
  /// Cancel the network request of `entry` (or its wait for the network's start).
  case cancel(entry: Int)
  /// Release an ad that arrived too late to be used.
  case discard(AdapterLoadedAd, RewardedAdEvent.Diagnostic)
  /// The load is over.
  case finish(LoadOutcome)
}

enum LoadOutcome {
  case filled(
    entry: Int, ad: AdapterLoadedAd, price: Double, precision: AdapterSignal.RevenuePrecision,
    responses: [AdInfo.NetworkResponse])
  case failed(MediationError, responses: [AdInfo.NetworkResponse])
}

/// The zone's limits for one load, converted from its configured seconds once per zone.
struct LoadBudget: Sendable {
  /// ``ZoneConfig/loadTimeoutSeconds``: the whole load's budget.
  let loadTimeout: Duration
  /// ``ZoneConfig/auctionTimeoutSeconds``: the bidding round's limit.
  let auctionTimeout: Duration
}

/// A zone's line items as a planner orders them: bidders first (config order), then the
/// waterfall items in ``WaterfallOrder``.
struct LoadPlan: Sendable {
  /// A line item's place in the plan.
  struct Entry: Sendable {
    let item: ZoneConfig.LineItem
    let configIndex: Int
    let isBidder: Bool
    /// The line item's load timeout, converted from its seconds once per zone.
    let timeout: Duration
    /// Set when the configuration's kill switch turned the line item off (its network in
    /// ``MediationConfig/disabledNetworks``, or ``ZoneConfig/LineItem/disabled``): never asked, it ends
    /// ``AdInfo/NetworkResponse/State/disabled`` with the reason.
    var switchedOff: Unavailable?

    init(item: ZoneConfig.LineItem, configIndex: Int, isBidder: Bool) {
      self.item = item
      self.configIndex = configIndex
      self.isBidder = isBidder
      self.timeout = .seconds(item.timeoutSeconds)
    }
  }

  /// Why a network cannot be asked, and the fate its line items get.
  struct Unavailable: Sendable {
    /// ``AdInfo/NetworkResponse/State/skipped`` (not registered), ``AdInfo/NetworkResponse/State/notStarted``
    /// or ``AdInfo/NetworkResponse/State/disabled``.
    let fate: AdInfo.NetworkResponse.State
    let reason: String
  }

  private(set) var entries: [Entry]
  /// The indices of the waterfall entries, in order.
  private(set) var waterfall: [Int]
  /// The waterfall entries' learned prices for this load, by entry (``LearnedECPMs``); `nil`: the
  /// configured eCPMs.
  private(set) var learnedPrices: [Double]?

  /// The plan of `items`' bidders (config order) followed by the waterfall items the filter keeps.
  init(bidders: [Int], waterfallOf items: [ZoneConfig.LineItem], where keep: (ZoneConfig.LineItem) -> Bool) {
    let waterfallItems = WaterfallOrder.sortedIndices(items).filter { keep(items[$0]) }
    entries =
      bidders.map { Entry(item: items[$0], configIndex: $0, isBidder: true) }
      + waterfallItems.map { Entry(item: items[$0], configIndex: $0, isBidder: false) }
    waterfall = Array(bidders.count..<entries.count)
  }

  /// This plan with each entry `reason` names a reason for marked switched off (its fate
  /// `fate`: `disabled` for the configuration's kill switch, `skipped` for a load's own reasons).
  func switchingOff(
    as fate: AdInfo.NetworkResponse.State = .disabled, _ reason: (ZoneConfig.LineItem) -> String?
  ) -> LoadPlan {
    var plan = self
    for index in plan.entries.indices where plan.entries[index].switchedOff == nil {
      if let why = reason(plan.entries[index].item) {
        plan.entries[index].switchedOff = Unavailable(fate: fate, reason: why)
      }
    }
    return plan
  }

  /// This plan with its waterfall entries tried in `order` (a permutation of ``waterfall``) and
  /// priced at `prices` (by entry), for one load of a zone with learned eCPMs.
  func learned(order: [Int], prices: [Double]) -> LoadPlan {
    var plan = self
    plan.waterfall = order
    plan.learnedPrices = prices
    return plan
  }

  /// What `entry` is expected to pay when it fills: its learned price, else its configured eCPM.
  func price(of entry: Int) -> Double { learnedPrices?[entry] ?? entries[entry].item.ecpm }
}
