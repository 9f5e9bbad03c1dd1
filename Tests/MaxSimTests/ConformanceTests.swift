import MaxSim
import MediationKit
import MediationKitTesting
import Testing

/// The Max adapter, with its default (quirky) profile, keeps the reward contract through a real
/// mediator over many seeds.
@Suite("Max conformance")
struct MaxConformanceTests {
  @Test func keepsTheRewardContractOverManySeeds() throws {
    let report = try AdapterConformance.run(
      MaxNetwork.registration(), placementID: "0123456789abcdef", seeds: 1...300)
    #expect(report.cycles == 300)
    #expect(report.fills > 200)
    #expect(report.rewards > 150)
    #expect(report.skips > 0)
    #expect(report.rewards + report.skips + report.showFailures == report.fills)
  }
}
