import MediationKit
import Testing

@testable import EmpowerSim

/// The SDK honours the privacy signals set through `EMASettings`, as documented on
/// `EmpowerBehaviorProfile`, and the adapter forwards each request's signals there.
@Suite struct PrivacyTests {
  static let auctions = UInt64(1)...2_000

  /// Loads every auction through the SDK's simulation-wiring load, with `configure` applied to the
  /// manager's settings, and returns each auction's price (`nil`: no fill).
  static func prices(_ configure: (EMASettings) -> Void = { _ in }) -> [Double?] {
    let (manager, scheduler) = makeManager(seed: 17, profile: .default)
    configure(manager.settings)
    manager.configureZone(EmpowerZoneSettings(zoneId: "z", baseECPM: 10))
    return auctions.map { auction in
      manager.loadRewardedAd(zoneId: "z", delegate: nil, simulation: EMASimulatedRequest(auctionID: auction))
      scheduler.run()
      defer { manager.destroyRewardedZone(zoneId: "z") }
      return manager.rewardedECPM(zoneId: "z")
    }
  }

  /// Checks that `prices` fill on a subset of `baseline`'s auctions, in about `fillFactor` of them,
  /// each at `priceFactor` times the baseline price (to the cent).
  static func expect(
    _ prices: [Double?], against baseline: [Double?], fillFactor: Double, priceFactor: Double,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    var filled = 0
    var baselineFilled = 0
    for (price, base) in zip(prices, baseline) {
      if base != nil { baselineFilled += 1 }
      guard let price else { continue }
      filled += 1
      guard let base else {
        Issue.record("filled where the baseline did not", sourceLocation: sourceLocation)
        continue
      }
      #expect(abs(price - base * priceFactor) <= 0.011, "\(price) vs \(base)", sourceLocation: sourceLocation)
    }
    let ratio = Double(filled) / Double(baselineFilled)
    #expect(abs(ratio - fillFactor) < 0.04, "fill ratio \(ratio)", sourceLocation: sourceLocation)
  }

  @Test func theDefaultsAreDocumented() {
    let profile = EmpowerBehaviorProfile.default
    #expect(profile.noConsentFillFactor == 0.85 && profile.noConsentPriceFactor == 0.6)
    #expect(profile.doNotSellPriceFactor == 0.8)
    #expect(profile.childDirectedFillFactor == 0.7 && profile.childDirectedPriceFactor == 0.5)
    let settings = EMASettings()
    #expect(settings.hasUserConsent == nil && settings.doNotSell == nil && !settings.isChildDirected)
  }

  @Test func consentGivenOrNotAskedChangesNothing() {
    let baseline = Self.prices()
    #expect(Self.prices { $0.hasUserConsent = true } == baseline)
    #expect(Self.prices { $0.doNotSell = false } == baseline)
  }

  @Test func noConsentMeansFewerFillsAndNonPersonalizedPrices() {
    Self.expect(
      Self.prices { $0.hasUserConsent = false }, against: Self.prices(), fillFactor: 0.85, priceFactor: 0.6)
  }

  @Test func doNotSellLowersPricesOnly() {
    Self.expect(Self.prices { $0.doNotSell = true }, against: Self.prices(), fillFactor: 1, priceFactor: 0.8)
  }

  @Test func childDirectedMeansFewerFillsAndLowerPrices() {
    Self.expect(
      Self.prices { $0.isChildDirected = true }, against: Self.prices(), fillFactor: 0.7, priceFactor: 0.5)
  }

  @Test func theFactorsMultiply() {
    let all = Self.prices {
      $0.hasUserConsent = false
      $0.doNotSell = true
      $0.isChildDirected = true
    }
    Self.expect(all, against: Self.prices(), fillFactor: 0.85 * 0.7, priceFactor: 0.6 * 0.8 * 0.5)
  }

  @Test func theAdapterForwardsEachRequestsSignalsToTheSDK() throws {
    let (adapter, scheduler) = try #require(makeEmpowerAdapter(profile: alwaysComplete))
    let settings = adapter.manager.settings
    _ = loadOnce(adapter, scheduler, loadRequest(auction: 1, privacy: PrivacySettings(hasUserConsent: false)))
    #expect(settings.hasUserConsent == false && settings.doNotSell == nil && !settings.isChildDirected)
    _ = adapter.bid(loadRequest(auction: 2, privacy: PrivacySettings(doNotSell: true, isChildDirected: true)))
    { _ in }
    scheduler.run()
    #expect(settings.hasUserConsent == nil && settings.doNotSell == true && settings.isChildDirected)
    _ = loadOnce(adapter, scheduler, loadRequest(auction: 3))
    #expect(settings.privacy == PrivacySettings())
    #expect(EMASettings.shared.privacy == PrivacySettings(), "an adapter never touches the shared settings")
  }

  @Test func theAdaptersLoadsHonourTheRequestsSignals() throws {
    let (adapter, scheduler) = try #require(makeEmpowerAdapter(profile: alwaysComplete, seed: 6))
    for auction in UInt64(1)...100 {
      let personalized = try #require(loadOnce(adapter, scheduler, loadRequest(auction: auction)).ecpm)
      let request = loadRequest(
        auction: auction, privacy: PrivacySettings(hasUserConsent: true, doNotSell: true))
      let optedOut = try #require(loadOnce(adapter, scheduler, request).ecpm)
      #expect(abs(optedOut - personalized * 0.8) <= 0.011)
    }
  }
}
