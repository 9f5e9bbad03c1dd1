import MediationKit
import MediationKitTesting
import Testing

/// The `consent-forwarded` invariant over random sequences: privacy changes (booleans and IAB
/// strings), interleaved with loads and virtual time, reach every adapter at once.
@Suite("Consent forwarding, over random change sequences")
struct ConsentPropertyTests {
  /// No string, a TC string consenting to no purpose, one consenting to purposes 1–4 and 7.
  static let tcStrings: [String?] = [nil, TCStrings.noPurposes, TCStrings.purposes12347]

  @Test(arguments: 1...100 as ClosedRange<UInt64>)
  func everyChangeReachesEveryAdapterAtOnce(seed: UInt64) throws {
    var random = SeededRandom(seed: seed)
    let fills: [ScriptedAdapter.LoadScript] = [.fill(after: .milliseconds(200))]
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 5), item("b", "b1", ecpm: 4)])],
      scripts: ["a": ["a1": fills], "b": ["b1": fills]])
    let ad = try harness.mediator.rewardedAd(zone: "z")
    for step in 0..<30 {
      switch random.next() % 3 {
      case 0:
        let tcString = Self.tcStrings[Int(random.next() % 3)]
        harness.mediator.updatePrivacy { privacy in
          privacy.hasUserConsent = random.chance(0.5)
          privacy.iab = IABConsent(
            tcString: tcString, gdprApplies: random.chance(0.5),
            gppString: random.chance(0.5) ? "DBABMA~x" : nil, gppSectionIDs: random.chance(0.5) ? [2] : [],
            usPrivacyString: random.chance(0.5) ? "1YNN" : nil)
        }
        // At once: before any virtual time passes.
        let wanted = harness.mediator.privacy
        for (id, adapter) in harness.adapters {
          #expect(
            adapter.consentInSDK == wanted.iab,
            "seed \(seed) step \(step): \(id) holds \(adapter.consentInSDK)")
        }
      case 1:
        ad.load()
      default:
        harness.scheduler.advance(by: .milliseconds(Int64(random.next() % 1000)))
      }
    }
  }
}
