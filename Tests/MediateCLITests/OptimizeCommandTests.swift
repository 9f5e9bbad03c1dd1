import Foundation
import MediationKit
import Testing

@testable import MediateCLI

/// `mediate optimize`: the proposal is a valid configuration that reads back the same, it earns
/// more on seeds it never trained on, it never holds an unsafe value, and bad input is refused
/// with the CLI's exit codes.
@Suite("mediate optimize")
struct OptimizeCommandTests {
  static func outPath() -> String { NSTemporaryDirectory() + "mediate-optimize-\(UUID().uuidString).json" }

  static func optimize(_ arguments: [String]) throws -> (report: [String: Any], out: String) {
    let out = outPath()
    let result = mediate(
      ["optimize", "--out", out, "--json"] + arguments, registry: BuiltInNetworks.registry())
    #expect(result.code == 0, "\(result.err)")
    let line = try #require(result.out.first)
    let report = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    return (report, out)
  }

  static func loadZone(_ path: String, _ id: String) throws -> ZoneConfig {
    let data = try #require(FileManager.default.contents(atPath: path))
    return try MediationConfig.load(data, source: path, knownNetworks: BuiltInNetworks.allIDs).zone(id)
  }

  @Test func outputValidatesAndReadsBackTheSame() throws {
    let (report, out) = try Self.optimize(["--zone", "level_complete", "--requests", "800"])
    #expect(report["out"] as? String == out)
    #expect(mediate(["validate", out], registry: BuiltInNetworks.registry()).code == 0)
    // Printing the written file as a configuration gives the file back: the config writer's format.
    let written = try String(contentsOfFile: out, encoding: .utf8)
    let printed = mediate(["config", "--config", out], registry: BuiltInNetworks.registry())
    #expect(printed.out.joined(separator: "\n") + "\n" == written)
    // The other zones are written unchanged.
    let original = try MediationConfig.load(Data(DefaultConfig.json.utf8), source: "built-in")
    let proposed = try MediationConfig.load(Data(written.utf8), source: out)
    #expect(proposed.zones.map(\.id) == original.zones.map(\.id))
    #expect(Array(proposed.zones.dropFirst()) == Array(original.zones.dropFirst()))
    // Every printed change is a real difference between the two zones, and nothing else differs.
    let changes = try #require(report["changes"] as? [[String: String]])
    #expect(
      changes.map { $0["path"]! }
        == ConfigChange.changes(from: original.zones[0], to: proposed.zones[0]).map(\.path))
  }

  @Test func improvementHoldsOnHeldOutSeeds() throws {
    let (report, out) = try Self.optimize(["--zone", "level_complete", "--requests", "1500", "--seed", "7"])
    let training = try #require(report["training"] as? [String: Any])
    let trainingSeeds = try #require(training["seeds"] as? [UInt64])
    let heldOut = try #require(report["held_out"] as? [String: Any])
    let heldOutSeeds = try #require(heldOut["seeds"] as? [UInt64])
    #expect(trainingSeeds == [7, 8])
    #expect(heldOutSeeds == [7 + Optimizer.heldOutSeedOffset, 7 + Optimizer.heldOutSeedOffset + 4])
    #expect(heldOut["verdict"] as? String == "b_better")
    let lift = try #require(report["lift"] as? [String: Any])
    let interval = try #require(lift["ci95_relative"] as? [Double])
    #expect(interval[0] > 0, "lift \(lift)")
    let efficiency = try #require(report["efficiency"] as? [String: Double])
    #expect(try #require(efficiency["optimized"]) >= 0.98)
    #expect(try #require(efficiency["optimized_vs_original_oracle"]) >= 0.98)
    #expect(try #require(efficiency["original"]) < 0.95)
    let a = try #require(heldOut["a"] as? [String: Any])
    let b = try #require(heldOut["b"] as? [String: Any])
    #expect(try #require(b["ready_ms_p99"] as? Int) <= (try #require(a["ready_ms_p99"] as? Int)))
    // The held-out figures are those of the written file, not of something else.
    let zone = try Self.loadZone(out, "level_complete")
    let rerun = try Simulator(
      settings: Simulator.Settings(
        zone: ServerCallbackChecks.withoutCallbacks(zone), networks: BuiltInNetworks.allIDs,
        seed: heldOutSeeds[0], requests: 1500),
      registry: BuiltInNetworks.registry()
    ).run()
    let perReplication = try #require(b["revenue_usd"] as? Double)
    #expect(rerun.revenueUSD > 0 && rerun.revenueUSD < perReplication)
  }

  @Test func learnedECPMIsTheRevenuePerImpression() throws {
    let (report, _) = try Self.optimize(["--zone", "level_complete", "--requests", "1000"])
    let learned = try #require(report["learned"] as? [[String: Any]])
    #expect(learned.count == 4)
    let first = learned[0]
    #expect(first["network"] as? String == "empower")
    let configured = try #require(first["configured_ecpm"] as? Double)
    let value = try #require(first["learned_ecpm"] as? Double)
    // The simulated price is the configured eCPM times log-normal noise (median 1, σ 0.25),
    // whose mean is e^(σ²/2) ≈ 1.032.
    #expect(abs(value / (configured * exp(0.25 * 0.25 / 2)) - 1) < 0.03, "\(value)")
    #expect(try #require(first["impressions"] as? Int) > 1000)
  }

  @Test func keepingTheWaterfallProposesOnlyWaterfalls() throws {
    let (report, out) = try Self.optimize([
      "--zone", "level_complete", "--requests", "800", "--strategy", "waterfall",
    ])
    let strategy = try #require(report["strategy"] as? [String: String])
    #expect(strategy["to"] == "waterfall")
    #expect(try Self.loadZone(out, "level_complete").strategy == .waterfall)
    let training = try #require(report["training"] as? [String: Any])
    let best = try #require(training["best_by_strategy"] as? [String: Any])
    #expect(Set(best.keys) == ["waterfall"])
    let hybrid = try Self.optimize(["--zone", "level_complete", "--requests", "300", "--strategy", "hybrid"])
    let hybridTraining = try #require(hybrid.report["training"] as? [String: Any])
    #expect(Set(try #require(hybridTraining["best_by_strategy"] as? [String: Any]).keys) == ["hybrid"])
    #expect(try Self.loadZone(hybrid.out, "level_complete").strategy == .hybrid)
    // Every order of the four line items (24) was tried, with and without the tuned timeouts.
    #expect(try #require(training["candidates"] as? Int) >= 24)
  }

  @Test func jsonHasThePromisedKeys() throws {
    let (report, _) = try Self.optimize(["--zone", "level_complete", "--requests", "500"])
    #expect(
      Set(report.keys) == [
        "zone", "out", "strategy", "changes", "learned", "training", "held_out", "lift", "efficiency",
      ])
    #expect(report["zone"] as? String == "level_complete")
    #expect(Set(try #require(report["strategy"] as? [String: Any]).keys) == ["from", "to"])
    for change in try #require(report["changes"] as? [[String: Any]]) {
      #expect(Set(change.keys) == ["path", "from", "to"])
    }
    for item in try #require(report["learned"] as? [[String: Any]]) {
      #expect(
        Set(item.keys) == [
          "line_item", "network", "placement_id", "configured_ecpm", "learned_ecpm", "attempts", "fills",
          "impressions", "load_ms_p99_5",
        ])
    }
    #expect(
      Set(try #require(report["training"] as? [String: Any]).keys) == [
        "seeds", "requests_per_seed", "candidates", "revenue_usd", "best_by_strategy",
      ])
    #expect(
      Set(try #require(report["lift"] as? [String: Any]).keys) == ["revenue_relative", "ci95_relative"])
    #expect(
      Set(try #require(report["efficiency"] as? [String: Any]).keys) == [
        "original", "optimized", "optimized_vs_original_oracle",
      ])
    let heldOut = try #require(report["held_out"] as? [String: Any])
    #expect(Set(try #require(heldOut["a"] as? [String: Any]).keys) == SimulatorTests.keys)
  }

  /// The text names each change as `lineItems[i] field from → to` and gives the held-out verdict;
  /// `--report` draws the same held-out comparison, original against optimized.
  @Test func textListsChangesLineByLineAndTheReportShowsTheHeldOutRun() throws {
    let out = Self.outPath()
    let html = NSTemporaryDirectory() + "mediate-optimize-\(UUID().uuidString).html"
    let result = mediate(
      ["optimize", "--zone", "level_complete", "--requests", "500", "--out", out, "--report", html],
      registry: BuiltInNetworks.registry())
    #expect(result.code == 0)
    let text = result.out.joined(separator: "\n")
    #expect(text.contains("  strategy waterfall → "))
    #expect(text.contains("  lineItems[0] timeoutSeconds 8 → "))
    #expect(text.contains("Held out (seeds 1000001…1000005, never trained on)"))
    #expect(text.contains("Efficiency against the oracle: original "))
    #expect(result.err == ["report: \(html)"])
    let page = try String(contentsOfFile: html, encoding: .utf8)
    let verdict = try #require(result.out.first { $0.hasPrefix("B earns") })
    for expected in [
      SVG.escape(verdict), "paired seeds 1000001…1000005", "original (built-in default)",
      "optimized (\(out))",
    ] {
      #expect(page.contains(expected), "\(expected)")
    }
  }

  /// Keeping the line items' earnings changes no figure of the run, and they add up to the run's.
  @Test func keepingEarningsChangesNoFigure() throws {
    let zone = try MediationConfig.load(Data(DefaultConfig.json.utf8), source: "t").zone("level_complete")
    func run(_ keeps: Bool) throws -> SimulationStats {
      try Simulator(
        settings: Simulator.Settings(
          zone: zone, networks: BuiltInNetworks.allIDs, seed: 3, requests: 3000, keepsLineItemEarnings: keeps),
        registry: BuiltInNetworks.registry()
      ).run()
    }
    var with = try run(true)
    let without = try run(false)
    let items = zone.lineItems.map { with.lineItems[$0.network, $0.placementId] }
    #expect(items.map(\.fills).reduce(0, +) == with.fills)
    #expect(items.map(\.impressions).reduce(0, +) == with.shows)
    #expect(abs(items.map(\.revenueUSD).reduce(0, +) - with.revenueUSD) < 1e-9)
    with.lineItems = LineItemEarnings()
    #expect(with == without)
  }

  // MARK: - Never an unsafe value

  static let oddZones: [(name: String, json: String)] = [
    (
      "a single line item, its timeout beyond the zone's budget",
      #"{ "id": "z", "reward": { "type": "c", "amount": 1 }, "adExpirySeconds": 3600, "rewardGraceSeconds": 5, "autoReload": false, "loadTimeoutSeconds": 5, "lineItems": [ { "network": "empower", "placementId": "one", "priority": 0, "ecpm": 5, "timeoutSeconds": 30 } ] }"#
    ),
    (
      "all bidding, no floors",
      #"{ "id": "z", "reward": { "type": "c", "amount": 1 }, "adExpirySeconds": 3600, "rewardGraceSeconds": 5, "autoReload": false, "loadTimeoutSeconds": 10, "strategy": "bidding", "auctionTimeoutSeconds": 1, "lineItems": [ { "network": "max", "placementId": "m", "priority": 0, "ecpm": 0, "timeoutSeconds": 60, "bidding": true }, { "network": "google", "placementId": "g", "priority": 3, "ecpm": 10000, "timeoutSeconds": 2, "bidding": true } ] }"#
    ),
    (
      "tight timeouts",
      #"{ "id": "z", "reward": { "type": "c", "amount": 1 }, "adExpirySeconds": 3600, "rewardGraceSeconds": 5, "autoReload": false, "loadTimeoutSeconds": 1.5, "strategy": "hybrid", "auctionTimeoutSeconds": 1.5, "lineItems": [ { "network": "empower", "placementId": "e", "priority": 1000, "ecpm": 9, "timeoutSeconds": 0.2 }, { "network": "max", "placementId": "m", "priority": 999, "ecpm": 3, "timeoutSeconds": 1.5, "bidding": true, "bidFloor": 10000 }, { "network": "google", "placementId": "g", "priority": 0, "ecpm": 1, "timeoutSeconds": 0.7 } ] }"#
    ),
  ]

  static func checkSafe(_ zone: ZoneConfig, against original: ZoneConfig) {
    #expect(MediationConfig(zones: [zone]).validate(knownNetworks: BuiltInNetworks.allIDs).isEmpty)
    #expect(zone.auctionTimeoutSeconds > 0 && zone.auctionTimeoutSeconds <= zone.loadTimeoutSeconds)
    #expect(zone.loadTimeoutSeconds == original.loadTimeoutSeconds)
    for item in zone.lineItems {
      #expect(item.timeoutSeconds > 0 && item.timeoutSeconds <= zone.loadTimeoutSeconds, "\(item)")
      #expect(item.bidFloor >= 0 && item.bidFloor <= MediationConfig.Limits.maxECPM)
      #expect(item.ecpm >= 0 && item.ecpm <= MediationConfig.Limits.maxECPM)
      #expect((0...1000).contains(item.priority))
    }
    #expect(zone.lineItems.map(\.placementId) == original.lineItems.map(\.placementId))
  }

  @Test(arguments: [[], ["--no-consent", "--child-directed"], ["--strategy", "waterfall"]])
  func oddConfigurationsGetSafeProposals(_ extra: [String]) throws {
    for odd in Self.oddZones {
      let file = temporaryFile(#"{ "zones": [ "# + odd.json + " ] }")
      let original = try Self.loadZone(file, "z")
      let (_, out) = try Self.optimize(["--config", file, "--requests", "300"] + extra)
      Self.checkSafe(try Self.loadZone(out, "z"), against: original)
      #expect(mediate(["validate", out], registry: BuiltInNetworks.registry()).code == 0, "\(odd.name)")
    }
  }

  /// Every candidate, not only the chosen one, is safe — whatever was learned, absurd values included.
  @Test func everyCandidateIsSafeWhateverWasLearned() throws {
    for odd in Self.oddZones {
      let zone = try MediationConfig.load(Data(#"{ "zones": [ \#(odd.json) ] }"#.utf8), source: "t").zone("z")
      for (ecpm, milliseconds) in [(1e12, 500_000), (-5.0, 0), (Double.nan, 1), (0.001, 50)] {
        let learned = LearnedZone(
          lineItems: zone.lineItems.map {
            LearnedZone.LineItemFigures(
              item: $0, attempts: 100, fills: 90, impressions: 90, learnedECPM: ecpm,
              loadQuantileMilliseconds: milliseconds)
          })
        let candidates = OptimizationCandidates(
          zone: zone, learned: learned, strategies: ZoneConfig.AuctionStrategy.allCases,
          biddingNetworks: ["empower", "max", "google"]
        ).all
        #expect(!candidates.isEmpty)
        for candidate in candidates { Self.checkSafe(candidate, against: zone) }
      }
    }
  }

  // MARK: - Bad input

  @Test func badInputIsRefusedWithTheExitCodes() {
    let out = Self.outPath()
    let invalid = temporaryFile(#"{ "zones": [ { "id": "z", "lineItems": [] } ] }"#)
    let cases: [(arguments: [String], code: Int32, message: String)] = [
      (
        ["--config", "/nonexistent/c.json", "--out", out], ExitCode.noInput,
        "/nonexistent/c.json: no such file"
      ),
      (["--config", invalid, "--out", out], ExitCode.dataError, "zones[0]: missing required field 'reward'"),
      (["--zone", "nowhere", "--out", out], ExitCode.usage, "zone 'nowhere' is not in built-in default"),
      (["--requests", "0", "--out", out], ExitCode.usage, "invalid value '0' for --requests"),
      ([], ExitCode.usage, "optimize needs --out FILE"),
      (["--out", "/nonexistent/dir/o.json"], ExitCode.usage, "no directory /nonexistent/dir"),
      (["--strategy", "fastest", "--out", out], ExitCode.usage, "invalid value 'fastest' for --strategy"),
      (["--networks", "max,nobody", "--out", out], ExitCode.usage, "nobody"),
    ]
    for (arguments, code, message) in cases {
      let result = mediate(["optimize"] + arguments, registry: BuiltInNetworks.registry())
      #expect(result.code == code, "\(arguments): \(result.err)")
      #expect(result.err.first?.hasPrefix("Error: ") == true)
      #expect(result.err.first?.contains(message) == true, "\(arguments): \(result.err)")
      #expect(result.out.isEmpty)
    }
    #expect(!FileManager.default.fileExists(atPath: out))
  }
}
