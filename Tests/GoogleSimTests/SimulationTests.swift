import Foundation
import MediationKit
import MediationKitSimulation
import MediationKitTesting
import Testing

@testable import GoogleSim

/// What one load through the adapter did: its outcome, price and latency.
private struct LoadOutcome: Equatable {
  var fills: Bool
  var kind: AdapterError.Kind?
  var vendorCode: Int?
  var price: Double?
  var reportedECPM: Double?
  var latency: Duration
}

/// An adapter on a fresh virtual-time SDK instance.
private func makeAdapter(
  _ profile: GoogleBehaviorProfile = .default, seed: UInt64 = 42
) -> (VirtualScheduler, GoogleAdapter) {
  let (scheduler, mobileAds) = makeMobileAds(profile, seed: seed)
  return (scheduler, GoogleAdapter(mobileAds: mobileAds))
}

private func request(
  auction: UInt64, placement: String = "ca-app-pub-test/1", ecpm: Double = 12,
  privacy: PrivacySettings = PrivacySettings(), bid: AdapterBid? = nil
) -> AdapterLoadRequest {
  AdapterLoadRequest(
    zoneID: "zone", placementID: placement, ecpm: ecpm,
    reward: AdapterSignal.NetworkReward(type: "gems", amount: 5),
    auctionID: auction, privacy: privacy, bid: bid)
}

/// Loads `request` and runs the scheduler until the load answered (and nothing else is pending).
private func load(_ adapter: GoogleAdapter, _ request: AdapterLoadRequest, on scheduler: VirtualScheduler)
  -> (LoadOutcome, AdapterLoadedAd?)
{
  let start = scheduler.now
  let result = Box<Result<AdapterLoadedAd, AdapterError>>()
  let end = Box<Duration>()
  _ = adapter.load(request) {
    result.set($0)
    end.set(scheduler.now)
  }
  scheduler.run()
  switch result.value {
  case .success(let loaded):
    let price = (loaded.ad as? GoogleAdapterAd)?.rewardedAd?.priceECPM
    return (
      LoadOutcome(
        fills: true, price: price, reportedECPM: loaded.ecpm, latency: (end.value ?? start) - start), loaded
    )
  case .failure(let error):
    return (
      LoadOutcome(
        fills: false, kind: error.kind, vendorCode: error.vendorCode, latency: (end.value ?? start) - start),
      nil
    )
  case nil:
    Issue.record("the load never answered")
    return (LoadOutcome(fills: false, latency: .zero), nil)
  }
}

/// Asks for a bid and runs the scheduler until it answered.
private func bid(_ adapter: GoogleAdapter, _ request: AdapterLoadRequest, on scheduler: VirtualScheduler)
  -> (Result<AdapterBid, AdapterError>?, Duration)
{
  let start = scheduler.now
  let result = Box<Result<AdapterBid, AdapterError>>()
  let end = Box<Duration>()
  _ = adapter.bid(request) {
    result.set($0)
    end.set(scheduler.now)
  }
  scheduler.run()
  return (result.value, (end.value ?? start) - start)
}

private let privacyCases: [PrivacySettings] = [
  PrivacySettings(),
  PrivacySettings(hasUserConsent: true, doNotSell: false),
  PrivacySettings(hasUserConsent: false),
  PrivacySettings(doNotSell: true),
  PrivacySettings(isChildDirected: true),
  PrivacySettings(hasUserConsent: false, doNotSell: true, isChildDirected: true),
]

@Suite("Google simulation: keyed draws, quote, bidding, privacy, bookkeeping")
struct GoogleSimulationTests {
  // MARK: Keyed draws

