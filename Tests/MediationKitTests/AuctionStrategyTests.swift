import MediationKit
import MediationKitTesting
import Testing

@Suite("Bidding and hybrid auctions")
struct AuctionStrategyTests {
  typealias Bid = ScriptedAdapter.BidScript

  /// One network per bidder id, each bidding `bids[id]` on placement "<id>-p" and filling its loads.
  static func harness(
    _ zone: ZoneConfig, bids: [NetworkID: Bid], waterfall: [NetworkID: ScriptedAdapter.LoadScript] = [:],
    bidLoads: ScriptedAdapter.LoadScript = .fill(after: .milliseconds(100))
  ) throws -> Harness {
    try Harness(zones: [zone]) { scheduler in
      Set(bids.keys).union(waterfall.keys).sorted().map { id in
        var loads: [String: [ScriptedAdapter.LoadScript]] = ["\(id)-p": [bidLoads]]
        if let script = waterfall[id] { loads["\(id)-w"] = [script] }
        let bidScripts = bids[id].map { ["\(id)-p": [$0]] } ?? [:]
        return ScriptedAdapter(id: id, scheduler: scheduler, loads: loads, bids: bidScripts)
      }
    }
  }

  static func ready(_ harness: Harness) throws -> AdInfo {
    try #require(harness.recorder.events(zone: "z").compactMap(\.adInfo).first)
  }

  @Test func highestBidWinsAndLosersAreOutbid() throws {
    let harness = try Self.harness(
      zone([bidder("a", "a-p"), bidder("b", "b-p"), bidder("c", "c-p")], strategy: .bidding),
      bids: [
        "a": .bid(after: .milliseconds(200), price: 8), "b": .bid(after: .milliseconds(300), price: 12),
        "c": .noBid(after: .milliseconds(100)),
      ])
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    let info = try Self.ready(harness)
    #expect(info.network == "b")
    #expect(info.ecpm == 12)
    #expect(info.precision == .exact)
    #expect(info.strategy == .bidding)
    #expect(info.responses.map(\.network) == ["b", "a", "c"])
    #expect(info.responses.map(\.state) == [.loaded, .outbid, .noBid])
    #expect(info.responses.map(\.bid) == [12, 8, nil])
    #expect(info.latency == .milliseconds(400))  // 300 ms auction + 100 ms load
    #expect(harness.adapters["b"]!.loadRequests.first?.bid?.price == 12)
    #expect(harness.adapters["a"]!.loadRequests.isEmpty)
  }

  @Test func equalBidsGoToTheLowerPriorityNumberThenConfigOrder() throws {
    let byPriority = try Self.harness(
      zone([bidder("a", "a-p", priority: 1), bidder("b", "b-p", priority: 0)], strategy: .bidding),
      bids: ["a": .bid(after: .zero, price: 10), "b": .bid(after: .zero, price: 10)])
    try byPriority.mediator.rewardedAd(zone: "z").load()
    byPriority.settle()
    #expect(try Self.ready(byPriority).network == "b")

    let byOrder = try Self.harness(
      zone([bidder("b", "b-p"), bidder("a", "a-p")], strategy: .bidding),
      bids: ["a": .bid(after: .zero, price: 10), "b": .bid(after: .zero, price: 10)])
    try byOrder.mediator.rewardedAd(zone: "z").load()
    byOrder.settle()
    #expect(try Self.ready(byOrder).network == "b")
  }

  @Test func bidsBelowTheirFloorAreOut() throws {
    let harness = try Self.harness(
      zone([bidder("a", "a-p", floor: 15), bidder("b", "b-p", floor: 5)], strategy: .bidding),
      bids: ["a": .bid(after: .zero, price: 14), "b": .bid(after: .zero, price: 6)])
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    let info = try Self.ready(harness)
    #expect(info.network == "b")
    #expect(info.responses.first { $0.network == "a" }?.state == .belowFloor)
    #expect(info.responses.first { $0.network == "a" }?.error == "bid $14.00 below floor $15.00")
  }

  @Test func aBidderThatDoesNotAnswerIsTimedOutAtTheAuctionTimeout() throws {
    let harness = try Self.harness(
      zone([bidder("a", "a-p"), bidder("b", "b-p")], strategy: .bidding, auctionTimeout: 2),
      bids: ["a": .never, "b": .bid(after: .milliseconds(500), price: 3)])
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    let info = try Self.ready(harness)
    #expect(info.network == "b")
    #expect(info.latency == .milliseconds(2100))
    #expect(info.responses.first { $0.network == "a" }?.state == .timedOut)
    #expect(harness.adapters["a"]!.cancelledBids == 1)
  }

