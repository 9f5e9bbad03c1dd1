import BeaconSim
import MediationKit
import MediationKitTesting
import Testing

/// The Beacon adapter keeps the reward contract through a real mediator over many seeds, and
/// under every fault the kit injects.
@Suite("Beacon conformance")
struct BeaconConformanceTests {
  /// Makes the SDK deliver the previous show's late reward and second close, for the kit's
  /// back-to-back scenario.
  static let lateCallbacks = AdapterConformance.LateCallbacks { adapter in
    (adapter as? BeaconAdapter)?.sdk.deliverLateCallbacksOfPreviousShow()
  }

  @Test func keepsTheRewardContractOverManySeeds() {
    let report = AdapterConformance.check(
      BeaconNetwork.registration(), placementID: "rewarded", seeds: 1...300, lateCallbacks: Self.lateCallbacks
    )
    #expect(report.passed, "\(report)")
    // The simulated Beacon SDK has no consent API (it models no personalised demand), so the kit
    // cannot read consent back from it and says so; every other scenario runs.
    #expect(report.notRun.map(\.name) == ["consent forwarding"], "\(report)")
    #expect(
      report.scenarios.first { $0.name == "late callbacks across back-to-back shows" }?.note
        == "2 late callbacks reached the first show, 0 the second, 0 other shows")
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
      seeds: 1...50, lateCallbacks: Self.lateCallbacks)
    #expect(report.passed, "\(fault): \(report)")
  }
}
