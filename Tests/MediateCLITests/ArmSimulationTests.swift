import Foundation
import MediationKit
import Testing

@testable import MediateCLI

/// The simulator and the event output on a zone with an A/B test: `control` runs the zone's
/// four line items, `floor_only` only its lowest one.
@Suite("Simulator: A/B test arms")
struct ArmSimulationTests {
  static let lineItems = """
    { "network": "empower", "placementId": "emp-level-complete-high", "priority": 0, "ecpm": 14.0, "timeoutSeconds": 8 },
    { "network": "max", "placementId": "b3f1c0d2e4a59687", "priority": 0, "ecpm": 12.5, "timeoutSeconds": 8 },
    { "network": "google", "placementId": "ca-app-pub-3940256099942544/1712485313", "priority": 1, "ecpm": 9.0, "timeoutSeconds": 8 },
    { "network": "empower", "placementId": "emp-level-complete-floor", "priority": 2, "ecpm": 3.0, "timeoutSeconds": 8 }
    """

  static func config(floorNetwork: String = "empower") -> String {
    """
    { "zones": [ { "id": "level_complete", "reward": { "type": "coins", "amount": 100 },
      "loadTimeoutSeconds": 30, "adExpirySeconds": 3600, "rewardGraceSeconds": 5, "autoReload": true,
      "experiments": [ { "id": "waterfall-test", "arms": [
         { "id": "control", "weight": 1 },
         { "id": "floor_only", "weight": 1, "lineItems": [
            { "network": "\(floorNetwork)", "placementId": "emp-level-complete-floor", "priority": 0, "ecpm": 3.0, "timeoutSeconds": 8 } ] } ] } ],
      "lineItems": [\(lineItems)] } ] }
    """
  }

  static func configFile(_ json: String = config()) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("arms-\(UUID().uuidString).json")
      .path
    try Data(json.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  static func report(seed: Int = 1, requests: Int = 12_000) throws -> [String: Any] {
    let path = try configFile()
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try SimulatorTests.report([
      "--config", path, "--zone", "level_complete", "--requests", "\(requests)", "--seed", "\(seed)",
    ])
  }

  static func arms(_ report: [String: Any]) throws -> [String: [String: Any]] {
    try #require(report["arms"] as? [String: [String: Any]])
  }

  @Test func theJSONReportHasAnArmsObjectWithThePlainReportsKeys() throws {
    let report = try Self.report()
    #expect(Set(report.keys) == SimulatorTests.keys.union(["arms"]))
    let arms = try Self.arms(report)
    #expect(Set(arms.keys) == ["control", "floor_only"])
    for (_, figures) in arms { #expect(Set(figures.keys) == SimulatorTests.keys) }
  }

  @Test func perArmFiguresSumToTheTotal() throws {
    let report = try Self.report()
    let arms = try Self.arms(report).values
    for key in ["requests", "shows", "rewards", "skips"] {
      #expect(arms.map { $0[key] as? Int ?? -1 }.reduce(0, +) == report[key] as? Int, "\(key)")
    }
    for key in ["revenue_usd", "oracle_revenue_usd"] {
      let sum = arms.map { $0[key] as? Double ?? -1 }.reduce(0, +)
      #expect(abs(sum - (report[key] as? Double ?? 0)) < 1e-5, "\(key)")
    }
    var wins: [String: Int] = [:]
    for arm in arms { wins.merge(arm["wins"] as? [String: Int] ?? [:], uniquingKeysWith: +) }
    #expect(wins == report["wins"] as? [String: Int])
  }

  @Test func theFiguresAreDeterministicUnderASeed() throws {
    func figures(_ report: [String: Any]) -> String {
      var report = report
      report["wall_s"] = nil
      report["requests_per_s"] = nil
      var arms = report["arms"] as? [String: [String: Any]] ?? [:]
      for key in arms.keys {
        arms[key]?["wall_s"] = nil
        arms[key]?["requests_per_s"] = nil
      }
      report["arms"] = arms
      return JSONLine.encode(report)
    }
    let first = figures(try Self.report(seed: 3))
    #expect(first == figures(try Self.report(seed: 3)))
    #expect(first != figures(try Self.report(seed: 4)))
  }

  @Test func theArmWithTheBetterLineItemsEarnsMore() throws {
    let arms = try Self.arms(try Self.report())
    let control = try #require(arms["control"]?["revenue_usd"] as? Double)
    let floorOnly = try #require(arms["floor_only"]?["revenue_usd"] as? Double)
    #expect(control > 2 * floorOnly)
    // The floor-only arm can only ever fill on its one line item.
    #expect(
      arms["floor_only"]?["wins"] as? [String: Int] == ["empower": arms["floor_only"]?["shows"] as? Int ?? -1]
    )
  }

  /// Requests are split by each simulated user's arm: in proportion to the weights, within the
  /// sampling noise of 10,000 users, and every request counted once.
  @Test func requestsAreSplitInProportionToTheWeights() throws {
    var zone = try MediationConfig.load(Data(Self.config().utf8), source: "t").zone("level_complete")
    zone.experiments[0].arms[1].weight = 3
    let split = ArmSimulation.split(zone: zone, requests: 100_000, seed: 9)
    #expect(split.map(\.requests).reduce(0, +) == 100_000)
    #expect(split.map(\.arms) == [["control"], ["floor_only"]])
    let share = Double(split[1].requests) / 100_000
    #expect(abs(share - 0.75) < 0.03, "\(share)")
    #expect(
      ArmSimulation.split(zone: zone, requests: 100_000, seed: 9).map(\.requests) == split.map(\.requests))
  }

