import GoogleSim
import MediationKit
import MediationKitTesting
import Testing

/// The Google adapter, with its default (quirky) profile, keeps the reward contract through a real
/// mediator over many seeds.
@Suite("Google conformance")
struct GoogleConformanceTests {
  @Test func keepsTheRewardContractOverManySeeds() {
    let report = AdapterConformance.check(
      GoogleNetwork.registration(), placementID: "ca-app-pub-3940256099942544/1712485313", seeds: 1...300)
    #expect(report.passed, "\(report)")
    #expect(report.cycles == 600)  // a cycle and a follow-up cycle per seed
    #expect(report.fills > 200)
    #expect(report.rewards > 150)
    #expect(report.skips > 0)
    #expect(report.rewards + report.skips + report.showFailures == report.fills)
  }
}
