import Foundation
import MediationKitTesting
import Testing

@testable import MediationKit

/// Learned eCPMs (`"autoECPM": true`): the estimator as a pure value over a seeded simulated
/// market, then a zone learning from scripted networks.
@Suite("Learned eCPMs")
struct LearnedECPMsTests {
  /// What a line item's network really does: fills with `fillRate` at `price` (± 20% noise).
  struct Truth {
    var fillRate: Double
    var price: Double
  }

  /// Three line items whose configured eCPMs (10, 8, 2) order them exactly wrong.
  static let wrongZone = zone([item("a", "a1", ecpm: 10), item("b", "b1", ecpm: 8), item("c", "c1", ecpm: 2)])
  static let plan = WaterfallPlanner.plan(for: wrongZone)

  /// The market of ``wrongZone``'s line items: each fills 80% of loads, at these prices.
  static func market(_ a: Double, _ b: Double, _ c: Double) -> [String: Truth] {
    [
      "a1": Truth(fillRate: 0.8, price: a), "b1": Truth(fillRate: 0.8, price: b),
      "c1": Truth(fillRate: 0.8, price: c),
    ]
  }

  static func learner(seed: UInt64 = 1) -> LearnedECPMs {
    LearnedECPMs(plan: plan, random: SeededRandom(seed: seed))
  }

  /// The placements of `order` (plan entries).
  static func placements(_ order: [Int], _ plan: LoadPlan = plan) -> [String] {
    order.map { plan.entries[$0].item.placementId }
  }

  /// One load in the simulated market: tries `learned`'s order until a fill, records the
  /// responses and pays the winner's revenue; returns the order and the tried placements.
  @discardableResult
  static func load(
    _ learned: inout LearnedECPMs, truth: [String: Truth], random: inout SeededRandom, plan: LoadPlan = plan
  ) -> (order: [String], tried: [String]) {
    let order = learned.nextOrder()
    var responses: [AdInfo.NetworkResponse] = []
    var tried: [String] = []
    var winner: (NetworkID, String, Double)?
    for entry in order {
      let item = plan.entries[entry].item
      func response(_ state: AdInfo.NetworkResponse.State, ecpm: Double? = nil) -> AdInfo.NetworkResponse {
        AdInfo.NetworkResponse(
          of: item.network, placementID: item.placementId, priority: item.priority,
          ecpm: ecpm ?? item.ecpm, state: state, latency: state == .notAttempted ? nil : .milliseconds(500))
      }
      guard winner == nil else {
        responses.append(response(.notAttempted))
        continue
      }
      tried.append(item.placementId)
      let market = truth[item.placementId]!
      if random.chance(market.fillRate) {
        let price = market.price * (0.8 + 0.4 * random.nextUnit())
        responses.append(response(.loaded, ecpm: price))
        winner = (item.network, item.placementId, price)
      } else {
        responses.append(response(.failed))
      }
    }
    learned.record(responses, fillPrecision: winner == nil ? nil : .estimated)
    if let (network, placement, price) = winner {
      learned.paid(
        network: network, placementID: placement,
        revenue: AdapterSignal.ImpressionRevenue(usd: price / 1000, precision: .exact))
    }
    return (placements(order, plan), tried)
  }

  @Test func beforeAnyLoadTheOrderIsByConfiguredECPMThenPriorityThenConfigOrder() {
    let zone = zone([
      item("a", "a1", priority: 1, ecpm: 5), item("b", "b1", priority: 2, ecpm: 20),
      item("c", "c1", priority: 0, ecpm: 5), item("d", "d1", priority: 1, ecpm: 5),
    ])
    let plan = WaterfallPlanner.plan(for: zone)
    var learned = LearnedECPMs(plan: plan, random: SeededRandom(seed: 3))
    #expect(Self.placements(learned.ranking, plan) == ["b1", "c1", "a1", "d1"])
    #expect(Self.placements(learned.nextOrder(), plan) == ["b1", "c1", "a1", "d1"])
  }

