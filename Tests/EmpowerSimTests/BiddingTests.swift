import MediationKit
import MediationKitTesting
import Testing

@testable import EmpowerSim

@Suite struct BiddingTests {
  typealias BidResult = Result<AdapterBid, AdapterError>

  /// Asks for a bid and runs the clock; returns the answer and when it came.
  static func bid(_ adapter: EmpowerAdapter, _ scheduler: VirtualScheduler, _ request: AdapterLoadRequest)
    -> (result: BidResult, elapsed: Duration)?
  {
    let answers = Recorded<(BidResult, Duration)>()
    let start = scheduler.now
    _ = adapter.bid(request) { answers.append(($0, scheduler.now)) }
    #expect(answers.all.isEmpty, "a bid is answered asynchronously")
    scheduler.run()
    #expect(answers.all.count <= 1)
    return answers.all.first.map { ($0.0, $0.1 - start) }
  }

  @Test func empowerBids() {
    #expect(EmpowerNetwork.info.capabilities.contains(.bidding))
    #expect(EmpowerNetwork.info.capabilities.contains(.rewarded))
  }

  @Test func bidsAreTheQuoteAfterASeededLatency() throws {
    let (adapter, scheduler) = try #require(makeEmpowerAdapter(seed: 8))
    var latencies: [Int64] = []
    var bids = 0
    var tokens: Set<String> = []
    for auction in UInt64(1)...300 {
      let request = loadRequest(auction: auction)
      let quote = adapter.quote(request)
      let answer = try #require(Self.bid(adapter, scheduler, request))
      latencies.append(answer.elapsed.milliseconds)
      switch answer.result {
      case .success(let bid):
        bids += 1
        #expect(quote.fills && bid.price == quote.ecpm, "auction \(auction)")
        tokens.insert(bid.token)
      case .failure(let error):
        #expect(!quote.fills, "auction \(auction)")
        #expect(error.kind == .noFill)
      }
    }
    #expect(bids > 150 && bids < 300)
    #expect(tokens.count == bids, "every bid has its own token")
    let median = latencies.sorted()[latencies.count / 2]
    #expect((200...300).contains(median), "median bid latency \(median) ms")
    #expect(Set(latencies).count > 100, "bid latencies vary")
    let (again, againScheduler) = try #require(makeEmpowerAdapter(seed: 8))
    #expect(
      try #require(Self.bid(again, againScheduler, loadRequest(auction: 1))).elapsed.milliseconds
        == latencies[0],
      "the same seed and auction give the same bid latency")
  }

  @Test func aWonBidLoadsAtItsPriceQuickly() throws {
    let (adapter, scheduler) = try #require(makeEmpowerAdapter(profile: alwaysComplete, seed: 4))
    let request = loadRequest(auction: 77)
    guard case .success(let bid) = try #require(Self.bid(adapter, scheduler, request)).result else {
      Issue.record("expected a bid")
      return
    }
    var won = request
    won.bid = bid
    let outcome = loadOnce(adapter, scheduler, won)
    #expect(outcome.ecpm == bid.price)
    #expect(outcome.elapsed == alwaysComplete.bidLoadLatency)
  }

  @Test func aWonBidIsACommitment() throws {
    // Every bid loads at its price after the bid load latency, with no second fill draw: not even
    // a request whose signals would now lower the fill (child-directed) changes that.
    let profile = EmpowerBehaviorProfile(networkErrorRate: 0.5)
    let (adapter, scheduler) = try #require(makeEmpowerAdapter(profile: profile, seed: 12))
    var loaded = 0
    for auction in UInt64(1)...100 {
      let request = loadRequest(auction: auction)
      guard case .success(let bid) = try #require(Self.bid(adapter, scheduler, request)).result else {
        continue
      }
      var won = request
      won.bid = bid
      won.privacy = PrivacySettings(isChildDirected: auction.isMultiple(of: 2))
      let outcome = loadOnce(adapter, scheduler, won)
      #expect(outcome.ecpm == bid.price, "auction \(auction)")
      #expect(outcome.elapsed == profile.bidLoadLatency)
      loaded += 1
    }
    #expect(loaded > 20)
  }

  @Test func badReusedOrForeignTokensFailWithInvalidRequest() throws {
    let (adapter, scheduler) = try #require(makeEmpowerAdapter(profile: alwaysComplete))
    guard case .success(let bid) = try #require(Self.bid(adapter, scheduler, loadRequest(auction: 3))).result
    else {
      Issue.record("expected a bid")
      return
    }
    #expect(
      loadOnce(adapter, scheduler, loadRequest("other-zone", auction: 3, bid: bid)).errorKind
        == .invalidRequest)
    #expect(loadOnce(adapter, scheduler, loadRequest(auction: 3, bid: bid)).ecpm == bid.price)
    let reused = loadOnce(adapter, scheduler, loadRequest(auction: 3, bid: bid))
    #expect(reused.errorKind == .invalidRequest)
    guard case .failure(let error) = reused.result else { return }
    #expect(error.vendorCode == EMAError.Code.invalidBid.rawValue)
    for token in ["", "garbage", "emb_", "emb_zz", "emb_ffffffff"] {
      let forged = loadRequest(auction: 4, bid: AdapterBid(price: 99, token: token))
      #expect(loadOnce(adapter, scheduler, forged).errorKind == .invalidRequest, "token '\(token)'")
    }
  }

  @Test func cancellingABidRequestSilencesIt() throws {
    let (adapter, scheduler) = try #require(makeEmpowerAdapter(profile: alwaysComplete))
    let answers = Recorded<BidResult>()
    let handle = adapter.bid(loadRequest(auction: 1)) { answers.append($0) }
    scheduler.advance(by: .milliseconds(10))
    handle.cancel()
    scheduler.run()
    #expect(answers.all.isEmpty)
    #expect(scheduler.pendingCount == 0)
    #expect(adapter.manager.bookkeeping.openBids == 0)
  }

  @Test func unloadedBidsExpireBeyondTheLimit() throws {
    let profile = EmpowerBehaviorProfile(fillRate: 1, networkErrorRate: 0, maxOutstandingBids: 4)
    let (adapter, scheduler) = try #require(makeEmpowerAdapter(profile: profile))
    var bids: [(UInt64, AdapterBid)] = []
    for auction in UInt64(1)...10 {
      if case .success(let bid) = try #require(Self.bid(adapter, scheduler, loadRequest(auction: auction)))
        .result
      {
        bids.append((auction, bid))
      }
    }
    #expect(bids.count == 10)
    #expect(adapter.manager.bookkeeping.openBids == 4)
    for (auction, bid) in bids {
      let outcome = loadOnce(adapter, scheduler, loadRequest(auction: auction, bid: bid))
      if auction <= 6 {
        #expect(outcome.errorKind == .invalidRequest, "bid \(auction) expired")
      } else {
        #expect(outcome.ecpm == bid.price, "bid \(auction) is still open")
      }
    }
    #expect(adapter.manager.bookkeeping.openBids == 0)
  }

  @Test func childDirectedRequestsNeverBid() throws {
    let (adapter, scheduler) = try #require(makeEmpowerAdapter(profile: alwaysComplete))
    let privacy = PrivacySettings(isChildDirected: true)
    var waterfallFills = 0
    for auction in UInt64(1)...50 {
      let request = loadRequest(auction: auction, privacy: privacy)
      if adapter.quote(request).fills { waterfallFills += 1 }
      let answer = try #require(Self.bid(adapter, scheduler, request))
      guard case .failure(let error) = answer.result else {
        Issue.record("auction \(auction): a child-directed request got a bid")
        continue
      }
      #expect(error.kind == .noFill)
    }
    #expect(waterfallFills > 20, "child-directed waterfall loads still fill, just less")
  }
}
