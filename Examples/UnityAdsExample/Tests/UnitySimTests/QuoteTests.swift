import MediationKit
import MediationKitTesting
import Testing
import UnitySim

/// `quote` (the simulator's oracle) says exactly what a keyed load of the request does.
@Suite("Unity quote")
struct UnityQuoteTests {
  @Test(arguments: [PrivacySettings(), PrivacySettings(hasUserConsent: false, isChildDirected: true)])
  func quoteMatchesTheLoad(privacy: PrivacySettings) throws {
    var fills = 0
    for auctionID in UInt64(1)...200 {
      let scheduler = VirtualScheduler()
      let adapter = try #require(
        UnityNetwork.registration().makeAdapter(
          AdapterEnvironment(scheduler: scheduler, random: SeededRandom(seed: 42))) as? UnityAdapter)
      adapter.start(AdapterStartRequest(placementIDs: [])) { _ in }
      scheduler.run()
      let request = AdapterLoadRequest(
        zoneID: "z", placementID: "Rewarded_iOS", ecpm: 12,
        reward: AdapterSignal.NetworkReward(type: "coins", amount: 1),
        auctionID: auctionID, privacy: privacy)
      let quote = adapter.quote(request)
      let recorder = LoadRecorder()
      _ = adapter.load(request, completion: recorder.completion)
      scheduler.run()
      #expect(quote.fills == (recorder.ad != nil), "auction \(auctionID)")
      if quote.fills {
        fills += 1
        #expect(quote.ecpm == 12)
      }
    }
    #expect(fills > 50)
    #expect(fills < 200)
  }
}