  @Test func convergesToTheTrueOrderWhenTheConfiguredECPMsAreWrong() {
    // Configured 10, 8, 2; they really pay 3, 6 and 12.
    let truth = Self.market(3, 6, 12)
    var learned = Self.learner()
    var random = SeededRandom(seed: 42)
    #expect(Self.placements(learned.ranking) == ["a1", "b1", "c1"])
    var orders: [[String]] = []
    for _ in 0..<1_500 { orders.append(Self.load(&learned, truth: truth, random: &random).order) }
    #expect(Self.placements(learned.ranking) == ["c1", "b1", "a1"])
    // Promotions aside, every later load tries the true order.
    let late = orders.suffix(500)
    let trueOrder = late.filter { $0 == ["c1", "b1", "a1"] }.count
    #expect(trueOrder >= 490, "\(trueOrder) of 500 late loads in the true order")
    // It got there early: loads 150 to 200 already try the true order, promotions aside.
    #expect(orders[150..<200].filter { $0 == ["c1", "b1", "a1"] }.count >= 45)
  }

  @Test func rePricesALineItemWhosePriceChangesMidRun() {
    var truth = Self.market(10, 8, 2)
    var learned = Self.learner()
    var random = SeededRandom(seed: 7)
    for _ in 0..<1_000 { Self.load(&learned, truth: truth, random: &random) }
    #expect(Self.placements(learned.ranking) == ["a1", "b1", "c1"])
    // The top line item's price collapses; the bottom one's (rarely reached) soars.
    truth["a1"]?.price = 1
    truth["c1"]?.price = 20
    for _ in 0..<1_500 { Self.load(&learned, truth: truth, random: &random) }
    #expect(Self.placements(learned.ranking) == ["c1", "b1", "a1"])
    let prices = learned.prices(in: Self.plan)
    // Now at the bottom, a1 is re-observed only now and then: its price is on its way down.
    #expect(prices[0] < 3, "a1 learned at \(prices[0])")
    #expect(abs(prices[2] - 20) < 3, "c1 learned at \(prices[2])")
  }

  @Test func aLineItemThatNeverWinsIsStillTriedBoundedly() {
    // "cheap" always fills but pays less than "dear", which always fills: only exploration
    // reaches it.
    let zone = zone([item("d", "dear", ecpm: 10), item("c", "cheap", ecpm: 5)])
    let plan = WaterfallPlanner.plan(for: zone)
    var learned = LearnedECPMs(plan: plan, random: SeededRandom(seed: 11))
    var random = SeededRandom(seed: 12)
    let truth = ["dear": Truth(fillRate: 1, price: 10), "cheap": Truth(fillRate: 1, price: 5)]
    var triedAt: [Int] = []
    let loads = 5_000
    for index in 0..<loads {
      let tried = Self.load(&learned, truth: truth, random: &random, plan: plan).tried
      if tried.contains("cheap") { triedAt.append(index) }
    }
    let gaps = zip(triedAt.dropFirst(), triedAt).map { $0 - $1 }
    let upper = LearnedECPMs.explorationGap.upperBound
    let lower = LearnedECPMs.explorationGap.lowerBound
    #expect((triedAt.first ?? loads) < upper)
    #expect(gaps.allSatisfy { $0 >= lower && $0 <= upper }, "gaps \(gaps.min() ?? 0)…\(gaps.max() ?? 0)")
    // At most ε = 1 / 50 of the loads, at least one in 100.
    #expect(triedAt.count <= loads / lower && triedAt.count >= loads / upper, "\(triedAt.count) of \(loads)")
  }