  @Test func aLoadsOutcomeDependsOnlyOnSeedPlacementAndAuction() {
    let auctions: [UInt64] = Array(0..<40)
    let (scheduler, adapter) = makeAdapter()
    let inOrder = auctions.map { load(adapter, request(auction: $0), on: scheduler).0 }

    // Another adapter on the same seed: reverse order, with unrelated loads and shows in between.
    let (otherScheduler, other) = makeAdapter()
    var shuffled: [UInt64: LoadOutcome] = [:]
    for auction in auctions.reversed() {
      let (_, unrelated) = load(
        other, request(auction: 10_000 + auction, placement: "other"), on: otherScheduler)
      unrelated?.ad.show(
        AdapterShowRequest(zoneID: "zone"), from: HeadlessPresenter(), signals: SignalRecorder().sink)
      otherScheduler.run()
      shuffled[auction] = load(other, request(auction: auction), on: otherScheduler).0
    }
    #expect(auctions.map { shuffled[$0] } == inOrder)
    #expect(inOrder.contains { $0.fills } && inOrder.contains { !$0.fills })
    #expect(Set(inOrder.compactMap(\.price)).count == inOrder.filter(\.fills).count)

    // A different seed draws differently.
    let (thirdScheduler, third) = makeAdapter(seed: 43)
    #expect(auctions.map { load(third, request(auction: $0), on: thirdScheduler).0 } != inOrder)
  }

  @Test func loadsWithoutAnAuctionIDCountPerAdUnit() {
    func outcomes(_ mobileAds: MobileAds, _ scheduler: VirtualScheduler, interleave: Bool) -> [String] {
      (0..<8).map { _ in
        if interleave { _ = loadAd(mobileAds, on: scheduler, adUnitID: "unit-b") }
        let start = scheduler.now
        let (ad, error) = loadAd(mobileAds, on: scheduler, adUnitID: "unit-a")
        return
          "\(scheduler.now - start) \(ad?.responseInfo.responseIdentifier ?? "error \(error?.code ?? -1)")"
      }
    }
    let (scheduler, mobileAds) = makeMobileAds(.default)
    let (otherScheduler, other) = makeMobileAds(.default)
    let plain = outcomes(mobileAds, scheduler, interleave: false)
    #expect(plain == outcomes(other, otherScheduler, interleave: true))
    #expect(Set(plain).count == plain.count)
  }

  // MARK: Quote

  @Test(arguments: privacyCases)
  func quoteIsExactlyWhatTheLoadDoes(privacy: PrivacySettings) {
    let (scheduler, adapter) = makeAdapter()
    var fills = 0
    for auction in UInt64(0)..<500 {
      let req = request(auction: auction &* 7919, privacy: privacy)
      let quote = adapter.quote(req)
      #expect(adapter.quote(req) == quote)  // no side effects
      let (outcome, _) = load(adapter, req, on: scheduler)
      #expect(quote.fills == outcome.fills, "auction \(auction)")
      #expect(quote.ecpm == (outcome.price ?? 0), "auction \(auction)")
      if quote.fills { fills += 1 }
    }
    #expect(fills > 200 && fills < 480)
  }

  @Test func adapterIsASimulatedNetwork() {
    let adapter = GoogleNetwork.registration().makeAdapter(
      AdapterEnvironment(scheduler: VirtualScheduler(), random: SeededRandom(seed: 1)))
    #expect(adapter is any SimulatedNetwork)
    #expect(GoogleNetwork.info.capabilities.contains(.bidding))
  }

  // MARK: Bidding

  @Test func bidsAreTheQuoteAfterASeededLatency() {
    let (scheduler, adapter) = makeAdapter()
    var latencies: [Duration] = []
    var bids = 0
    for auction in UInt64(0)..<200 {
      let req = request(auction: auction)
      let quote = adapter.quote(req)
      let (result, latency) = bid(adapter, req, on: scheduler)
      latencies.append(latency)
      switch result {
      case .success(let bid):
        bids += 1
        #expect(quote.fills)
        #expect(bid.price == quote.ecpm)
      case .failure(let error):
        #expect(!quote.fills)
        #expect(error.kind == .noFill)
      case nil:
        Issue.record("no answer for auction \(auction)")
      }
    }
    #expect(bids > 100)
    let median = latencies.sorted()[latencies.count / 2]
    #expect(median > .milliseconds(220) && median < .milliseconds(400))

    // The same auction on the same seed bids the same, after the same latency.
    let (twinScheduler, twin) = makeAdapter()
    let first = bid(adapter, request(auction: 3), on: scheduler)
    let again = bid(twin, request(auction: 3), on: twinScheduler)
    #expect((try? first.0?.get().price) == (try? again.0?.get().price))
    #expect(first.1 == again.1)
  }

