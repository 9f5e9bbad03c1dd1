import GoogleSim
import MediationKit
import MediationKitTesting
import Testing

/// The Google adapter, with its default (quirky) profile, keeps the reward contract through a real
/// mediator over many seeds.
@Suite("Google conformance")
struct GoogleConformanceTests {
  @Test func keepsTheRewardContractOverManySeeds() throws {
    let report = try AdapterConformance.run(
      GoogleNetwork.registration(), placementID: "ca-app-pub-3940256099942544/1712485313", seeds: 1...300)
    #expect(report.cycles == 300)
    #expect(report.fills > 200)
    #expect(report.rewards > 150)
    #expect(report.skips > 0)
    #expect(report.rewards + report.skips + report.showFailures == report.fills)
  }
}