  @Test func aLineItemThatStopsFillingSinksAndIsThenTriedBoundedly() {
    // Configured far above the rest, it never fills.
    let zone = zone([item("d", "dead", ecpm: 50), item("l", "live", ecpm: 5)])
    let plan = WaterfallPlanner.plan(for: zone)
    var learned = LearnedECPMs(plan: plan, random: SeededRandom(seed: 5))
    var random = SeededRandom(seed: 6)
    let truth = ["dead": Truth(fillRate: 0, price: 50), "live": Truth(fillRate: 1, price: 5)]
    var tried = 0
    for index in 0..<3_000 {
      let load = Self.load(&learned, truth: truth, random: &random, plan: plan)
      if index == 0 { #expect(load.order == ["dead", "live"]) }
      if index >= 60, load.tried.contains("dead") { tried += 1 }
    }
    #expect(Self.placements(learned.ranking, plan) == ["live", "dead"])
    #expect(tried <= 2_940 / LearnedECPMs.explorationGap.lowerBound, "tried \(tried) times after sinking")
    #expect(tried >= 2_940 / LearnedECPMs.explorationGap.upperBound, "tried \(tried) times after sinking")
  }

  @Test func sameSeedSameOrdersAndExplorationDependsOnTheSeed() {
    let truth = Self.market(3, 6, 12)
    func run(seed: UInt64) -> [[String]] {
      var learned = Self.learner(seed: seed)
      var random = SeededRandom(seed: 99)
      return (0..<1_000).map { _ in Self.load(&learned, truth: truth, random: &random).order }
    }
    #expect(run(seed: 1) == run(seed: 1))
    #expect(run(seed: 1) != run(seed: 2))
  }

  @Test func paidRevenueReplacesTheFillsPriceUnlessTheCoreMadeItUp() {
    let zone = zone([item("a", "a1", ecpm: 10)])
    let plan = WaterfallPlanner.plan(for: zone)
    let filled = [
      AdInfo.NetworkResponse(
        of: "a", placementID: "a1", priority: 0, ecpm: 10, state: .loaded, latency: .milliseconds(100))
    ]
    var learned = LearnedECPMs(plan: plan, random: SeededRandom(seed: 1))
    learned.record(filled, fillPrecision: .estimated)
    #expect(learned.prices(in: plan) == [10])
    learned.paid(
      network: "a", placementID: "a1", revenue: AdapterSignal.ImpressionRevenue(usd: 0.004, precision: .exact)
    )
    // The prior (10, weight 0.98) and the paid 4 (weight 1).
    #expect(abs(learned.prices(in: plan)[0] - (0.98 * 10 + 4) / 1.98) < 1e-9)
    // Paid once: a second report for the same fill changes nothing.
    let once = learned.prices(in: plan)
    learned.paid(
      network: "a", placementID: "a1", revenue: AdapterSignal.ImpressionRevenue(usd: 0.001, precision: .exact)
    )
    #expect(learned.prices(in: plan) == once)
    // A fill at the configured eCPM and the core's estimate from it say nothing about the price.
    learned.record(filled, fillPrecision: .publisherDefined)
    learned.paid(
      network: "a", placementID: "a1",
      revenue: AdapterSignal.ImpressionRevenue(usd: 0.01, precision: .publisherDefined))
    #expect(learned.prices(in: plan) == once)
  }

  // MARK: In a zone

  /// A zone over three scripted networks whose configured eCPMs (10, 8, 2) order them exactly
  /// wrong: they fill 80% of loads at 3, 6 and 12.
  static func scriptedHarness(autoECPM: Bool, strategy: ZoneConfig.AuctionStrategy = .waterfall, loads: Int)
    throws
    -> Harness
  {
    var zone = wrongZone
    zone.autoECPM = autoECPM
    zone.strategy = strategy
    // In the hybrid zone "a1" bids (at 1, below every waterfall price).
    zone.lineItems[0].bidding = strategy == .hybrid
    var random = SeededRandom(seed: 2026)
    let prices: [NetworkID: Double] = ["a": 3, "b": 6, "c": 12]
    return try Harness(zones: [zone], options: MediatorOptions(seed: 8)) { scheduler in
      prices.keys.sorted().map { id in
        let scripts: [ScriptedAdapter.LoadScript] = (0..<loads).map { _ in
          random.chance(0.8)
            ? .fill(after: .milliseconds(300), ecpm: prices[id]! * (0.9 + 0.2 * random.nextUnit()))
            : .fail(after: .milliseconds(200), noFill)
        }
        return ScriptedAdapter(
          id: id, scheduler: scheduler, loads: ["\(id)1": scripts],
          bids: strategy == .hybrid && id == "a" ? ["a1": [.bid(after: .zero, price: 1)]] : [:], show: .skips)
      }
    }
  }

  /// Loads and shows `count` ads; the order each load tried its waterfall in.
  static func loadAndShow(_ harness: Harness, count: Int) throws -> [[String]] {
    let ad = try harness.mediator.rewardedAd(zone: "z")
    var orders: [[String]] = []
    for _ in 0..<count {
      ad.load()
      harness.settle(.seconds(5))
      let responses = try #require(
        harness.recorder.events(zone: "z").lazy.compactMap { event -> [AdInfo.NetworkResponse]? in
          switch event {
          case .ready(let info): info.responses
          case .failed(let error): error.waterfall
          default: nil
          }
        }.last)
      orders.append(responses.filter { $0.bid == nil }.map(\.placementID))
      guard ad.isReady else { continue }
      try ad.show(from: HeadlessPresenter())
      harness.settle(.seconds(10))
    }
    return orders
  }

