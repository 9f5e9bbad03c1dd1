import MaxSim
import MediationKit
import MediationKitTesting
import Testing

/// What one load through the adapter did: fill and price, or the error, and how long it took.
struct LoadOutcome: Equatable {
  var ecpm: Double?
  var errorKind: AdapterError.Kind?
  var vendorCode: Int?
  var latency: Duration
}

/// Loads `request` through `adapter`, running virtual time until it answers.
func loadOutcome(
  _ adapter: MaxAdapter, _ scheduler: VirtualScheduler, _ request: AdapterLoadRequest
) throws -> LoadOutcome {
  let box = LoadRecorder()
  let answeredAt = Locked<Duration?>(nil)
  let start = scheduler.now
  _ = adapter.load(request) { result in
    answeredAt.withLock { $0 = scheduler.now }
    box.completion(result)
  }
  scheduler.run()
  try #require(box.results.count == 1)
  let latency = try #require(answeredAt.withLock { $0 }) - start
  if let ad = box.ad { return LoadOutcome(ecpm: ad.ecpm, latency: latency) }
  return LoadOutcome(errorKind: box.error?.kind, vendorCode: box.error?.vendorCode, latency: latency)
}

/// Shows the ad of a successful load so the ad unit is empty again.
func loadAndShow(_ adapter: MaxAdapter, _ scheduler: VirtualScheduler, _ request: AdapterLoadRequest) {
  let box = LoadRecorder()
  _ = adapter.load(request, completion: box.completion)
  scheduler.run()
  box.ad?.ad.show(AdapterShowRequest(zoneID: "z"), from: HeadlessPresenter(), signals: SignalRecorder().sink)
  scheduler.run()
}

let privacyCases: [PrivacySettings] = [
  PrivacySettings(),
  PrivacySettings(hasUserConsent: true, doNotSell: false),
  PrivacySettings(hasUserConsent: false),
  PrivacySettings(doNotSell: true),
  PrivacySettings(isChildDirected: true),
  PrivacySettings(hasUserConsent: false, doNotSell: true, isChildDirected: true),
]

@Suite struct KeyedDrawTests {
  @Test func aLoadsOutcomeDependsOnlyOnSeedAdUnitAndAuction() throws {
    let (freshScheduler, fresh) = makeAdapter(.default, seed: 9)
    let (busyScheduler, busy) = makeAdapter(.default, seed: 9)
    for auction in UInt64(1000)..<1040 {
      loadAndShow(busy, busyScheduler, loadRequest(auctionID: auction))
      loadAndShow(busy, busyScheduler, loadRequest("unit-b", auctionID: auction))
    }
    for auction in UInt64(0)..<40 {
      let expected = try loadOutcome(fresh, freshScheduler, loadRequest(auctionID: auction))
      #expect(try loadOutcome(busy, busyScheduler, loadRequest(auctionID: auction)) == expected)
    }
  }

  @Test func differentAuctionsDrawDifferentlyAndOtherSeedsToo() throws {
    let (scheduler, adapter) = makeAdapter(.default, seed: 9)
    let (otherScheduler, other) = makeAdapter(.default, seed: 10)
    var outcomes: [LoadOutcome] = []
    var otherOutcomes: [LoadOutcome] = []
    for auction in UInt64(0)..<20 {
      outcomes.append(try loadOutcome(adapter, scheduler, loadRequest(auctionID: auction)))
      otherOutcomes.append(try loadOutcome(other, otherScheduler, loadRequest(auctionID: auction)))
    }
    #expect(Set(outcomes.compactMap(\.ecpm)).count > 10)
    #expect(outcomes != otherOutcomes)
  }

