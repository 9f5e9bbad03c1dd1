import MediateCLI
import MediationKit
import MediationKitTesting
import Testing

/// Every built-in adapter, with its default (quirky) profile, passes the conformance suite:
/// 300 seeded cycles (and a follow-up cycle each) through a real mediator, plus the refusals.
@Suite("Built-in adapters pass the conformance suite")
struct ConformanceTests {
  static let placements: [NetworkID: String] = [
    "empower": "emp-test", "max": "0123456789abcdef", "google": "ca-app-pub-3940256099942544/1712485313",
  ]

  @Test(arguments: ["empower", "max", "google"] as [NetworkID])
  func conforms(network: NetworkID) throws {
    let registration = try BuiltInNetworks.registry().registration(for: network)
    let placement = try #require(Self.placements[network])
    let report = AdapterConformance.check(registration, placementID: placement, seeds: 1...300)
    #expect(report.passed, "\(report)")
    #expect(
      !report.notRun.contains { $0.name == "consent forwarding" },
      "every built-in adapter reads back its SDK's consent strings")
    #expect(report.cycles == 600)  // a cycle and a follow-up cycle per seed
    #expect(report.fills > 200)
    #expect(report.rewards > 150)
    #expect(report.skips > 0)
    #expect(report.rewards + report.skips + report.showFailures == report.fills)
  }
}

@Suite("Built-in adapters pass the conformance suite under every fault")
struct FaultConformanceTests {
  @Test(arguments: ["empower", "max", "google"] as [NetworkID])
  func conformsUnderEveryFault(network: NetworkID) throws {
    let registration = try BuiltInNetworks.registry().registration(for: network)
    let placement = try #require(ConformanceTests.placements[network])
    for fault in Fault.catalogue(rewardGrace: .seconds(5)) {
      let report = AdapterConformance.check(
        FaultInjection.registration(wrapping: registration, fault: fault), placementID: placement,
        seeds: 1...20)
      #expect(report.passed, "\(network), \(fault): \(report)")
    }
  }
}
