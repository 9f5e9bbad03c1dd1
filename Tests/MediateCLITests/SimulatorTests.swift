import Foundation
import MediationKit
import Testing

@testable import MediateCLI

/// The simulator and the benchmark on the built-in networks.
@Suite("Simulator and bench")
struct SimulatorTests {
  static func report(_ arguments: [String]) throws -> [String: Any] {
    let result = mediate(arguments + ["--json"], registry: BuiltInNetworks.registry())
    #expect(result.code == 0, "\(result.err)")
    let line = try #require(result.out.first)
    return try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
  }

  static let keys: Set<String> = [
    "requests", "fill_rate", "shows", "rewards", "skips", "revenue_usd", "ecpm_usd", "oracle_revenue_usd",
    "revenue_efficiency", "ready_ms_p50", "ready_ms_p90", "ready_ms_p99", "wins", "wall_s", "requests_per_s",
    "show_rate", "show_ms_p50", "show_ms_p90", "show_ms_p99", "queue_depth",
  ]

  @Test func jsonReportHasExactlyThePromisedKeysAndConsistentFigures() throws {
    let report = try Self.report([
      "--zone", "level_complete", "--networks", "empower,max,google", "--requests", "12000",
    ])
    #expect(Set(report.keys) == Self.keys)
    #expect(report["requests"] as? Int == 12000)
    let shows = try #require(report["shows"] as? Int)
    #expect(shows == (report["rewards"] as? Int ?? -1) + (report["skips"] as? Int ?? -1))
    let revenue = try #require(report["revenue_usd"] as? Double)
    let oracle = try #require(report["oracle_revenue_usd"] as? Double)
    #expect(revenue > 0 && revenue <= oracle)
    let efficiency = try #require(report["revenue_efficiency"] as? Double)
    #expect(abs(efficiency - revenue / oracle) < 1e-5)
    let wins = try #require(report["wins"] as? [String: Int])
    #expect(Set(wins.keys) == ["empower", "max", "google"])
    let p50 = try #require(report["ready_ms_p50"] as? Int)
    let p99 = try #require(report["ready_ms_p99"] as? Int)
    #expect(0 < p50 && p50 <= p99)
  }

  @Test func theQueueModelShowsWhatDepthBuys() throws {
    // daily_bonus for children: only Empower fills, and not always. A deeper queue keeps an ad
    // ready for more show requests, so more are shown and none waits for a load.
    let arguments = ["--zone", "daily_bonus", "--child-directed", "--requests", "20000"]
    let one = try Self.report(arguments + ["--queue-depth", "1"])
    let three = try Self.report(arguments + ["--queue-depth", "3"])
    #expect(Set(three.keys) == Self.keys)
    #expect(one["queue_depth"] as? Int == 1 && three["queue_depth"] as? Int == 3)
    let rate1 = try #require(one["show_rate"] as? Double)
    let rate3 = try #require(three["show_rate"] as? Double)
    #expect(rate3 > rate1)
    #expect(try #require(three["show_ms_p99"] as? Int) < (try #require(one["show_ms_p99"] as? Int)))
    #expect(abs(rate3 - Double(three["shows"] as? Int ?? 0) / 20000) < 1e-6)
    // Without the option a depth-1 zone runs the load-per-session model: every show waits for its load.
    let classic = try Self.report(["--zone", "daily_bonus", "--requests", "6000"])
    #expect(classic["queue_depth"] as? Int == 1)
    #expect(try #require(classic["show_ms_p50"] as? Int) >= (try #require(classic["ready_ms_p50"] as? Int)))
  }

  @Test func theTextReportSaysShowRateAndShowLatency() {
    let result = mediate(
      ["--zone", "level_complete", "--requests", "2000", "--queue-depth", "2"],
      registry: BuiltInNetworks.registry())
    #expect(result.code == 0)
    let text = result.out.joined(separator: "\n")
    #expect(text.contains("queue depth 2, shows from the queue"))
    #expect(text.contains("\n  show rate ") && text.contains("time from show request to show  p50"))
  }

  @Test func sameSeedSameFiguresWhateverTheCores() throws {
    let zone = try MediationConfig.load(Data(DefaultConfig.json.utf8), source: "t").zone("daily_bonus")
    let settings = Simulator.Settings(
      zone: zone, networks: ["empower", "max", "google"], seed: 7, requests: 11_000)
    let simulator = Simulator(settings: settings, registry: BuiltInNetworks.registry())
    let parallel = try simulator.run(parallel: true)
    let sequential = try simulator.run(parallel: false)
    #expect(parallel == sequential)
    var other = settings
    other.seed = 8
    #expect(try Simulator(settings: other, registry: BuiltInNetworks.registry()).run() != parallel)
  }

