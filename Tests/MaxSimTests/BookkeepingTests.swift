import MediationKit
import MediationKitTesting
import Testing

@testable import MaxSim

/// The simulator drives millions of cycles through one SDK and adapter: nothing they keep may
/// grow with the number of cycles.
@Suite struct BookkeepingTests {
  private struct Sizes: Equatable {
    var routers = 0
    var pendingLoads = 0
    var shows = 0
    var heldAds = 0
    var auctionsLoading = 0
    var outstandingBids = 0
    var extraParameters = 0
    var rewardedAds = 0
    var waitingInitializers = 0
    var scheduled = 0
  }

  private func sizes(_ adapter: MaxAdapter, _ scheduler: VirtualScheduler) -> Sizes {
    let adapterCounts = adapter.bookkeeping
    let adCounts = MARewardedAd.shared(withAdUnitIdentifier: "unit-a", sdk: adapter.sdk).bookkeeping
    let sdkCounts = adapter.sdk.bookkeeping
    return Sizes(
      routers: adapterCounts.routers, pendingLoads: adapterCounts.pendingLoads, shows: adapterCounts.shows,
      heldAds: adapterCounts.heldAds, auctionsLoading: adCounts.auctionsLoading,
      outstandingBids: adCounts.outstandingBids,
      extraParameters: adCounts.extraParameters, rewardedAds: sdkCounts.rewardedAds,
      waitingInitializers: sdkCounts.waitingInitializers, scheduled: scheduler.pendingCount)
  }

  @Test func twentyThousandCyclesKeepEveryInternalListBounded() {
    var profile = MaxBehaviorProfile.default
    profile.maxOutstandingBids = 64
    let (scheduler, adapter) = makeAdapter(profile, seed: 2025)
    let started = CallCounter()
    adapter.start(AdapterStartRequest(placementIDs: ["unit-a"])) { _ in started.increment(at: .zero) }
    scheduler.run()
    #expect(started.times.count == 1)

    var fills = 0
    var shows = 0
    var bidLoads = 0
    var atTwoThousand: Sizes?
    for cycle in 0..<20_000 {
      let auction = UInt64(cycle)
      var bid: AdapterBid?
      if cycle % 2 == 0 {
        // Every other auction asks for a bid; a third of those bids lose and are never loaded.
        let recorder = BidRecorder(clock: scheduler)
        _ = adapter.bid(loadRequest(auctionID: auction), completion: recorder.completion)
        scheduler.run()
        if cycle % 3 != 0 { bid = recorder.bid }
      }
      if cycle % 7 == 0 {
        // A load the core gives up on (its timeout), then the next auction's.
        adapter.load(loadRequest(auctionID: auction), completion: { _ in }).cancel()
      }
      let box = LoadRecorder()
      _ = adapter.load(loadRequest(auctionID: auction, bid: bid), completion: box.completion)
      scheduler.run()
      if bid != nil { bidLoads += 1 }
      if let loaded = box.ad {
        fills += 1
        let signals = SignalRecorder()
        loaded.ad.show(AdapterShowRequest(zoneID: "zone-1"), from: HeadlessPresenter(), signals: signals.sink)
        scheduler.run()
        if !signals.signals.isEmpty { shows += 1 }
      }
      let now = sizes(adapter, scheduler)
      #expect(now.pendingLoads == 0 && now.scheduled == 0 && now.auctionsLoading == 0 && now.heldAds == 0)
      #expect(now.shows <= 16 && now.outstandingBids <= 64)
      if cycle == 1999 { atTwoThousand = now }
    }
    #expect(fills > 15_000 && shows == fills && bidLoads > 5000)
    var end = sizes(adapter, scheduler)
    // Lost bids stay redeemable until newer bids push them out: a window, not a history.
    #expect(end.outstandingBids > 0 && end.outstandingBids <= 64)
    end.outstandingBids = atTwoThousand?.outstandingBids ?? 0
    #expect(end == atTwoThousand, "the same sizes after 2,000 and 20,000 cycles")
    #expect(end.routers == 1 && end.rewardedAds == 1 && end.waitingInitializers == 0)
    #expect(end.extraParameters == 0, "the adapter passes its per-load data without extra parameters")
  }
}

/// Bid tokens are written digit by digit; they must read as `String(_:radix: 36)` would write them.
@Suite struct BidTokenSpellingTests {
  @Test func tokensSpellBothNumbersInBase36() {
    var values: [UInt64] = [0, 1, 9, 10, 35, 36, 37, 1295, 1296, 46_655, 46_656, .max - 1, .max]
    var random = SeededRandom(seed: 3)
    for _ in 0..<500 { values.append(random.next() >> (random.next() % 64)) }
    for (sequence, check) in zip(values, values.reversed()) {
      #expect(
        MaxBidBook.token(sequence: sequence, check: check)
          == "maxsim-\(String(sequence, radix: 36))-\(String(check, radix: 36))")
    }
  }

  @Test func anIssuedTokenRedeemsItsBidOnce() {
    var book = MaxBidBook(capacity: 4)
    let token = book.issue(MaxBidBook.Bid(auctionID: 9, price: 1.5, networkIndex: 0), check: 123_456_789)
    #expect(token == "maxsim-0-\(String(123_456_789, radix: 36))")
    #expect(book.redeem(token, auctionID: 9)?.price == 1.5)
    #expect(book.redeem(token, auctionID: 9) == nil)
  }
}
