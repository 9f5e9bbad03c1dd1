import Foundation
import MediationKit
import Testing

@testable import MediateCLI

/// Learned eCPMs on the simulator: a zone with deliberately wrong eCPMs, its networks priced at
/// the built-in (right) ones with `--market`.
@Suite("Learned eCPMs on the simulator")
struct LearnedECPMsSimulationTests {
  static let builtIn = try! MediationConfig.load(Data(DefaultConfig.json.utf8), source: "built-in")

  /// `level_complete` with its eCPMs reversed and every line item in one tier.
  static func wrongConfig(autoECPM: Bool) throws -> String {
    var zone = try builtIn.zone("level_complete")
    let wrong = [3, 9, 12.5, 14]
    for index in zone.lineItems.indices {
      zone.lineItems[index].ecpm = wrong[index]
      zone.lineItems[index].priority = 0
    }
    zone.autoECPM = autoECPM
    return temporaryFile(ConfigFileWriter.json(MediationConfig(zones: [zone])))
  }

  static let market = temporaryFile(DefaultConfig.json)

  static func run(autoECPM: Bool, market: Bool = true) throws -> [String: Any] {
    try SimulatorTests.report(
      ["--config", try wrongConfig(autoECPM: autoECPM), "--zone", "level_complete", "--requests", "10000"]
        + (market ? ["--market", Self.market] : []))
  }

  @Test func learnedECPMsRecoverWhatWrongECPMsLose() throws {
    let plain = try Self.run(autoECPM: false)
    let learned = try Self.run(autoECPM: true)
    let right = try SimulatorTests.report(["--zone", "level_complete", "--requests", "10000"])
    // The same market: the oracle is the built-in configuration's.
    #expect(plain["oracle_revenue_usd"] as? Double == right["oracle_revenue_usd"] as? Double)
    #expect(learned["oracle_revenue_usd"] as? Double == right["oracle_revenue_usd"] as? Double)
    // The tenths only with learned eCPMs: other runs keep exactly their keys.
    #expect(Set(plain.keys) == SimulatorTests.keys)
    #expect(
      Set(learned.keys) == SimulatorTests.keys.union(["efficiency_first_tenth", "efficiency_last_tenth"]))
    let wrong = try #require(plain["revenue_efficiency"] as? Double)
    let efficiency = try #require(learned["revenue_efficiency"] as? Double)
    let best = try #require(right["revenue_efficiency"] as? Double)
    let first = try #require(learned["efficiency_first_tenth"] as? Double)
    let last = try #require(learned["efficiency_last_tenth"] as? Double)
    #expect(wrong < 0.5, "the wrong order earns \(wrong)")
    #expect(efficiency > best - 0.03, "learned \(efficiency) against the right order's \(best)")
    #expect(first < last, "first tenth \(first), last \(last)")
  }

  @Test func withoutTheMarketWrongECPMsAreTheMarket() throws {
    // The simulated networks price around the configured eCPMs: without --market the "wrong"
    // eCPMs are what they pay, so the oracle changes with them.
    let own = try Self.run(autoECPM: false, market: false)
    let priced = try Self.run(autoECPM: false)
    #expect(own["oracle_revenue_usd"] as? Double != priced["oracle_revenue_usd"] as? Double)
  }

  @Test func sameFiguresWhateverTheCores() throws {
    var zone = try Self.builtIn.zone("level_complete")
    zone.autoECPM = true
    zone.lineItems[0].ecpm = 1
    let settings = Simulator.Settings(
      zone: zone, networks: ["empower", "max", "google"], seed: 4, requests: 11_000,
      market: MarketPrices(zone: try Self.builtIn.zone("level_complete")))
    let simulator = Simulator(settings: settings, registry: BuiltInNetworks.registry())
    let parallel = try simulator.run(parallel: true)
    #expect(try simulator.run(parallel: false) == parallel)
    #expect(parallel.firstTenth.oracleRevenueUSD > 0 && parallel.lastTenth.oracleRevenueUSD > 0)
  }

  @Test func textReportShowsTheTenths() throws {
    let result = mediate(
      ["--config", try Self.wrongConfig(autoECPM: true), "--zone", "level_complete", "--requests", "5000"],
      registry: BuiltInNetworks.registry())
    #expect(result.code == 0, "\(result.err)")
    #expect(
      result.out.contains { $0.hasPrefix("  learned eCPMs       efficiency ") && $0.hasSuffix("in the last") }
    )
  }

  @Test func strategyBiddingSwitchesLearningOff() throws {
    // Bidding has no waterfall to order: the cycle and the simulator run it without learning.
    let config = try Self.wrongConfig(autoECPM: true)
    let cycle = mediate(
      ["--config", config, "--zone", "level_complete", "--strategy", "bidding"],
      registry: BuiltInNetworks.registry())
    #expect(cycle.code == 0, "\(cycle.err)")
    let report = try SimulatorTests.report(
      ["--config", config, "--zone", "level_complete", "--strategy", "bidding", "--requests", "2000"])
    #expect(Set(report.keys) == SimulatorTests.keys)
    let hybrid = try SimulatorTests.report(
      ["--config", config, "--zone", "level_complete", "--strategy", "hybrid", "--requests", "2000"])
    #expect(hybrid["efficiency_last_tenth"] is Double)
  }

  @Test func marketUsageErrors() throws {
    let noZone = temporaryFile(
      ConfigFileWriter.json(MediationConfig(zones: [try Self.builtIn.zone("daily_bonus")])))
    for (arguments, code, message) in [
      (
        ["--market", Self.market], ExitCode.usage,
        "Error: --market prices a simulation: it needs --requests N"
      ),
      (
        ["--requests", "10", "--market", "/nonexistent/market.json"], ExitCode.noInput,
        "Error: /nonexistent/market.json: no such file"
      ),
      (
        ["--zone", "level_complete", "--requests", "10", "--market", noZone], ExitCode.usage,
        "Error: --market \(noZone): unknown zone 'level_complete'; known: daily_bonus"
      ),
    ] {
      let result = mediate(arguments, registry: BuiltInNetworks.registry())
      #expect(result.code == code, "\(arguments)")
      #expect(result.err.first?.hasPrefix(message) == true, "\(arguments): \(result.err)")
    }
  }
}
