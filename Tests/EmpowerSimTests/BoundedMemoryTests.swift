import MediationKit
import MediationKitTesting
import Testing

@testable import EmpowerSim

/// The simulator drives millions of cycles through one adapter: nothing the adapter or its SDK
/// keeps may grow with the number of cycles.
@Suite struct BoundedMemoryTests {
  static let placements = ["p0", "p1", "p2"]

  /// Runs `range` load/show cycles: waterfall loads, won bids, losing bids (never loaded), shows
  /// with the default profile's skips and clicks, changing privacy signals.
  static func runCycles(
    _ range: Range<UInt64>, adapter: EmpowerAdapter, scheduler: VirtualScheduler, counts: inout [String: Int]
  ) {
    let presenter = HeadlessPresenter()
    for cycle in range {
      let privacy = PrivacySettings(hasUserConsent: cycle % 5 != 0, doNotSell: cycle % 7 == 0 ? true : nil)
      var request = loadRequest(Self.placements[Int(cycle % 3)], auction: cycle + 1, privacy: privacy)
      if cycle % 4 < 2 {
        let bids = Recorded<Result<AdapterBid, AdapterError>>()
        _ = adapter.bid(request) { bids.append($0) }
        scheduler.run()
        if cycle % 4 == 0, case .success(let bid)? = bids.all.first {
          request.bid = bid
          counts["bidLoads", default: 0] += 1
        } else {
          counts["lostBids", default: 0] += 1
        }
      }
      let loads = Recorded<Result<AdapterLoadedAd, AdapterError>>()
      _ = adapter.load(request) { loads.append($0) }
      scheduler.run()
      guard case .success(let loaded)? = loads.all.first else {
        counts["failed", default: 0] += 1
        continue
      }
      let signals = Recorded<AdapterSignal>()
      loaded.ad.show(
        AdapterShowRequest(zoneID: "app-zone"), from: presenter,
        signals: AdapterSignal.Sink { signals.append($0) })
      scheduler.run()
      loaded.ad.discard()
      counts[signals.all.contains(.dismissed) ? "shown" : "showFailed", default: 0] += 1
    }
  }

  @Test func twentyThousandCyclesKeepTheBookkeepingBounded() throws {
    let (adapter, scheduler) = try #require(makeEmpowerAdapter(seed: 2024))
    let limit = EmpowerBehaviorProfile.default.maxOutstandingBids
    var counts: [String: Int] = [:]
    Self.runCycles(0..<5_000, adapter: adapter, scheduler: scheduler, counts: &counts)
    let early = adapter.manager.bookkeeping
    Self.runCycles(5_000..<20_000, adapter: adapter, scheduler: scheduler, counts: &counts)
    let late = adapter.manager.bookkeeping

    #expect(counts["shown", default: 0] > 10_000)
    #expect(counts["bidLoads", default: 0] > 3_000)
    #expect(counts["lostBids", default: 0] > 5_000)
    #expect(counts["failed", default: 0] > 0)
    #expect(counts["showFailed", default: 0] == 0)

    var settled = late
    settled.openBids = early.openBids  // bids come and go; the ring caps them
    #expect(settled == early, "nothing grew between cycle 5,000 and cycle 20,000")
    #expect(late.zones == 0, "idle zones are destroyed")
    #expect(late.dashboardEntries == Self.placements.count)
    #expect(late.showStreams <= Self.placements.count)
    #expect(late.loadCounts == 0, "every load had an auction id")
    #expect(late.openBids <= limit && late.bidRing <= limit)
    let routers = adapter.routerBookkeeping
    #expect(routers.routers == Self.placements.count)
    #expect(routers.pendingLoads == 0 && routers.heldAds == 0)
    #expect(scheduler.pendingCount == 0)
  }
}
