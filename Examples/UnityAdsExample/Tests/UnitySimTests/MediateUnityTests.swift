import Foundation
import MediateCLI
import MediationKit
import MediationKitTesting
import Testing
import UnitySim

/// `mediate-unity` in-process: the built-in registry plus Unity, on the example's `zones.json`,
/// where Unity is priority 0 and MAX and Empower sit below it.
@Suite("mediate-unity")
struct MediateUnityTests {
  /// What `mediate-unity` runs with.
  static func registry() throws -> AdapterRegistry {
    let registry = BuiltInNetworks.registry()
    try registry.register(UnityNetwork.registration())
    return registry
  }

  static let zonesPath = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("zones.json").path

  static func run(_ arguments: [String], registry: AdapterRegistry) -> (
    code: Int32, out: [String], err: [String]
  ) {
    let out = Recorded<String>()
    let err = Recorded<String>()
    let code = MediateCLI.run(
      arguments, registry: registry,
      output: CLIOutput(out: { out.append($0) }, err: { err.append($0) }, stderrIsTerminal: false))
    return (code, out.values, err.values)
  }

  @Test func networksListsUnity() throws {
    let result = Self.run(["networks"], registry: try Self.registry())
    #expect(result.code == 0)
    let text = result.out.joined(separator: "\n")
    #expect(text.contains("unity"))
    #expect(text.contains("Unity Ads"))
  }

  /// The example's adapter declares the adapter API and Unity SDK range it supports, and fits.
  @Test func unityIsCompatibleWithThisMediationKit() throws {
    #expect(AdapterCompatibility.check(UnityNetwork.info) == .compatible)
    #expect(try Self.registry().networkIDs.contains("unity"))
    let text = Self.run(["networks"], registry: try Self.registry()).out.joined(separator: "\n")
    #expect(text.contains("4.12.0-sim   4.0.0..<5.0.0"))
  }

  @Test func plainMediateDoesNotKnowUnity() {
    let result = Self.run(
      ["--config", Self.zonesPath, "--zone", "level_complete", "--networks", "unity,max"],
      registry: BuiltInNetworks.registry())
    #expect(result.code != 0)
  }

  @Test func selectsUnityByNameAndPriority() throws {
    let registry = try Self.registry()
    var unityWins = 0
    var maxWins = 0
    for seed in 1...40 {
      let result = Self.run(
        [
          "--config", Self.zonesPath, "--zone", "level_complete", "--networks", "unity,max", "--seed",
          "\(seed)",
          "--json",
        ], registry: registry)
      #expect(result.code == 0, "seed \(seed): \(result.err)")
      let events = result.out.compactMap { line in
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
      }
      #expect(events.count == result.out.count)
      let names = events.compactMap { $0["event"] as? String }
      guard let ready = events.first(where: { $0["event"] as? String == "ready" }) else { continue }
      let network = ready["network"] as? String
      if network == "unity" { unityWins += 1 }
      if network == "max" { maxWins += 1 }
      // The waterfall tries unity (priority 0) first, and max only after unity failed.
      let waterfall = ready["waterfall"] as? [[String: Any]] ?? []
      #expect(waterfall.first?["network"] as? String == "unity")
      if network == "max" {
        #expect(waterfall.first?["state"] as? String != "loaded", "seed \(seed)")
      }
      // The reward contract, on the printed timeline: one terminal event; rewarded only before closed.
      let terminals = names.filter { ["closed", "skipped", "show_failed"].contains($0) }
      #expect(terminals.count == 1, "seed \(seed): \(names)")
      #expect(names.filter { $0 == "rewarded" }.count <= 1)
      if names.contains("closed") {
        #expect(names.firstIndex(of: "rewarded").map { $0 < names.firstIndex(of: "closed")! } == true)
      }
    }
    #expect(unityWins > 0)
    #expect(unityWins > maxWins)
  }

  @Test func theRewardContractHoldsOnTheExampleZone() throws {
    let data = try #require(FileManager.default.contents(atPath: Self.zonesPath))
    let registry = try Self.registry()
    let config = try MediationConfig.load(data, source: Self.zonesPath, knownNetworks: registry.networkIDs)
    var zone = try config.zone("level_complete")
    zone.autoReload = false
    var rewardsFromUnity = 0
    for seed in UInt64(1)...100 {
      let scheduler = VirtualScheduler()
      let mediator = try Mediator(
        config: MediationConfig(zones: [zone]), registry: registry.subset(["unity", "max"]),
        scheduler: scheduler, options: MediatorOptions(seed: seed))
      let recorder = EventRecorder(mediator)
      let ad = try mediator.rewardedAd(zone: zone.id)
      ad.load()
      scheduler.run(until: .seconds(zone.loadTimeoutSeconds + 1))
      if ad.isReady { try ad.show(from: HeadlessPresenter()) }
      scheduler.run(until: scheduler.now + .seconds(600))
      try RewardContract.verify(recorder.events(zone: zone.id))
      for event in recorder.events where event.network == "unity" {
        if case .rewarded = event.event { rewardsFromUnity += 1 }
      }
    }
    #expect(rewardsFromUnity > 50)
  }
}
