import MediationKit
import MediationKitSimulation
import Testing

@testable import EmpowerSim

/// `quote(_:)` says exactly what a load of the request would do, without side effects.
@Suite struct QuoteTests {
  static let privacies = [
    PrivacySettings(),
    PrivacySettings(hasUserConsent: true, doNotSell: false),
    PrivacySettings(hasUserConsent: false),
    PrivacySettings(doNotSell: true),
    PrivacySettings(isChildDirected: true),
    PrivacySettings(hasUserConsent: false, doNotSell: true, isChildDirected: true),
  ]

  @Test func theAdapterIsASimulatedNetwork() throws {
    let (adapter, _) = try #require(makeEmpowerAdapter())
    #expect((adapter as Any) is any SimulatedNetwork)
  }

  @Test(arguments: privacies)
  func quoteEqualsTheLoadFor500Auctions(privacy: PrivacySettings) throws {
    let (adapter, scheduler) = try #require(makeEmpowerAdapter(seed: 21))
    var fills = 0
    var kinds: Set<String> = []
    for auction in UInt64(1)...500 {
      let request = loadRequest(auction: auction * 7919, privacy: privacy)
      let quote = adapter.quote(request)
      #expect(adapter.quote(request) == quote, "quoting twice gives the same answer")
      let outcome = loadOnce(adapter, scheduler, request)
      #expect(quote.fills == (outcome.ecpm != nil), "auction \(auction)")
      if quote.fills {
        fills += 1
        #expect(quote.ecpm == outcome.ecpm, "auction \(auction)")
      } else {
        kinds.insert("\(outcome.errorKind.map { "\($0)" } ?? "none")")
      }
    }
    #expect(fills > 150 && fills < 500)
    #expect(kinds.contains("noFill"))
  }

  @Test func quotingHasNoSideEffects() throws {
    let (adapter, scheduler) = try #require(makeEmpowerAdapter(seed: 2))
    let before = adapter.manager.bookkeeping
    for auction in UInt64(1)...100 {
      _ = adapter.quote(loadRequest("never-loaded", auction: auction))
      _ = adapter.quote(loadRequest("never-loaded", auction: 0))
    }
    #expect(adapter.manager.bookkeeping == before)
    #expect(adapter.manager.zoneSettings(zoneId: "never-loaded") == nil, "quote configures nothing")
    #expect(scheduler.pendingCount == 0)
    #expect(adapter.manager.settings.hasUserConsent == nil)
  }

  @Test func quoteUsesTheRequestsEcpmForAnUnseenPlacement() throws {
    let (adapter, scheduler) = try #require(makeEmpowerAdapter(profile: alwaysComplete))
    let request = loadRequest("fresh", auction: 5, ecpm: 40)
    let quote = adapter.quote(request)
    #expect(quote.fills && quote.ecpm > 15)
    #expect(loadOnce(adapter, scheduler, request).ecpm == quote.ecpm)
  }
}