  @Test func anAdHeldForAnotherAuctionIsReplacedByTheNewAuctionsDraw() throws {
    let (scheduler, adapter) = makeAdapter(.wellBehaved)
    let first = try loadOutcome(adapter, scheduler, loadRequest(auctionID: 1))
    let second = try loadOutcome(adapter, scheduler, loadRequest(auctionID: 2))
    #expect(second.latency > .zero, "not the held ad of auction 1")
    #expect(second.ecpm == adapter.quote(loadRequest(auctionID: 2)).ecpm)
    #expect(first.ecpm != second.ecpm)
    let again = try loadOutcome(adapter, scheduler, loadRequest(auctionID: 2))
    #expect(again == LoadOutcome(ecpm: second.ecpm, latency: .zero), "the held ad of auction 2, at once")
  }

  @Test func vendorLoadsWithoutAnAuctionStillDrawPerLoad() {
    var profile = MaxBehaviorProfile.default
    profile.fillRate = 0.5
    let (scheduler, sdk) = makeSDK(profile)
    let ad = MARewardedAd.shared(withAdUnitIdentifier: "unit-a", sdk: sdk)
    let recorder = CallbackRecorder(clock: scheduler)
    ad.delegate = recorder
    for _ in 0..<40 {
      ad.load()
      scheduler.run()
      if ad.isReady { ad.show() }
      scheduler.run()
    }
    #expect(recorder.calls.filter { $0 == "didLoad" }.count > 5)
    #expect(recorder.calls.filter { $0.hasPrefix("didFailToLoadAd") }.count > 5)
  }
}

@Suite struct QuoteTests {
  @Test(arguments: privacyCases)
  func quoteIsExactlyWhatTheLoadDoes(privacy: PrivacySettings) throws {
    let (scheduler, adapter) = makeAdapter(.default, seed: 77)
    var fills = 0
    for auction in UInt64(0)..<500 {
      let request = loadRequest(ecpm: 12, auctionID: auction, privacy: privacy)
      let quote = adapter.quote(request)
      #expect(adapter.quote(request) == quote, "no side effects")
      let outcome = try loadOutcome(adapter, scheduler, request)
      #expect(quote.fills == (outcome.ecpm != nil), "auction \(auction)")
      if quote.fills {
        fills += 1
        #expect(outcome.ecpm == quote.ecpm, "auction \(auction)")
      } else {
        #expect(quote.ecpm == 0)
        #expect([.noFill, .timeout, .networkError, .internalError].contains(outcome.errorKind))
      }
    }
    #expect(fills > 100 && fills < 500)
  }

  @Test func quoteHasNoSideEffectsOnLaterLoads() throws {
    let (quietScheduler, quiet) = makeAdapter(.default, seed: 5)
    let (scheduler, quoting) = makeAdapter(.default, seed: 5)
    for auction in UInt64(0)..<50 {
      for other in UInt64(0)..<5 { _ = quoting.quote(loadRequest("unit-b", auctionID: auction * 10 + other)) }
      #expect(
        try loadOutcome(quoting, scheduler, loadRequest(auctionID: auction))
          == loadOutcome(quiet, quietScheduler, loadRequest(auctionID: auction)))
    }
  }
}

@Suite struct BiddingTests {
  @Test func bidsAfterALogNormalLatencyAtTheQuotedPriceOrNotAtAll() {
    let (scheduler, adapter) = makeAdapter(.default, seed: 21)
    var latencies: [Duration] = []
    var bids = 0
    for auction in UInt64(0)..<300 {
      let request = loadRequest(auctionID: auction)
      let recorder = BidRecorder(clock: scheduler)
      let start = scheduler.now
      _ = adapter.bid(request, completion: recorder.completion)
      #expect(recorder.results.isEmpty, "never synchronously")
      scheduler.run()
      #expect(recorder.results.count == 1)
      latencies.append(recorder.times[0] - start)
      let quote = adapter.quote(request)
      if let bid = recorder.bid {
        bids += 1
        #expect(quote.fills)
        #expect(bid.price == quote.ecpm)
        #expect(!bid.token.isEmpty)
      } else {
        #expect(!quote.fills)
        #expect(recorder.error?.kind == .noFill)
      }
    }
    #expect(bids > 200)
    let median = latencies.sorted()[latencies.count / 2]
    #expect(median > .milliseconds(160) && median < .milliseconds(250))
    #expect(Set(latencies).count > 50, "latencies are drawn, not fixed")
  }