  @Test func textOutputPrintsAPerArmTable() throws {
    let path = try Self.configFile()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let result = mediate(
      ["--config", path, "--zone", "level_complete", "--requests", "4000"],
      registry: BuiltInNetworks.registry())
    #expect(result.code == 0, "\(result.err)")
    let text = result.out.joined(separator: "\n")
    #expect(text.contains("Arms of experiment 'waterfall-test'"))
    #expect(text.contains("ARM         REQUESTS  FILL"))
    #expect(result.out.contains { $0.hasPrefix("  control ") })
    #expect(result.out.contains { $0.hasPrefix("  floor_only ") })
  }

  @Test func aZoneWithoutExperimentsHasNoArms() throws {
    let report = try SimulatorTests.report(["--zone", "level_complete", "--requests", "3000"])
    #expect(report["arms"] == nil)
    let text = mediate(
      ["--zone", "level_complete", "--requests", "3000"], registry: BuiltInNetworks.registry())
    #expect(!text.out.joined().contains("Arms of"))
  }

  @Test func theEventOutputShowsTheUsersArms() throws {
    let path = try Self.configFile()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let experiment = try MediationConfig.load(Data(Self.config().utf8), source: "t").zone("level_complete")
      .experiments[0]
    let user = try #require(
      (0..<1000).map { "user-\($0)" }.first { experiment.arm(forUser: $0)?.id == "floor_only" })
    let result = mediate(["--config", path, "--zone", "level_complete", "--user-id", user, "--json"])
    #expect(result.code == 0, "\(result.err)")
    let events = try result.out.map {
      try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    let ready = try #require(events.first { $0["event"] as? String == "ready" })
    #expect(ready["placement"] as? String == "emp-level-complete-floor")
    for name in ["ready", "shown", "revenue_paid", "rewarded"] {
      let event = try #require(events.first { $0["event"] as? String == name }, "\(name)")
      #expect(event["arms"] as? [String: String] == ["waterfall-test": "floor_only"], "\(name)")
    }
    // Without a user id the zone runs as configured, and no event names an arm.
    let plain = mediate(["--config", path, "--zone", "level_complete", "--json"])
    #expect(!plain.out.contains { $0.contains("\"arms\"") })
  }

  @Test func anArmNamingAnUnknownNetworkIsAClearValidationError() throws {
    let path = try Self.configFile(Self.config(floorNetwork: "unity"))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let result = mediate(["--config", path, "--zone", "level_complete", "--requests", "100"])
    #expect(result.code != 0)
    #expect(
      result.err.joined().contains(
        "zones[0].experiments[0].arms[1].lineItems[0].network: unknown network 'unity'"), "\(result.err)")
  }
}

@Suite("bench-apply --experiments")
struct BenchApplyExperimentsTests {
  @Test func experimentsAddTheUserChangeTimingAndKeepEveryZoneReady() throws {
    let result = mediate(
      ["bench-apply", "--cycles", "2", "--experiments", "--json"], registry: BuiltInNetworks.registry())
    #expect(result.code == 0, "\(result.err)")
    let line = try #require(result.out.first)
    let report = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    #expect(report["experiments"] as? Bool == true)
    #expect(report["set_user_median_ms"] is Double)
    #expect(report["applies"] as? Int == 2)
  }

  @Test func withoutTheFlagTheReportIsUnchanged() throws {
    let result = mediate(["bench-apply", "--cycles", "2", "--json"], registry: BuiltInNetworks.registry())
    let line = try #require(result.out.first)
    let report = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    #expect(
      Set(report.keys) == [
        "zones", "line_items_per_zone", "applies", "zones_ready_before", "median_ms", "p99_ms", "max_ms",
        "cpu_median_ms",
      ])
  }
}
