import Foundation
import Testing

@testable import MediationKit

/// Each planner as a pure value: the order it loads in, its tie-breaks, and the fates it records.
@Suite("Load planners")
struct LoadPlannerTests {
  private final class PlannedAd: AdapterAd {
    func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {}
    func discard() {}
  }

  static let t0 = Duration.seconds(100)
  static let budget = LoadBudget(loadTimeout: .seconds(30), auctionTimeout: .seconds(5))

  static func planner(_ zone: ZoneConfig, unavailable: [NetworkID: LoadPlan.Unavailable] = [:])
    -> any LoadPlanner
  {
    let type = LoadPlanners.planner(for: zone)
    return type.init(plan: type.plan(for: zone), budget: budget, unavailable: unavailable, now: t0)
  }

  /// The entries `actions` load, by placement.
  static func loads(_ actions: [LoadAction], _ planner: any LoadPlanner, zone: ZoneConfig) -> [String] {
    let plan = LoadPlanners.planner(for: zone).plan(for: zone)
    return actions.compactMap {
      if case .load(let entry, _, _) = $0 { return plan.entries[entry].item.placementId }
      return nil
    }
  }

  /// Fails every load in turn and returns the placements in the order they were loaded, and the
  /// load's responses.
  static func failEveryLoad(_ planner: inout any LoadPlanner, after actions: [LoadAction], zone: ZoneConfig)
    -> (order: [String], responses: [AdInfo.NetworkResponse])
  {
    let plan = LoadPlanners.planner(for: zone).plan(for: zone)
    var actions = actions
    var order: [String] = []
    while true {
      for action in actions {
        if case .finish(.failed(_, let responses)) = action { return (order, responses) }
      }
      guard
        let entry = actions.lazy.compactMap({ action -> Int? in
          if case .load(let entry, _, _) = action { return entry }
          return nil
        }).first
      else { return (order, []) }
      order.append(plan.entries[entry].item.placementId)
      actions = planner.failed(entry: entry, error: noFill, now: t0 + .seconds(1))
    }
  }

  @Test func aWaterfallTriesTiersByPriorityThenHigherECPMThenConfigOrder() {
    let zone = zone([
      item("a", "a1", priority: 1, ecpm: 20), item("b", "b1", priority: 0, ecpm: 5),
      item("c", "c1", priority: 0, ecpm: 9), item("d", "d1", priority: 0, ecpm: 5),
    ])
    var planner = Self.planner(zone)
    let start = planner.start(now: Self.t0)
    #expect(start.count == 1)
    let (order, responses) = Self.failEveryLoad(&planner, after: start, zone: zone)
    #expect(order == ["c1", "b1", "d1", "a1"])
    #expect(responses.map(\.placementID) == ["c1", "b1", "d1", "a1"])
    #expect(responses.allSatisfy { $0.state == .failed })
    #expect(planner.isFinished)
  }

  @Test func aWaterfallAsksForNoBidsEvenOfBiddingItems() {
    let zone = zone([bidder("a", "a1"), item("b", "b1", ecpm: 5)])
    var planner = Self.planner(zone)
    let start = planner.start(now: Self.t0)
    #expect(Self.loads(start, planner, zone: zone) == ["a1"])
    #expect(planner.auctionTimedOut(now: Self.t0).isEmpty)
  }

  @Test func eachLoadTimeoutIsCappedByWhatIsLeftOfTheBudget() {
    let zone = zone(
      [item("a", "a1", ecpm: 5, timeout: 20), item("b", "b1", ecpm: 4, timeout: 20)], loadTimeout: 30)
    var planner = Self.planner(zone)
    guard case .load(let first, _, let timeout) = planner.start(now: Self.t0).first else {
      Issue.record("no load")
      return
    }
    #expect(timeout == .seconds(20))
    let next = planner.timedOut(entry: first, now: Self.t0 + .seconds(20))
    guard case .load(_, _, let capped) = next.last else {
      Issue.record("no second load: \(next)")
      return
    }
    #expect(capped == .seconds(10))
  }