  @Test func strategiesRunOnTheBuiltInNetworks() throws {
    var revenue: [String: Double] = [:]
    for strategy in ["waterfall", "bidding", "hybrid"] {
      let report = try Self.report(["--zone", "level_complete", "--strategy", strategy, "--requests", "6000"])
      revenue[strategy] = report["revenue_usd"] as? Double
      let wins = report["wins"] as? [String: Int] ?? [:]
      if strategy == "bidding" { #expect(wins["empower"] == nil, "empower does not bid in level_complete") }
    }
    #expect(revenue["hybrid"]! > revenue["waterfall"]!)
  }

  @Test func privacySignalsLowerRevenueAndChildrenGetNoBids() throws {
    let base = try Self.report(["--zone", "daily_bonus", "--requests", "6000"])
    let noConsent = try Self.report(["--zone", "daily_bonus", "--requests", "6000", "--no-consent"])
    #expect((noConsent["revenue_usd"] as! Double) < (base["revenue_usd"] as! Double) * 0.8)
    let child = try Self.report(["--zone", "daily_bonus", "--requests", "6000", "--child-directed"])
    // daily_bonus is hybrid: with no bids only Empower's waterfall line item can fill.
    #expect(Set((child["wins"] as? [String: Int] ?? [:]).keys) == ["empower"])
  }

  @Test func simulatorUsageErrors() {
    for (arguments, message) in [
      (
        ["--requests", "0"],
        "Error: invalid value '0' for --requests: expected a whole number from 1 to 100000000"
      ),
      (
        ["--strategy", "auction"],
        "Error: invalid value 'auction' for --strategy: expected one of waterfall, bidding, hybrid"
      ),
      (
        ["--zone", "extra_life", "--strategy", "bidding"],
        "Error: zone 'extra_life' has no bidding line items, so it cannot run --strategy bidding"
      ),
      (
        ["--requests", "100", "--queue-depth", "6"],
        "Error: invalid value '6' for --queue-depth: expected a whole number from 1 to 5"
      ),
      (
        ["--requests", "100", "--queue-depth", "0"],
        "Error: invalid value '0' for --queue-depth: expected a whole number from 1 to 5"
      ),
      (
        ["--requests", "100", "--queue-depth", "two"],
        "Error: invalid value 'two' for --queue-depth: expected a whole number from 1 to 5"
      ),
      (["--queue-depth", "2"], "Error: --queue-depth shapes a simulation: it needs --requests N"),
    ] {
      let result = mediate(arguments, registry: BuiltInNetworks.registry())
      #expect(result.code == 64, "\(arguments)")
      #expect(result.err.first == message, "\(arguments)")
    }
  }

  @Test func benchPrintsBothRatesAndTheirRatio() throws {
    let result = mediate(["bench", "--cycles", "300", "--json"], registry: BuiltInNetworks.registry())
    #expect(result.code == 0)
    let line = try #require(result.out.first)
    let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    #expect(
      Set(object.keys) == [
        "cycles", "direct_cycles_per_s", "adapter_only_cycles_per_s", "mediated_cycles_per_s",
        "overhead_ratio",
      ])
    let direct = try #require(object["direct_cycles_per_s"] as? Double)
    let adapterOnly = try #require(object["adapter_only_cycles_per_s"] as? Double)
    let mediated = try #require(object["mediated_cycles_per_s"] as? Double)
    #expect(direct > 0 && adapterOnly > 0 && mediated > 0)
    let ratio = try #require(object["overhead_ratio"] as? Double)
    #expect(abs(ratio - direct / mediated) < 0.01 * ratio)
    #expect(mediate(["bench", "--cycles", "x"]).code == 64)
  }

  @Test func networksShowsStartUpStatuses() throws {
    let result = mediate(["networks", "--json"], registry: BuiltInNetworks.registry())
    let line = try #require(result.out.first)
    let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    let networks = try #require(object["networks"] as? [[String: Any]])
    #expect(networks.map { $0["status"] as? String } == ["ready", "ready", "ready"])
    #expect(networks.allSatisfy { ($0["start_latency_ms"] as? Int ?? 0) > 0 })
  }

  @Test func latencyHistogramQuantiles() {
    var histogram = LatencyHistogram()
    for ms in 1...100 { histogram.record(.milliseconds(Int64(ms))) }
    histogram.record(.seconds(200))
    #expect(histogram.quantile(0.5) == 51)
    #expect(histogram.quantile(0.9) == 91)
    #expect(histogram.quantile(1.0) == 200_000)
    var merged = LatencyHistogram()
    merged.merge(histogram)
    #expect(merged == histogram)
  }
}