  /// The zone's auction timer is armed for each load and disarmed when the load ends: a load
  /// whose bid round closed early leaves no deadline behind for the next load's round.
  @Test func aLoadsAuctionDeadlineIsItsOwnNotThePreviousLoads() throws {
    let harness = try Harness(
      zones: [zone([bidder("a", "a-p"), bidder("b", "b-p")], strategy: .bidding, auctionTimeout: 2)]
    ) { scheduler in
      [
        ScriptedAdapter(
          id: "a", scheduler: scheduler, loads: ["a-p": [.fill(after: .milliseconds(100))]],
          bids: ["a-p": [.noBid(after: .milliseconds(50)), .never]]),
        ScriptedAdapter(
          id: "b", scheduler: scheduler, loads: ["b-p": [.fill(after: .milliseconds(100))]],
          bids: ["b-p": [.noBid(after: .milliseconds(50)), .bid(after: .milliseconds(500), price: 3)]]),
      ]
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    // The first round: both pass at 50 ms and the load fails, 1.95 s before its deadline.
    harness.settle(.seconds(1))
    #expect(harness.names() == ["loading", "failed"])
    ad.load()
    harness.settle()
    // The second round times out "a" 2 s after it began, not at the first round's deadline.
    let info = try Self.ready(harness)
    #expect(info.network == "b")
    #expect(info.latency == .milliseconds(2100))
    #expect(info.responses.first { $0.network == "a" }?.state == .timedOut)
  }

  @Test func noBidsFailsWithNoFill() throws {
    let harness = try Self.harness(
      zone([bidder("a", "a-p")], strategy: .bidding), bids: ["a": .noBid(after: .milliseconds(50))])
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    guard case .failed(let error) = harness.recorder.events(zone: "z").last else {
      Issue.record("expected failed: \(harness.names())")
      return
    }
    #expect(error.code == .noFill)
    #expect(error.waterfall.map(\.state) == [.noBid])
  }

  @Test func aWinnerThatFailsToLoadFallsToTheNextBid() throws {
    let harness = try Harness(zones: [zone([bidder("a", "a-p"), bidder("b", "b-p")], strategy: .bidding)]) {
      s in
      [
        ScriptedAdapter(
          id: "a", scheduler: s, loads: ["a-p": [.fail(after: .zero, noFill)]],
          bids: ["a-p": [.bid(after: .zero, price: 20)]]),
        ScriptedAdapter(
          id: "b", scheduler: s, loads: ["b-p": [.fill(after: .zero)]],
          bids: ["b-p": [.bid(after: .zero, price: 5)]]),
      ]
    }
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    let info = try Self.ready(harness)
    #expect(info.network == "b")
    #expect(info.ecpm == 5)
    #expect(info.responses.map(\.state) == [.failed, .loaded])
  }

  @Test func hybridSkipsWaterfallItemsPricedBelowTheBestBidAndTriesTheRestFirst() throws {
    let items = [
      bidder("bid", "bid-p"),
      item("w1", "w1-w", priority: 0, ecpm: 15),
      item("w2", "w2-w", priority: 0, ecpm: 10),  // equal to the bid: tried before it
      item("w3", "w3-w", priority: 1, ecpm: 9),  // below the bid: skipped
    ]
    let harness = try Self.harness(
      zone(items, strategy: .hybrid), bids: ["bid": .bid(after: .milliseconds(100), price: 10)],
      waterfall: [
        "w1": .fail(after: .milliseconds(100), noFill), "w2": .fail(after: .milliseconds(100), noFill),
        "w3": .fill(after: .zero),
      ])
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    let info = try Self.ready(harness)
    #expect(info.network == "bid")
    #expect(info.responses.map(\.network) == ["bid", "w1", "w2", "w3"])
    #expect(info.responses.map(\.state) == [.loaded, .failed, .failed, .skipped])
    #expect(info.responses[3].error == "priced below the best bid $10.00")
    #expect(harness.adapters["w3"]!.loadRequests.isEmpty)
  }

  @Test func hybridWaterfallWinsWhenItFillsAboveTheBid() throws {
    let harness = try Self.harness(
      zone([bidder("bid", "bid-p"), item("w1", "w1-w", ecpm: 15)], strategy: .hybrid),
      bids: ["bid": .bid(after: .zero, price: 10)], waterfall: ["w1": .fill(after: .zero)])
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    let info = try Self.ready(harness)
    #expect(info.network == "w1")
    #expect(info.precision == .publisherDefined)
    #expect(info.responses.map(\.state) == [.outbid, .loaded])
  }

  @Test func hybridWithoutBidsIsAPlainWaterfall() throws {
    let harness = try Self.harness(
      zone([bidder("bid", "bid-p"), item("w1", "w1-w", ecpm: 1)], strategy: .hybrid),
      bids: ["bid": .noBid(after: .zero)], waterfall: ["w1": .fill(after: .zero)])
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    #expect(try Self.ready(harness).network == "w1")
  }

  @Test func waterfallStrategyIgnoresTheBiddingFlag() throws {
    let harness = try Self.harness(
      zone([bidder("a", "a-p", ecpm: 3), item("w1", "w1-w", ecpm: 5)], strategy: .waterfall),
      bids: ["a": .bid(after: .zero, price: 50)], waterfall: ["w1": .fill(after: .zero)])
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    #expect(try Self.ready(harness).network == "w1")
    #expect(harness.adapters["a"]!.bidRequests.isEmpty)
  }

  @Test func requestsCarryTheAuctionIDAndPrivacy() throws {
    let harness = try Self.harness(
      zone([bidder("a", "a-p")], strategy: .bidding), bids: ["a": .bid(after: .zero, price: 1)])
    harness.mediator.privacy = PrivacySettings(hasUserConsent: false, doNotSell: true, isChildDirected: true)
    let ad = try harness.mediator.rewardedAd(zone: "z")
    try harness.loadShowAndLoadAgain(ad)
    let adapter = harness.adapters["a"]!
    #expect(adapter.bidRequests.map(\.auctionID) == [1, 2])
    #expect(adapter.loadRequests.first?.auctionID == 1)
    #expect(
      adapter.bidRequests.allSatisfy {
        $0.privacy == PrivacySettings(hasUserConsent: false, doNotSell: true, isChildDirected: true)
      })
  }

