import EmpowerSim
import MediationKit
import MediationKitTesting
import Testing

/// The Empower adapter, with its default (quirky) profile, keeps the reward contract through a real
/// mediator over many seeds.
@Suite("Empower conformance")
struct EmpowerConformanceTests {
  @Test func keepsTheRewardContractOverManySeeds() {
    let report = AdapterConformance.check(
      EmpowerNetwork.registration(), placementID: "emp-test", seeds: 1...300)
    #expect(report.passed, "\(report)")
    #expect(report.cycles == 600)  // a cycle and a follow-up cycle per seed
    #expect(report.fills > 200)
    #expect(report.rewards > 150)
    #expect(report.skips > 0)
    #expect(report.rewards + report.skips + report.showFailures == report.fills)
  }
}