  @Test func aLoadWithTheBidFillsAtItsPriceAfterAShortLatency() throws {
    let (scheduler, adapter) = makeAdapter(.default, seed: 4)
    var loaded = 0
    for auction in UInt64(0)..<50 {
      let recorder = BidRecorder(clock: scheduler)
      _ = adapter.bid(loadRequest(auctionID: auction), completion: recorder.completion)
      scheduler.run()
      guard let bid = recorder.bid else { continue }
      let outcome = try loadOutcome(adapter, scheduler, loadRequest(auctionID: auction, bid: bid))
      #expect(outcome == LoadOutcome(ecpm: bid.price, latency: .milliseconds(50)))
      loaded += 1
    }
    #expect(loaded > 30)
  }

  @Test func aBadReusedOrForeignTokenIsAnInvalidRequest() throws {
    let (scheduler, adapter) = makeAdapter(.wellBehaved)
    let recorder = BidRecorder(clock: scheduler)
    _ = adapter.bid(loadRequest(auctionID: 1), completion: recorder.completion)
    scheduler.run()
    let bid = try #require(recorder.bid)
    let bogus = AdapterBid(price: bid.price, token: "not-a-token")
    let bad = try loadOutcome(adapter, scheduler, loadRequest(auctionID: 1, bid: bogus))
    #expect(bad.errorKind == .invalidRequest)
    #expect(bad.vendorCode == MAErrorCode.simulatedInvalidBidToken.rawValue)
    let otherAuction = try loadOutcome(adapter, scheduler, loadRequest(auctionID: 2, bid: bid))
    #expect(otherAuction.errorKind == .invalidRequest, "a token belongs to its auction, and is used up")
    let second = BidRecorder(clock: scheduler)
    _ = adapter.bid(loadRequest(auctionID: 3), completion: second.completion)
    scheduler.run()
    let good = try #require(second.bid)
    #expect(try loadOutcome(adapter, scheduler, loadRequest(auctionID: 3, bid: good)).ecpm == good.price)
    let reused = try loadOutcome(adapter, scheduler, loadRequest(auctionID: 3, bid: good))
    #expect(reused.errorKind == .invalidRequest)
  }

  @Test func oldUnloadedBidsExpire() throws {
    var profile = MaxBehaviorProfile.wellBehaved
    profile.maxOutstandingBids = 4
    let (scheduler, adapter) = makeAdapter(profile)
    var bids: [AdapterBid] = []
    for auction in UInt64(0)..<6 {
      let recorder = BidRecorder(clock: scheduler)
      _ = adapter.bid(loadRequest(auctionID: auction), completion: recorder.completion)
      scheduler.run()
      bids.append(try #require(recorder.bid))
    }
    #expect(
      try loadOutcome(adapter, scheduler, loadRequest(auctionID: 0, bid: bids[0])).errorKind
        == .invalidRequest)
    #expect(
      try loadOutcome(adapter, scheduler, loadRequest(auctionID: 5, bid: bids[5])).ecpm == bids[5].price)
  }

  @Test func aCancelledBidNeverAnswers() {
    let (scheduler, adapter) = makeAdapter(.wellBehaved)
    let recorder = BidRecorder(clock: scheduler)
    let handle = adapter.bid(loadRequest(auctionID: 1), completion: recorder.completion)
    scheduler.advance(by: .milliseconds(10))
    handle.cancel()
    scheduler.run()
    #expect(recorder.results.isEmpty)
  }

  @Test func childDirectedUsersGetNoBidsButLoadsStillFill() throws {
    let (scheduler, adapter) = makeAdapter(.wellBehaved)
    let child = PrivacySettings(isChildDirected: true)
    for auction in UInt64(0)..<20 {
      let recorder = BidRecorder(clock: scheduler)
      _ = adapter.bid(loadRequest(auctionID: auction, privacy: child), completion: recorder.completion)
      scheduler.run()
      #expect(recorder.error?.kind == .noFill)
    }
    #expect(adapter.quote(loadRequest(auctionID: 0, privacy: child)).fills)
  }
}