  @Test func biddingAsksEveryBidderAtOnceThenLoadsBestFirstWithTiesToPriorityThenConfigOrder() {
    let zone = zone(
      [
        bidder("a", "a1", priority: 1), bidder("b", "b1", priority: 0), bidder("c", "c1", priority: 0),
        bidder("d", "d1", floor: 7), bidder("e", "e1"),
      ], strategy: .bidding)
    var planner = Self.planner(zone)
    let start = planner.start(now: Self.t0)
    guard case .startAuctionTimer(let round) = start.first else {
      Issue.record("no auction timer: \(start)")
      return
    }
    #expect(round == .seconds(5))
    #expect(start.count == 6)
    let prices: [Double] = [5, 5, 5, 6, 9]
    var actions: [LoadAction] = []
    for (entry, price) in prices.enumerated() {
      actions = planner.bidAnswered(
        entry: entry, result: .success(AdapterBid(price: price, token: "t\(entry)")),
        now: Self.t0 + .seconds(1))
    }
    let (order, responses) = Self.failEveryLoad(&planner, after: actions, zone: zone)
    #expect(order == ["e1", "b1", "c1", "a1"])
    #expect(responses.map(\.placementID) == ["e1", "d1", "b1", "c1", "a1"])
    #expect(responses.map(\.state) == [.failed, .belowFloor, .failed, .failed, .failed])
    #expect(responses[1].error == "bid $6.00 below floor $7.00")
  }