  @Test func aWinningBidLoadsAtItsPriceQuicklyAndOnlyOnce() throws {
    let (scheduler, adapter) = makeAdapter(.wellBehaved)
    let winning = try #require(try bid(adapter, request(auction: 77), on: scheduler).0?.get())
    let req = request(auction: 77, bid: winning)
    #expect(adapter.quote(req) == SimulatedQuote(fills: true, ecpm: winning.price))

    let (outcome, loaded) = load(adapter, req, on: scheduler)
    #expect(outcome.fills)
    #expect(outcome.price == winning.price)
    #expect(outcome.reportedECPM == winning.price)
    #expect(outcome.latency < .milliseconds(600))
    #expect(loaded?.lifetime == .seconds(3600))
    let recorder = SignalRecorder()
    loaded?.ad.show(AdapterShowRequest(zoneID: "zone"), from: HeadlessPresenter(), signals: recorder.sink)
    scheduler.run()
    #expect(
      recorder.signals.contains(
        .revenuePaid(AdapterSignal.ImpressionRevenue(usd: winning.price / 1000, precision: .exact)))
    )

    // The token is spent.
    #expect(adapter.quote(req).fills == false)
    let (reused, _) = load(adapter, req, on: scheduler)
    #expect(reused.kind == .invalidRequest)
    #expect(reused.vendorCode == RequestError.invalidRequest.rawValue)
  }

  @Test func badForeignOrExpiredTokensAreInvalidRequests() throws {
    let (scheduler, adapter) = makeAdapter(.wellBehaved)
    let bad = AdapterBid(price: 50, token: "gadsim1.1.2.3.4")
    #expect(load(adapter, request(auction: 1, bid: bad), on: scheduler).0.kind == .invalidRequest)
    #expect(
      load(adapter, request(auction: 1, bid: AdapterBid(price: 1, token: "")), on: scheduler).0.kind
        == .invalidRequest)

    // A real bid, but for another placement, or with its price changed.
    let real = try #require(try bid(adapter, request(auction: 5), on: scheduler).0?.get())
    #expect(
      load(adapter, request(auction: 5, placement: "other", bid: real), on: scheduler).0.kind
        == .invalidRequest)
    var parts = real.token.split(separator: ".").map(String.init)
    parts[2] = String((real.price * 2).bitPattern, radix: 16)
    let forged = AdapterBid(price: real.price * 2, token: parts.joined(separator: "."))
    #expect(load(adapter, request(auction: 5, bid: forged), on: scheduler).0.kind == .invalidRequest)

    // Another SDK instance (another seed) does not accept this instance's tokens.
    let (otherScheduler, other) = makeAdapter(.wellBehaved, seed: 7)
    #expect(load(other, request(auction: 5, bid: real), on: otherScheduler).0.kind == .invalidRequest)

    // Past its lifetime, the bid cannot be loaded.
    scheduler.advance(by: .seconds(60))
    #expect(adapter.quote(request(auction: 5, bid: real)).fills == false)
    #expect(load(adapter, request(auction: 5, bid: real), on: scheduler).0.kind == .invalidRequest)
  }

  @Test func theVendorFormReportsABadAdStringAsAnNSError() {
    let (scheduler, mobileAds) = makeMobileAds()
    let gadRequest = Request()
    gadRequest.adString = "not a bid"
    var reported: NSError?
    RewardedAd.load(
      with: "unit", request: gadRequest, mobileAds: mobileAds,
      options: GADSimulatedLoadOptions(auctionID: 1)
    ) { _, error in reported = error as NSError? }
    scheduler.run()
    #expect(reported?.domain == RequestError.errorDomain)
    #expect(reported?.code == RequestError.invalidRequest.rawValue)
  }

  @Test func aCancelledBidNeverAnswers() {
    let (scheduler, adapter) = makeAdapter(.wellBehaved)
    let answers = Box<Int>()
    let handle = adapter.bid(request(auction: 1)) { _ in answers.set((answers.value ?? 0) + 1) }
    scheduler.advance(by: .milliseconds(50))
    handle.cancel()
    handle.cancel()
    scheduler.run()
    #expect(answers.value == nil)
    #expect(scheduler.pendingCount == 0)
  }

  @Test func theSDKsBidAPIAnswersOnceWithAnAdString() throws {
    let (scheduler, mobileAds) = makeMobileAds()
    var bids: [GADSimulatedBid] = []
    mobileAds.requestSimulatedBid(
      forAdUnitID: "unit", request: Request(), options: GADSimulatedLoadOptions(auctionID: 9)
    ) { bid, _ in if let bid { bids.append(bid) } }
    scheduler.run()
    let bid = try #require(bids.first)
    #expect(bids.count == 1)
    let gadRequest = Request()
    gadRequest.adString = bid.adString
    var loaded: GoogleSim.RewardedAd?
    RewardedAd.load(with: "unit", request: gadRequest, mobileAds: mobileAds) { ad, _ in loaded = ad
    }
    scheduler.run()
    #expect(loaded?.priceECPM == bid.price)
  }

  // MARK: Privacy

  @Test func privacyReachesTheSDKThroughGooglesAPI() {
    let (scheduler, adapter) = makeAdapter(.wellBehaved)
    let configuration = adapter.mobileAds.requestConfiguration
    _ = load(adapter, request(auction: 1, privacy: PrivacySettings(isChildDirected: true)), on: scheduler)
    #expect(configuration.tagForChildDirectedTreatment == true)
    #expect(configuration.tagForUnderAgeOfConsent == true)
    _ = load(adapter, request(auction: 2), on: scheduler)
    #expect(configuration.tagForChildDirectedTreatment == false)

    let extras = Extras()
    extras.additionalParameters = ["npa": "1", "rdp": "1"]
    let gadRequest = Request()
    gadRequest.register(extras)
    #expect(gadRequest.extras?.additionalParameters == ["npa": "1", "rdp": "1"])
  }

  /// Each privacy rule scales the same draw's price exactly (the well-behaved profile fills every request
  /// without privacy signals; the fill factors drop some).
  @Test(arguments: [
    (PrivacySettings(hasUserConsent: false), 0.6),
    (PrivacySettings(hasUserConsent: true), 1.0),
    (PrivacySettings(doNotSell: true), 0.8),
    (PrivacySettings(doNotSell: false), 1.0),
    (PrivacySettings(isChildDirected: true), 0.5),
    (PrivacySettings(hasUserConsent: false, doNotSell: true, isChildDirected: true), 0.6 * 0.8 * 0.5),
  ])
  func privacyScalesThePrice(privacy: PrivacySettings, factor: Double) throws {
    let (scheduler, adapter) = makeAdapter(.wellBehaved)
    var filled: [UInt64] = []
    for auction in UInt64(0)..<40 {
      let base = adapter.quote(request(auction: auction))
      let quote = adapter.quote(request(auction: auction, privacy: privacy))
      #expect(base.fills)
      guard quote.fills else { continue }
      filled.append(auction)
      #expect(abs(quote.ecpm - base.ecpm * factor) < 1e-9)
    }
    #expect(filled.count > 10)
    let auction = try #require(filled.first)
    let (outcome, _) = load(adapter, request(auction: auction, privacy: privacy), on: scheduler)
    #expect(abs((outcome.price ?? 0) - adapter.quote(request(auction: auction)).ecpm * factor) < 1e-9)
  }

  /// Without consent 85 % of requests fill, child-directed 70 % — always a subset of the fills
  /// without the signal, since the same draw decides.
  @Test(arguments: [
    (PrivacySettings(hasUserConsent: false), 0.85),
    (PrivacySettings(doNotSell: true), 1.0),
    (PrivacySettings(isChildDirected: true), 0.7),
  ])
  func privacyScalesTheFillRate(privacy: PrivacySettings, rate: Double) {
    let (_, adapter) = makeAdapter(.wellBehaved)
    var fills = 0
    for auction in UInt64(0)..<4000 where adapter.quote(request(auction: auction, privacy: privacy)).fills {
      fills += 1
    }
    #expect(abs(Double(fills) / 4000 - rate) < 0.025)
  }

  @Test func childDirectedUsersNeverGetABid() {
    let (scheduler, adapter) = makeAdapter(.wellBehaved)
    let child = PrivacySettings(isChildDirected: true)
    for auction in UInt64(0)..<50 {
      let (result, _) = bid(adapter, request(auction: auction, privacy: child), on: scheduler)
      guard case .failure(let error) = result else {
        Issue.record("child-directed bid for auction \(auction)")
        continue
      }
      #expect(error.kind == .noFill)
    }
    // The same user without the tag gets bids (well-behaved profile: every request fills).
    #expect((try? bid(adapter, request(auction: 1), on: scheduler).0?.get()) != nil)
  }

  @Test func theProfileDocumentsThePrivacyAndBiddingDefaults() {
    let profile = GoogleBehaviorProfile.default
    #expect(profile.nonPersonalizedFillFactor == 0.85)
    #expect(profile.nonPersonalizedPriceFactor == 0.6)
    #expect(profile.restrictedDataProcessingPriceFactor == 0.8)
    #expect(profile.childDirectedFillFactor == 0.7)
    #expect(profile.childDirectedPriceFactor == 0.5)
    #expect(profile.bidLatencyMedian == .milliseconds(300))
    #expect(profile.bidLifetime == .seconds(60))
    #expect(profile.rewardCallbackHistoryLimit == 64)
  }

  // MARK: Bookkeeping

  @Test func bookkeepingStaysBoundedOverManyCycles() {
    let (scheduler, adapter) = makeAdapter(.default.with { $0.clickRate = 0.2 })
    let mobileAds = adapter.mobileAds
    var fills = 0
    var checkpoint: MobileAds.Bookkeeping?
    for cycle in UInt64(0)..<20_000 {
      var req = request(auction: cycle, placement: "unit-\(cycle % 3)")
      if cycle % 2 == 0, case .success(let won)? = bid(adapter, req, on: scheduler).0 { req.bid = won }
      let (_, loaded) = load(adapter, req, on: scheduler)
      if let loaded {
        fills += 1
        let recorder = SignalRecorder()
        loaded.ad.show(
          AdapterShowRequest(zoneID: "zone", customData: "cycle"), from: HeadlessPresenter(),
          signals: recorder.sink)
        scheduler.run()
        loaded.ad.discard()
      }
      if cycle % 100 == 0 { _ = loadAd(mobileAds, on: scheduler, adUnitID: "vendor-unit") }
      if cycle == 2_000 { checkpoint = mobileAds.bookkeeping }
    }
    let final = mobileAds.bookkeeping
    #expect(fills > 15_000)
    #expect(mobileAds.simulatedRewardCallbackCount > 10_000)
    #expect(final.rewardCallbacks == 64)
    #expect(mobileAds.simulatedRewardCallbacks.count == 64)
    #expect(final.adUnits == 0)
    #expect(final.unkeyedRequestCounts == 1)
    #expect(final.redeemedBids <= 4)  // only bids loaded within the last bid lifetime
    #expect(final.startHandlers == 0)
    // The same sizes at cycle 2,000 as at 20,000 (the redeemed bids come and go).
    #expect(checkpoint.map { $0.redeemedBids <= 4 } == true)
    var comparable = checkpoint
    comparable?.redeemedBids = final.redeemedBids
    #expect(comparable == final)
    #expect(scheduler.pendingCount == 0)
  }

  @Test func rewardCallbacksCanBeTurnedOff() throws {
    let (scheduler, mobileAds) = makeMobileAds(.wellBehaved.with { $0.rewardCallbackHistoryLimit = 0 })
    let ad = try #require(loadAd(mobileAds, on: scheduler).0)
    ad.present(from: nil) {}
    scheduler.run()
    #expect(mobileAds.simulatedRewardCallbacks.isEmpty)
    #expect(mobileAds.simulatedRewardCallbackCount == 1)
  }

  @Test func theRewardCallbackHistoryKeepsTheMostRecentInOrder() {
    var history = BoundedHistory<Int>(limit: 3)
    for value in 1...5 { history.append(value) }
    #expect(history.elements == [3, 4, 5])
    #expect(history.count == 3)
  }
}
