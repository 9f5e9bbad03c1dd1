import BeaconSim
import MediationKit
import MediationKitTesting
import Testing

/// The Beacon adapter keeps the reward contract through a real mediator over many seeds, and
/// under every fault the kit injects.
@Suite("Beacon conformance")
struct BeaconConformanceTests {
  @Test func keepsTheRewardContractOverManySeeds() {
    let report = AdapterConformance.check(
      BeaconNetwork.registration(), placementID: "rewarded", seeds: 1...300)
    #expect(report.passed, "\(report)")
    #expect(report.fills > 200)
    #expect(report.rewards > 100)
    #expect(report.skips > 0)
    #expect(report.rewards + report.skips + report.showFailures == report.fills)
  }

  @Test(arguments: Fault.catalogue(rewardGrace: .seconds(5)))
  func keepsItUnderEveryFault(_ fault: Fault) {
    let report = AdapterConformance.check(
      FaultInjection.registration(wrapping: BeaconNetwork.registration(), fault: fault),
      placementID: "rewarded",
      seeds: 1...50)
    #expect(report.passed, "\(fault): \(report)")
  }
}