  @Test func aZoneWithAutoECPMLearnsTheTrueOrder() throws {
    let harness = try Self.scriptedHarness(autoECPM: true, loads: 400)
    let orders = try Self.loadAndShow(harness, count: 400)
    #expect(orders.first == ["a1", "b1", "c1"])
    let late = orders.suffix(100).filter { $0 == ["c1", "b1", "a1"] }.count
    #expect(late >= 95, "\(late) of the last 100 loads in the true order: \(orders.suffix(5))")
    try RewardContract.verify(harness.recorder.events(zone: "z"), requireFinished: false)
  }

  @Test func withoutAutoECPMTheZoneKeepsTheConfiguredOrder() throws {
    let harness = try Self.scriptedHarness(autoECPM: false, loads: 100)
    let orders = try Self.loadAndShow(harness, count: 100)
    #expect(Set(orders) == [["a1", "b1", "c1"]])
  }

  @Test func aHybridZoneOrdersAndPricesItsWaterfallByTheLearnedECPMs() throws {
    let harness = try Self.scriptedHarness(autoECPM: true, strategy: .hybrid, loads: 400)
    let orders = try Self.loadAndShow(harness, count: 400)
    // "a1" bids; the waterfall is b1 and c1, learned: c1 (12) before b1 (6).
    #expect(orders.first == ["b1", "c1"])
    let late = orders.suffix(100).filter { $0 == ["c1", "b1"] }.count
    #expect(late >= 95, "\(late) of the last 100 loads in the learned order")
  }

  @Test func aZoneRunsTheSameUnderTheSameSeed() throws {
    let first = try Self.loadAndShow(try Self.scriptedHarness(autoECPM: true, loads: 150), count: 150)
    let second = try Self.loadAndShow(try Self.scriptedHarness(autoECPM: true, loads: 150), count: 150)
    #expect(first == second)
  }

  // MARK: Configuration

  @Test func autoECPMIsOffWhenLeftOutAndOnForWaterfallAndHybrid() throws {
    let item = ConfigTests.item
    let bidder =
      #"{"network": "google", "placementId": "g", "priority": 0, "ecpm": 3, "timeoutSeconds": 5, "bidding": true}"#
    let off = try MediationConfig.load(
      Data(ConfigTests.zone(item).utf8), source: "t", knownNetworks: ConfigTests.known)
    #expect(off.zones[0].autoECPM == false)
    for strategy in ["waterfall", "hybrid"] {
      let json = ConfigTests.zone(
        item + ", " + bidder, extra: #", "strategy": "\#(strategy)", "autoECPM": true"#)
      let on = try MediationConfig.load(Data(json.utf8), source: "t", knownNetworks: ConfigTests.known)
      #expect(on.zones[0].autoECPM == true)
    }
  }

  @Test func autoECPMWithBiddingOrNotABooleanIsAnErrorAtItsPath() {
    let bidder =
      #"{"network": "google", "placementId": "g", "priority": 0, "ecpm": 3, "timeoutSeconds": 5, "bidding": true}"#
    #expect(
      ConfigTests.issues(ConfigTests.zone(bidder, extra: #", "strategy": "bidding", "autoECPM": true"#)) == [
        "zones[0].autoECPM: learned eCPMs order a waterfall, and strategy 'bidding' has none: expected false (or left out), or strategy 'waterfall' or 'hybrid'"
      ])
    #expect(
      ConfigTests.issues(ConfigTests.zone(bidder, extra: #", "strategy": "bidding", "autoECPM": false"#))
        == [])
    #expect(
      ConfigTests.issues(ConfigTests.zone(ConfigTests.item, extra: #", "autoECPM": "yes""#)) == [
        "zones[0].autoECPM: expected true or false, found a string"
      ])
  }

  @Test func switchingToBiddingDropsLearnedECPMs() {
    var zone = zone([bidder("a", "a1")])
    zone.autoECPM = true
    zone.use(.hybrid)
    #expect(zone.autoECPM && zone.strategy == .hybrid)
    zone.apply(ZoneConfig.Experiment.Arm(id: "bids", weight: 1, strategy: .bidding))
    #expect(!zone.autoECPM && zone.strategy == .bidding)
  }
}
