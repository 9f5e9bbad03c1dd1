import MediationKit
import MediationKitTesting
import Testing

@testable import EmpowerSim

/// A load's market outcome is a pure function of the seed, the placement, the auction id and the
/// privacy signals, whatever happened before it.
@Suite struct KeyedDrawTests {
  /// The outcome of auction `auction` on `placement`, after `history` other cycles (loads, shows,
  /// other placements) on the same adapter.
  static func outcome(
    of auction: UInt64, on placement: String = "zone-1", after history: Int, seed: UInt64 = 3
  )
    throws -> (ecpm: Double?, kind: AdapterError.Kind?, elapsed: Duration)
  {
    let (adapter, scheduler) = try #require(makeEmpowerAdapter(seed: seed))
    for index in 0..<UInt64(history) {
      let results = Recorded<Result<AdapterLoadedAd, AdapterError>>()
      let other = index.isMultiple(of: 2) ? placement : "other"
      _ = adapter.load(loadRequest(other, auction: 10_000 + index)) { results.append($0) }
      scheduler.run()
      if case .success(let loaded)? = results.all.first {
        loaded.ad.show(
          AdapterShowRequest(zoneID: "app-zone"), from: HeadlessPresenter(),
          signals: AdapterSignal.Sink { _ in })
        scheduler.run()
        loaded.ad.discard()
      }
    }
    let outcome = loadOnce(adapter, scheduler, loadRequest(placement, auction: auction))
    return (outcome.ecpm, outcome.errorKind, outcome.elapsed)
  }

  @Test(arguments: [1, 7, 42, 1_000_003] as [UInt64])
  func anAuctionsOutcomeDoesNotDependOnHistory(auction: UInt64) throws {
    let fresh = try Self.outcome(of: auction, after: 0)
    for history in [1, 5, 12] {
      let later = try Self.outcome(of: auction, after: history)
      #expect(later.ecpm == fresh.ecpm)
      #expect(later.kind == fresh.kind)
      #expect(later.elapsed == fresh.elapsed, "the load latency is part of the keyed draw")
    }
  }

  @Test func auctionsDifferAndSeedsDiffer() throws {
    let (adapter, scheduler) = try #require(makeEmpowerAdapter(seed: 3))
    let prices = (1...50).map { loadOnce(adapter, scheduler, loadRequest(auction: $0)).ecpm }
    #expect(Set(prices.compactMap { $0 }).count > 30)
    let (other, otherScheduler) = try #require(makeEmpowerAdapter(seed: 4))
    #expect((1...50).map { loadOnce(other, otherScheduler, loadRequest(auction: $0)).ecpm } != prices)
  }

  @Test func placementsHaveTheirOwnDraws() throws {
    let (adapter, scheduler) = try #require(makeEmpowerAdapter(profile: alwaysComplete))
    let first = (1...20).map { loadOnce(adapter, scheduler, loadRequest("a", auction: $0)).ecpm }
    let second = (1...20).map { loadOnce(adapter, scheduler, loadRequest("b", auction: $0)).ecpm }
    #expect(first != second)
  }

  @Test func vendorAPILoadsAreKeyedByTheZonesLoadCount() {
    func readyPrices(showing: Bool) -> [Double?] {
      let (manager, scheduler) = makeManager(seed: 5, profile: .default)
      manager.configureZone(EmpowerZoneSettings(zoneId: "z"))
      var prices: [Double?] = []
      for _ in 0..<20 {
        let expected = manager.simulatedOutcome(zoneId: "z", auctionID: nil, privacy: PrivacySettings())
        manager.loadRewardedAd(zoneId: "z")
        scheduler.run()
        let price = manager.rewardedECPM(zoneId: "z")
        #expect(price == (try? expected.get()), "simulatedOutcome(nil) answers for the next load")
        prices.append(price)
        if showing {
          manager.showRewarded(zoneId: "z", from: HeadlessPresenter())
          scheduler.run()
        }
        manager.destroyRewardedZone(zoneId: "z")
      }
      return prices
    }
    #expect(readyPrices(showing: false) == readyPrices(showing: true), "shows do not shift load draws")
  }

  @Test func auctionIDZeroMeansNoAuctionID() throws {
    let (adapter, scheduler) = try #require(makeEmpowerAdapter(seed: 9))
    var prices: [Double?] = []
    for _ in 0..<30 {
      let quote = adapter.quote(loadRequest(auction: 0))
      let outcome = loadOnce(adapter, scheduler, loadRequest(auction: 0))
      #expect(quote.fills == (outcome.ecpm != nil))
      #expect(!quote.fills || quote.ecpm == outcome.ecpm)
      prices.append(outcome.ecpm)
    }
    #expect(Set(prices.compactMap { $0 }).count > 15, "successive loads without an auction id differ")
    #expect(adapter.manager.bookkeeping.loadCounts == 1)
  }
}
