import MediationKit
import MediationKitTesting
import Testing
import UnitySim

/// The Unity adapter keeps the reward contract through a real mediator over many seeds, with
/// fills, rewards and skips all exercised.
@Suite("Unity conformance")
struct UnityConformanceTests {
  @Test func keepsTheRewardContractOverManySeeds() {
    let report = AdapterConformance.check(
      UnityNetwork.registration(), placementID: "Rewarded_iOS", seeds: 1...300)
    #expect(report.passed, "\(report)")
    #expect(report.cycles >= 300)  // newer suites add a follow-up cycle per seed
    #expect(report.fills > 200)
    #expect(report.rewards > 150)
    #expect(report.skips > 0)
    #expect(report.rewards + report.skips + report.showFailures == report.fills)
    // The example's adapter sends the consent booleans with each load as Unity metadata and cannot
    // read back what the SDK holds, so the kit says it did not check consent forwarding.
    #expect(report.notRun.contains { $0.name == "consent forwarding" })
  }

  @Test func keepsItWithAQuirkyProfile() {
    // Frequent player errors, skips and clicks, instant skips.
    let profile = UnityBehaviorProfile(
      fillRate: 0.9, videoPlayerErrorRate: 0.2, skipRate: 0.5, earliestSkip: .zero, clickRate: 0.5)
    let report = AdapterConformance.check(
      UnityNetwork.registration(profile: profile), placementID: "Rewarded_iOS", seeds: 1...300)
    #expect(report.passed, "\(report)")
    #expect(report.showFailures > 0)
    #expect(report.rewards > 0)
    #expect(report.skips > 0)
  }
}
