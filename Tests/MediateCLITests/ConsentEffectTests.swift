import MediateCLI
import MediationKit
import MediationKitSimulation
import MediationKitTesting
import Testing

/// The simulated networks honour TCF purpose 1: where GDPR applies, a TC string without purpose 1
/// consent gets the non-personalised demand a refused consent flag gets, through the SDK's own
/// load path, and the simulator's oracle agrees.
@Suite("Simulated networks honour TCF purpose 1")
struct ConsentEffectTests {
  /// A core string consenting to purposes 2 and 3 only, and one consenting to 1, 2, 3, 4 and 7.
  static let withoutPurposeOne = "CP1R2oAP1R2oAEsABBENCWEgAGAAAAAAAAYgAAAAAAAA"
  static let withPurposeOne = "CP1R2oAP1R2oAEsABBENCWEgAPIAAAAAAAYgAAAAAAAA"

  static let placements: [NetworkID: String] = [
    "empower": "emp-test", "max": "0123456789abcdef", "google": "ca-app-pub-3940256099942544/1712485313",
  ]

  /// What `loads` loads of the placement do under `privacy`, on a fresh adapter with seed 5: each
  /// load's eCPM (the oracle's price, which the loaded ad reports where the network reports one),
  /// or 0 when the load did not fill.
  static func outcomes(_ network: NetworkID, _ privacy: PrivacySettings, loads: Int = 60) throws -> [Double] {
    let registration = try BuiltInNetworks.registry().registration(for: network)
    let scheduler = VirtualScheduler()
    let adapter = try #require(
      registration.makeAdapter(
        AdapterEnvironment(scheduler: scheduler, random: SeededRandom(seed: 5).derived(network.rawValue)))
        as? any SimulatedNetwork)
    adapter.start(AdapterStartRequest(placementIDs: [])) { _ in }
    scheduler.run(until: .seconds(30))
    adapter.privacyDidChange(privacy)
    var ecpms: [Double] = []
    for auction in 1...UInt64(loads) {
      let request = AdapterLoadRequest(
        zoneID: "z", placementID: placements[network]!, ecpm: 10,
        reward: AdapterSignal.NetworkReward(type: "coins", amount: 1),
        auctionID: auction, privacy: privacy)
      let recorder = LoadRecorder()
      let quote = adapter.quote(request)
      _ = adapter.load(request, completion: recorder.completion)
      scheduler.run(until: scheduler.now + .seconds(60))
      let loaded = recorder.ad
      #expect(
        (loaded != nil) == quote.fills, "\(network) auction \(auction): the SDK and the oracle disagree")
      if let reported = loaded?.ecpm { #expect(reported == quote.ecpm, "\(network) auction \(auction)") }
      loaded?.ad.discard()
      ecpms.append(loaded == nil ? 0 : quote.ecpm)
    }
    return ecpms
  }

  @Test(arguments: ["empower", "max", "google"] as [NetworkID])
  func noPurposeOneConsentIsNonPersonalisedDemand(network: NetworkID) throws {
    let consentDenied = try Self.outcomes(network, PrivacySettings(hasUserConsent: false))
    let tcfDenied = try Self.outcomes(
      network, PrivacySettings(iab: IABConsent(tcString: Self.withoutPurposeOne, gdprApplies: true)))
    let tcfGranted = try Self.outcomes(
      network, PrivacySettings(iab: IABConsent(tcString: Self.withPurposeOne, gdprApplies: true)))
    let notInScope = try Self.outcomes(
      network, PrivacySettings(iab: IABConsent(tcString: Self.withoutPurposeOne, gdprApplies: false)))
    let unrestricted = try Self.outcomes(network, PrivacySettings())
    #expect(tcfDenied == consentDenied, "\(network): a TC string without purpose 1 acts as refused consent")
    #expect(tcfGranted == unrestricted, "\(network): purpose 1 consent restricts nothing")
    #expect(notInScope == unrestricted, "\(network): outside GDPR the TC string does not apply")
    #expect(tcfDenied.reduce(0, +) < unrestricted.reduce(0, +), "\(network): less revenue without consent")
  }
}
