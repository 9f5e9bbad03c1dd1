import Foundation
import MediationKit
import MediationKitTesting
import Testing

@testable import MediateCLI

/// The real simulated networks, many seeds: the reward contract holds on every cycle.
@Suite("Reward contract over seeds (built-in networks)")
struct ContractSweepTests {
  static func cycle(zone: String, networks: [NetworkID], seed: UInt64) throws -> [Mediator.ZoneEvent] {
    let registry = BuiltInNetworks.registry()
    let config = try MediationConfig.load(
      Data(DefaultConfig.json.utf8), source: "built-in", knownNetworks: registry.networkIDs)
    var zoneConfig = try config.zone(zone)
    zoneConfig.autoReload = false
    return RunCommand.cycle(
      RunCommand.Settings(zone: zoneConfig, networks: networks, seed: seed, source: "built-in"),
      registry: registry)
  }

  @Test(
    arguments: [
      ("level_complete", ["empower"]), ("level_complete", ["max", "google"]),
      ("daily_bonus", ["empower", "max", "google"]),
      ("extra_life", ["google", "empower", "max"]), ("store_coins", ["google"]),
    ] as [(String, [NetworkID])])
  func everySeedKeepsTheContract(zone: String, networks: [NetworkID]) throws {
    var winners: [NetworkID: Int] = [:]
    var outcomes: [String: Int] = [:]
    for seed in UInt64(1)...300 {
      let events = try Self.cycle(zone: zone, networks: networks, seed: seed)
      try RewardContract.verify(events)
      let names = events.map(\.event.name)
      #expect(names.first == "loading", "seed \(seed)")
      #expect(names.filter { $0 == "ready" || $0 == "failed" }.count == 1, "seed \(seed): \(names)")
      if names.contains("ready") {
        #expect(
          names.filter { ["closed", "skipped", "show_failed"].contains($0) }.count == 1,
          "seed \(seed): \(names)")
      }
      if let winner = events.first(where: { $0.event.name == "ready" })?.network {
        winners[winner, default: 0] += 1
      }
      outcomes[names.last { $0 != "diagnostic" } ?? "", default: 0] += 1
    }
    #expect(outcomes["closed", default: 0] > 150, "\(outcomes)")
    #expect(outcomes["skipped", default: 0] > 0, "\(outcomes)")
    if networks.count > 1 {
      #expect(winners.count > 1, "only \(winners) won for \(zone) over 300 seeds")
    }
  }

  @Test func sameSeedSameTimeline() throws {
    let first = try Self.cycle(zone: "level_complete", networks: ["empower", "max", "google"], seed: 11)
    let second = try Self.cycle(zone: "level_complete", networks: ["empower", "max", "google"], seed: 11)
    #expect(first == second)
  }
}