@Suite struct PrivacyTests {
  @Test func theAdapterForwardsEachRequestsSignalsToItsOwnSDK() throws {
    let (scheduler, adapter) = makeAdapter()
    let (_, other) = makeAdapter()
    _ = try loadOutcome(
      adapter, scheduler,
      loadRequest(privacy: PrivacySettings(hasUserConsent: false, doNotSell: true, isChildDirected: true)))
    let settings = adapter.sdk.privacySettings
    #expect(settings.isUserConsentSet() && !settings.hasUserConsent())
    #expect(settings.isDoNotSellSet() && settings.isDoNotSell())
    #expect(settings.isAgeRestrictedUser())
    #expect(!other.sdk.privacySettings.isUserConsentSet(), "another mediator's SDK is untouched")
    _ = try loadOutcome(
      adapter, scheduler, loadRequest(auctionID: 1, privacy: PrivacySettings(hasUserConsent: true)))
    #expect(settings.hasUserConsent())
    #expect(!settings.isDoNotSellSet(), "an unknown signal is unset again")
    #expect(!settings.isAgeRestrictedUser())
  }

  /// Quotes 3000 auctions with and without `privacy`; returns the fill ratio and the price
  /// ratios of auctions filled under both.
  private func effect(of privacy: PrivacySettings) -> (fillRatio: Double, priceRatios: Set<Double>) {
    let (_, adapter) = makeAdapter(.default, seed: 31)
    var baseFills = 0
    var fills = 0
    var ratios: Set<Double> = []
    for auction in UInt64(0)..<3000 {
      let base = adapter.quote(loadRequest(auctionID: auction))
      let quote = adapter.quote(loadRequest(auctionID: auction, privacy: privacy))
      if base.fills { baseFills += 1 }
      if quote.fills {
        fills += 1
        #expect(base.fills, "a signal never turns a no-fill into a fill")
        ratios.insert((quote.ecpm / base.ecpm * 1000).rounded() / 1000)
      }
    }
    return (Double(fills) / Double(baseFills), ratios)
  }

  @Test func noConsentLowersFillAndPrice() {
    let (fill, prices) = effect(of: PrivacySettings(hasUserConsent: false))
    #expect(abs(fill - 0.85) < 0.03)
    #expect(prices == [0.6])
  }

  @Test func consentGivenOrNotAskedChangesNothing() {
    #expect(effect(of: PrivacySettings(hasUserConsent: true, doNotSell: false)) == (1, [1]))
  }

  @Test func doNotSellLowersPriceOnly() {
    #expect(effect(of: PrivacySettings(doNotSell: true)) == (1, [0.8]))
  }

  @Test func childDirectedLowersFillAndPrice() {
    let (fill, prices) = effect(of: PrivacySettings(isChildDirected: true))
    #expect(abs(fill - 0.7) < 0.03)
    #expect(prices == [0.5])
  }

  @Test func factorsComeFromTheProfile() {
    var profile = MaxBehaviorProfile.wellBehaved
    profile.doNotSellPriceFactor = 0.25
    let (_, adapter) = makeAdapter(profile)
    let base = adapter.quote(loadRequest())
    let optedOut = adapter.quote(loadRequest(privacy: PrivacySettings(doNotSell: true)))
    #expect(abs(optedOut.ecpm - base.ecpm * 0.25) < 1e-9)
    #expect(MaxBehaviorProfile.default.noConsentFillFactor == 0.85)
    #expect(MaxBehaviorProfile.default.noConsentPriceFactor == 0.6)
    #expect(MaxBehaviorProfile.default.doNotSellPriceFactor == 0.8)
    #expect(MaxBehaviorProfile.default.ageRestrictedFillFactor == 0.7)
    #expect(MaxBehaviorProfile.default.ageRestrictedPriceFactor == 0.5)
  }
}