  /// Each ad names the auction that loaded it, the id its networks received: two loads in a row,
  /// the first shown, in a bidding auction and in a waterfall.
  @Test(arguments: [ZoneConfig.AuctionStrategy.bidding, .waterfall])
  func theAdReportsTheAuctionThatLoadedIt(strategy: ZoneConfig.AuctionStrategy) throws {
    let harness =
      strategy == .bidding
      ? try Self.harness(
        zone([bidder("a", "a-p")], strategy: .bidding), bids: ["a": .bid(after: .zero, price: 1)])
      : try Self.harness(
        zone([item("a", "a-w", ecpm: 5)], strategy: .waterfall), bids: [:],
        waterfall: ["a": .fill(after: .milliseconds(10))])
    let ad = try harness.mediator.rewardedAd(zone: "z")
    try harness.loadShowAndLoadAgain(ad)
    let reported = harness.recorder.events(zone: "z").compactMap { event -> String? in
      switch event {
      case .ready(let info): "ready \(info.auctionID)"
      case .shown(let info): "shown \(info.auctionID)"
      default: nil
      }
    }
    let loaded = harness.adapters["a"]!.loadRequests.map(\.auctionID)
    #expect(loaded == [1, 2])
    #expect(reported == ["ready 1", "shown 1", "ready 2"])
  }
}

@Suite("Bid ranking")
struct BidRankingTests {
  @Test func ranksByPriceThenPriorityThenConfigOrderAndDropsBelowFloor() {
    let entries = [
      BidRanking.Entry(item: bidder("a", "a", priority: 1), configIndex: 0, price: 5),
      BidRanking.Entry(item: bidder("b", "b", priority: 0), configIndex: 1, price: 5),
      BidRanking.Entry(item: bidder("c", "c", priority: 0), configIndex: 2, price: 5),
      BidRanking.Entry(item: bidder("d", "d", floor: 7), configIndex: 3, price: 6),
      BidRanking.Entry(item: bidder("e", "e"), configIndex: 4, price: 9),
    ]
    #expect(BidRanking.ranked(entries).map(\.item.network) == ["e", "b", "c", "a"])
  }
}