  @Test func theAuctionTimeoutClosesTheRoundWithTheBidsIn() {
    let zone = zone([bidder("a", "a1"), bidder("b", "b1")], strategy: .bidding)
    var planner = Self.planner(zone)
    _ = planner.start(now: Self.t0)
    #expect(
      planner.bidAnswered(
        entry: 1, result: .success(AdapterBid(price: 3, token: "t")), now: Self.t0 + .seconds(1)
      ).isEmpty)
    let closed = planner.auctionTimedOut(now: Self.t0 + .seconds(5))
    guard case .cancelBids(let late) = closed.first, case .load(let entry, let bid, _) = closed.last else {
      Issue.record("unexpected: \(closed)")
      return
    }
    #expect(late == [0])
    #expect(entry == 1)
    #expect(bid?.price == 3)
    // A bid after the round closed changes nothing.
    #expect(
      planner.bidAnswered(
        entry: 0, result: .success(AdapterBid(price: 9, token: "u")), now: Self.t0 + .seconds(6)
      ).isEmpty)
  }

  @Test func hybridLoadsWaterfallItemsPricedAtOrAboveTheBestBidFirstAndSkipsTheRest() {
    let zone = zone(
      [bidder("a", "a1"), item("b", "b1", ecpm: 12), item("c", "c1", ecpm: 10), item("d", "d1", ecpm: 4)],
      strategy: .hybrid)
    var planner = Self.planner(zone)
    _ = planner.start(now: Self.t0)
    let actions = planner.bidAnswered(
      entry: 0, result: .success(AdapterBid(price: 10, token: "t")), now: Self.t0 + .seconds(1))
    let (order, responses) = Self.failEveryLoad(&planner, after: actions, zone: zone)
    #expect(order == ["b1", "c1", "a1"])
    #expect(responses.map(\.placementID) == ["a1", "b1", "c1", "d1"])
    #expect(responses[3].state == .skipped)
    #expect(responses[3].error == "priced below the best bid $10.00")
  }

  @Test func hybridWithNoBidAtOrAboveItsFloorRunsTheWholeWaterfall() {
    let zone = zone(
      [bidder("a", "a1", floor: 20), item("b", "b1", ecpm: 12), item("c", "c1", ecpm: 4)], strategy: .hybrid)
    var planner = Self.planner(zone)
    _ = planner.start(now: Self.t0)
    let actions = planner.bidAnswered(
      entry: 0, result: .success(AdapterBid(price: 10, token: "t")), now: Self.t0 + .seconds(1))
    let (order, responses) = Self.failEveryLoad(&planner, after: actions, zone: zone)
    #expect(order == ["b1", "c1"])
    #expect(responses.map(\.state) == [.belowFloor, .failed, .failed])
  }

  @Test func aFillPricesByTheBidAndMarksTheUnusedBidsOutbid() {
    let zone = zone([bidder("a", "a1"), bidder("b", "b1")], strategy: .bidding)
    var planner = Self.planner(zone)
    _ = planner.start(now: Self.t0)
    _ = planner.bidAnswered(entry: 0, result: .success(AdapterBid(price: 4, token: "t")), now: Self.t0)
    let actions = planner.bidAnswered(
      entry: 1, result: .success(AdapterBid(price: 8, token: "u")), now: Self.t0)
    #expect(Self.loads(actions, planner, zone: zone) == ["b1"])
    let filled = planner.loaded(
      entry: 1, ad: AdapterLoadedAd(ad: PlannedAd(), ecpm: 99), now: Self.t0 + .seconds(1))
    guard case .finish(.filled(let entry, _, let price, let precision, let responses)) = filled.first else {
      Issue.record("no fill: \(filled)")
      return
    }
    #expect(entry == 1)
    #expect(price == 8)
    #expect(precision == .exact)
    #expect(responses.map(\.state) == [.loaded, .outbid])
    // A late ad from an attempt that ended is handed back to be discarded.
    guard case .discard = planner.loaded(entry: 0, ad: AdapterLoadedAd(ad: PlannedAd()), now: Self.t0).first
    else {
      Issue.record("late ad kept")
      return
    }
  }

  @Test func anUnavailableNetworkIsNeverAskedAndGetsItsFate() {
    let zone = zone(
      [bidder("a", "a1"), item("b", "b1", ecpm: 5), item("c", "c1", ecpm: 4)], strategy: .hybrid)
    var planner = Self.planner(
      zone,
      unavailable: [
        "a": .init(fate: .notStarted, reason: "down"), "b": .init(fate: .skipped, reason: "gone"),
      ])
    let start = planner.start(now: Self.t0)
    #expect(Self.loads(start, planner, zone: zone) == ["c1"])
    let (_, responses) = Self.failEveryLoad(&planner, after: start, zone: zone)
    #expect(responses.map(\.state) == [.notStarted, .skipped, .failed])
    #expect(responses.map(\.error) == ["down", "gone", "\(noFill)"])
  }

  @Test func messagesFormatWholeSecondsMillisecondsAndCents() {
    #expect(MessageFormat.duration(.seconds(5)) == "5 s")
    #expect(MessageFormat.duration(.milliseconds(1500)) == "1500 ms")
    #expect(MessageFormat.usd(12.5) == "$12.50")
    #expect(MessageFormat.usd(0.054) == "$0.05")
    #expect(MessageFormat.usd(3) == "$3.00")
  }

  /// A price a network reports is outside data: one with no cents an `Int` can hold is written
  /// as it is, never a trap.
  @Test func aPriceTooLargeForCentsIsWrittenAsItIs() {
    #expect(MessageFormat.usd(1e300) == "$1e+300")
    #expect(MessageFormat.usd(-1e300) == "$-1e+300")
    #expect(MessageFormat.usd(.nan) == "$nan")
    #expect(MessageFormat.usd(.infinity) == "$inf")
    #expect(MessageFormat.usd(9.3e16) == "$9.3e+16")
  }

  /// What a message quotes from outside is capped, with the whole length said.
  @Test func anExcerptCapsWhatAMessageQuotes() {
    #expect(MessageFormat.excerpt("short") == "short")
    let limit = String(repeating: "é", count: MessageFormat.quoteLimit)
    #expect(MessageFormat.excerpt(limit) == limit)
    #expect(
      MessageFormat.excerpt(limit + "x") == limit + "… (\(MessageFormat.quoteLimit + 1) characters)")
  }

  /// The digit-writing `usd` spells every amount as the interpolation it replaced did, negative and
  /// huge amounts included.
  @Test func usdMatchesTheInterpolatedSpelling() {
    func interpolated(_ value: Double) -> String {
      let cents = Int((value * 100).rounded())
      let fraction = String(cents % 100)
      return "$\(cents / 100).\(fraction.count < 2 ? "0" + fraction : fraction)"
    }
    var values: [Double] = [0, 0.004, 0.005, 0.01, 0.09, 0.1, 0.99, 0.999, 1, 9.99, 10, 99.995, 100, 1234.5]
    values += [-0.01, -0.5, -12.05, -1234.56, 99_999_999.99, 123_456_789.12, 9.2e16]
    var random = SeededRandom(seed: 7)
    for _ in 0..<2_000 { values.append(random.nextUnit() * pow(10, Double(random.next() % 9)) - 1) }
    for value in values { #expect(MessageFormat.usd(value) == interpolated(value), "\(value)") }
  }
}
