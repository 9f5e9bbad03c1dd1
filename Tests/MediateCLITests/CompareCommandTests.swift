import Foundation
import MediationKit
import Testing

@testable import MediateCLI

/// `mediate compare`: paired replications on the built-in networks, the report, and bad input.
@Suite("mediate compare")
struct CompareCommandTests {
  /// The built-in `level_complete` zone as a file (A), and the same with its best Empower line
  /// item demoted to the second tier (B, which earns less).
  static let files: (builtIn: String, demoted: String) = {
    let builtIn = mediate(["config", "--zone", "level_complete"]).out.joined(separator: "\n")
    let demoted = builtIn.replacingOccurrences(
      of: #""emp-level-complete-high", "priority": 0"#, with: #""emp-level-complete-high", "priority": 1"#)
    precondition(demoted != builtIn)
    return (temporaryFile(builtIn), temporaryFile(demoted))
  }()

  static func compare(_ arguments: [String]) throws -> [String: Any] {
    let result = mediate(["compare"] + arguments + ["--json"], registry: BuiltInNetworks.registry())
    #expect(result.code == 0, "\(result.err)")
    let line = try #require(result.out.first)
    return try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
  }

  static func delta(_ report: [String: Any], _ metric: String) throws -> (diff: Double, ci: [Double]?) {
    let deltas = try #require(report["delta"] as? [String: Any])
    let object = try #require(deltas[metric] as? [String: Any])
    return (try #require(object["diff"] as? Double), object["ci95"] as? [Double])
  }

  @Test func identicalConfigurationsShowNoSignificantDifference() throws {
    let file = Self.files.builtIn
    let report = try Self.compare([file, file, "--requests", "2000", "--replications", "4"])
    #expect(report["verdict"] as? String == "no_significant_difference")
    for metric in ComparedMetric.allCases {
      let delta = try Self.delta(report, metric.rawValue)
      let ci = try #require(delta.ci)
      #expect(ci.count == 2 && ci[0] <= 0 && 0 <= ci[1], "\(metric)")
      #expect(delta.diff == 0)
    }
    #expect(Set(try #require(report["a"] as? [String: Any]).keys) == SimulatorTests.keys)
    #expect(Set(try #require(report["b"] as? [String: Any]).keys) == SimulatorTests.keys)
    #expect((report["a"] as? [String: Any])?["requests"] as? Int == 8000)
  }

  @Test func aWorseWaterfallIsCaughtWithItsInterval() throws {
    let (builtIn, demoted) = Self.files
    let report = try Self.compare([demoted, builtIn, "--requests", "2000", "--replications", "5"])
    #expect(report["verdict"] as? String == "b_better")
    let revenue = try Self.delta(report, "revenue_usd")
    let ci = try #require(revenue.ci)
    #expect(0 < ci[0] && ci[0] <= revenue.diff && revenue.diff <= ci[1])
    // For totals the difference is B − A as reported.
    let a = try #require((report["a"] as? [String: Any])?["revenue_usd"] as? Double)
    let b = try #require((report["b"] as? [String: Any])?["revenue_usd"] as? Double)
    #expect(abs((b - a) - revenue.diff) < 1e-4)
    let swapped = try Self.compare([builtIn, demoted, "--requests", "2000", "--replications", "5"])
    #expect(swapped["verdict"] as? String == "a_better")

    let text = mediate(
      ["compare", demoted, builtIn, "--requests", "2000", "--replications", "5"],
      registry: BuiltInNetworks.registry())
    #expect(text.code == 0)
    let verdict = try #require(text.out.first { $0.hasPrefix("B earns +") })
    #expect(verdict.contains("% revenue (95% CI +") && verdict.contains(", p99 ready "), "\(verdict)")
    #expect(text.out.contains { $0.hasPrefix("  revenue ") })
  }

  @Test func oneReplicationHasNoInterval() throws {
    let (builtIn, demoted) = Self.files
    let report = try Self.compare([demoted, builtIn, "--requests", "1000", "--replications", "1"])
    #expect(report["verdict"] as? String == "no_significant_difference")
    let deltas = try #require(report["delta"] as? [String: [String: Any]])
    #expect(deltas["revenue_usd"]?["ci95"] is NSNull)
    let text = mediate(
      ["compare", demoted, builtIn, "--requests", "1000", "--replications", "1"],
      registry: BuiltInNetworks.registry())
    #expect(text.out.contains { $0.contains("unavailable (1 replication)") })
    #expect(text.out.contains { $0.hasPrefix("No verdict with 1 replication") })
  }

  @Test func reportIsWrittenNextToThePrintedComparison() throws {
    let (builtIn, demoted) = Self.files
    let path = NSTemporaryDirectory() + "mediate-compare-\(UUID().uuidString).html"
    let result = mediate(
      ["compare", demoted, builtIn, "--requests", "1000", "--replications", "2", "--report", path],
      registry: BuiltInNetworks.registry())
    #expect(result.code == 0)
    #expect(result.err == ["report: \(path)"])
    let html = try String(contentsOfFile: path, encoding: .utf8)
    #expect(html.contains(HTMLReport.Title.deltas) && html.contains(HTMLReport.Title.funnel))
    let verdict = try #require(result.out.first { $0.hasPrefix("B earns") })
    #expect(html.contains(SVG.escape(verdict)))

    let nowhere = mediate(["compare", builtIn, builtIn, "--report", "/nonexistent/dir/c.html"])
    #expect(nowhere.code == ExitCode.ioError)
    #expect(nowhere.out.isEmpty)
  }

  /// Replication r of A and of B run on the same seed, N + r.
  @Test func bothSidesOfAReplicationShareItsSeed() throws {
    let zones = try MediationConfig.load(Data(DefaultConfig.json.utf8), source: "t")
    let a = try zones.zone("level_complete")
    var b = a
    b.lineItems[0].priority = 1
    let settings = Comparison.Settings(
      a: a, b: b, networks: ["empower", "max", "google"], seed: 9, requests: 1500, replications: 2)
    let result = try Comparison(settings: settings, registry: BuiltInNetworks.registry()).run()
    func revenue(_ zone: ZoneConfig, seed: UInt64) throws -> Double {
      try Simulator(
        settings: Simulator.Settings(zone: zone, networks: settings.networks, seed: seed, requests: 1500),
        registry: BuiltInNetworks.registry()
      ).run().revenueUSD
    }
    #expect(result.perReplicationA[.revenue] == [try revenue(a, seed: 9), try revenue(a, seed: 10)])
    #expect(result.perReplicationB[.revenue] == [try revenue(b, seed: 9), try revenue(b, seed: 10)])
  }

  /// Common random numbers: when B changes how the same auctions are run (here, a higher bid floor
  /// for MAX in the hybrid zone), the per-replication difference varies far less when both sides
  /// share seeds than when B runs on other seeds. (Reordering a waterfall gains less: the networks
  /// are then asked in other orders, and some of their draws no longer line up.)
  @Test func pairedSeedsReduceTheVarianceOfTheDifference() throws {
    let zones = try MediationConfig.load(Data(DefaultConfig.json.utf8), source: "t")
    var a = try zones.zone("level_complete")
    a.strategy = .hybrid
    var b = a
    b.lineItems[1].bidFloor = 10
    func stats(_ zone: ZoneConfig, seed: UInt64) throws -> SimulationStats {
      try Simulator(
        settings: Simulator.Settings(
          zone: zone, networks: ["empower", "max", "google"], seed: seed, requests: 1000),
        registry: BuiltInNetworks.registry()
      ).run()
    }
    let seeds: [UInt64] = Array(1...10)
    let statsA = try seeds.map { try stats(a, seed: $0) }
    let pairedB = try seeds.map { try stats(b, seed: $0) }
    let unpairedB = try seeds.map { try stats(b, seed: $0 + 100) }
    for metric in [ComparedMetric.revenue, .rewards, .readyP50] {
      let paired = PairedDifferences(a: statsA.map(metric.value), b: pairedB.map(metric.value))
      let unpaired = PairedDifferences(a: statsA.map(metric.value), b: unpairedB.map(metric.value))
      let pairedSD = try #require(paired.standardDeviation)
      let unpairedSD = try #require(unpaired.standardDeviation)
      #expect(pairedSD * 3 < unpairedSD, "\(metric): paired sd \(pairedSD), unpaired sd \(unpairedSD)")
    }
  }

  @Test(arguments: [
    (
      ["--requests", "0"],
      "Error: invalid value '0' for --requests: expected a whole number from 1 to 10000000"
    ),
    (
      ["--replications", "0"],
      "Error: invalid value '0' for --replications: expected a whole number from 1 to 1000"
    ),
    (
      ["--replications", "100000"],
      "Error: invalid value '100000' for --replications: expected a whole number from 1 to 1000"
    ),
    (
      ["--requests", "1000000", "--replications", "200"],
      "Error: --requests 1000000 × --replications 200 is more than 100000000 requests per side"
    ),
    (
      ["--strategy", "lottery"],
      "Error: invalid value 'lottery' for --strategy: expected one of waterfall, bidding, hybrid"
    ),
    (["--networks", "max,admob"], "Error: unknown network 'admob'"),
  ])
  func badOptionsExit64(arguments: [String], message: String) {
    let file = Self.files.builtIn
    let result = mediate(["compare", file, file] + arguments)
    #expect(result.code == ExitCode.usage)
    #expect(result.out.isEmpty)
    #expect(result.err.first?.hasPrefix(message) == true, "\(result.err)")
    #expect(result.err.contains { $0.hasPrefix("Usage: mediate compare A.json B.json") })
  }

  @Test func badFiles() {
    let file = Self.files.builtIn
    let one = mediate(["compare", file])
    #expect(one.code == ExitCode.usage)
    #expect(one.err.first == "Error: compare needs two configuration files, A and B; found 1")

    let missing = mediate(["compare", file, "/nonexistent/b.json"])
    #expect(missing.code == ExitCode.noInput)
    #expect(missing.err.first == "Error: /nonexistent/b.json: no such file")

    let unreadable = mediate(["compare", NSTemporaryDirectory(), file])
    #expect(unreadable.code == ExitCode.noInput)
    #expect(unreadable.err.first?.hasSuffix("cannot be read") == true, "\(unreadable.err)")

    let invalid = temporaryFile(#"{ "zones": [ { "id": "level_complete" } ] }"#)
    let bad = mediate(["compare", file, invalid])
    #expect(bad.code == ExitCode.dataError)
    #expect(bad.err.first?.hasPrefix("Error: \(invalid): zones[0]") == true, "\(bad.err)")

    let other = temporaryFile(
      mediate(["config", "--zone", "daily_bonus"]).out.joined(separator: "\n"))
    let zoneMissing = mediate(["compare", file, other, "--zone", "level_complete"])
    #expect(zoneMissing.code == ExitCode.usage)
    #expect(
      zoneMissing.err.first == "Error: zone 'level_complete' is not in \(other); its zones: daily_bonus")
  }
}
