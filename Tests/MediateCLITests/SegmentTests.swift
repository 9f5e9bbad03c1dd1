import Foundation
import MediationKit
import Testing

@testable import MediateCLI

/// Segments: a market whose countries differ is simulated, exported and calibrated per country;
/// `optimize --segments` then proposes a configuration of its own for the country where the
/// overall one leaves money on the table, and says so where it does not; `--country` optimizes one
/// country. A market whose countries agree gets one configuration.
@Suite("Segments")
struct SegmentTests {
  /// `level_complete` with two line items: Empower's top one and MAX's.
  static let config: String = {
    var config = try! MediationConfig.load(Data(DefaultConfig.json.utf8), source: "built-in")
    var zone = try! config.zone("level_complete")
    zone.lineItems = Array(zone.lineItems.prefix(2))
    config.zones = [zone]
    return ConfigFileWriter.json(config) + "\n"
  }()

  /// A market where, in `de`, the MAX line item pays `deMaxPrice` and Empower's `dePrice`.
  static func market(usShare: Double, dePrice: Double, deMaxPrice: Double) -> String {
    func item(_ network: String, _ placement: String, _ us: (Double, Double), _ de: (Double, Double))
      -> String
    {
      """
      {"network": "\(network)", "placementId": "\(placement)", "fill": {"probability": \(us.0)},
       "price": {"median": \(us.1), "sigma": 0.25}, "loadLatency": {"medianMs": 600, "sigma": 0.5},
       "segments": {"DE": {"fill": {"probability": \(de.0)}, "price": {"median": \(de.1), "sigma": 0.25},
                           "loadLatency": {"medianMs": 600, "sigma": 0.5}}}}
      """
    }
    return """
      {"mediationkitMarket": 1, "zone": "level_complete", "segmentBy": "country",
       "segments": [{"name": "US", "share": \(usShare)}, {"name": "DE", "share": \(1 - usShare)}],
       "lineItems": [\(item("empower", "emp-level-complete-high", (0.5, 30), (0.5, dePrice))),
                     \(item("max", "b3f1c0d2e4a59687", (0.9, 10), (0.9, deMaxPrice)))]}
      """
  }

  static func run(_ arguments: [String]) -> (code: Int32, out: [String], err: [String]) {
    mediate(arguments, registry: BuiltInNetworks.registry())
  }

  static func json(_ result: (code: Int32, out: [String], err: [String])) throws -> [String: Any] {
    #expect(result.code == 0, "\(result.err)")
    let line = try #require(result.out.first)
    return try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
  }

  /// 8,000 sessions give Germany (30% of them) about 2,400 auctions: its Empower fill is known
  /// to ±2 points and its prices to a few percent, ample for a price gap of 4×. Optimizing a
  /// two-line-item waterfall on 600 sessions per candidate and seed separates orders whose
  /// revenue differs by half.
  @Test func aCountryThatDiffersGetsItsOwnConfigurationAndOneThatAgreesDoesNot() throws {
    let directory = CalibrateCommandTests.directory()
    let configPath = CalibrateCommandTests.write(Self.config, "zones.json", in: directory)
    let truth = CalibrateCommandTests.write(
      Self.market(usShare: 0.7, dePrice: 5, deMaxPrice: 20), "truth.json", in: directory)
    let events = directory + "events.jsonl"
    let max = directory + "max.csv"
    let recorded = Self.run([
      "--config", configPath, "--zone", "level_complete", "--requests", "8000", "--market", truth, "--events",
      events,
      "--export-report", "max", max, "--json",
    ])
    #expect(recorded.code == 0, "\(recorded.err)")
    // The MAX export has the country column, in MAX's lower case.
    let csv = try String(contentsOfFile: max, encoding: .utf8)
    #expect(csv.hasPrefix("day,application,package_name,ad_format,country,") && csv.contains(",de,"))
    let calibrated = directory + "market.json"
    let calibration = try Self.json(
      Self.run([
        "calibrate", "--config", configPath, "--out", calibrated, "--events", events, "--max-report", max,
        "--json",
      ]))
    #expect(calibration["segment_by"] as? String == "country")
    let file = try MarketFile.read(
      #require(FileManager.default.contents(atPath: calibrated)), source: calibrated)
    let shares = Dictionary(uniqueKeysWithValues: file.segments.map { ($0.name, $0.share) })
    #expect(abs((shares["DE"] ?? 0) - 0.3) < 0.03, "\(shares)")
    let germany = try #require(file.lineItems[0].segments["DE"])
    #expect(abs(germany.price.distribution.mean - 5 * exp(0.03125)) < 0.4, "\(germany.price)")
    #expect(abs(germany.fill.value - 0.5) < 0.04)

    let out = directory + "optimized.json"
    let optimized = try Self.json(
      Self.run([
        "optimize", "--config", configPath, "--zone", "level_complete", "--out", out, "--requests", "600",
        "--strategy", "waterfall", "--market", calibrated, "--segments", "--calibration-resamples", "0",
        "--json",
      ]))
    let segments = try #require(optimized["segments"] as? [[String: Any]])
    let bySegment = Dictionary(uniqueKeysWithValues: segments.map { ($0["segment"] as? String ?? "", $0) })
    // Germany, where MAX pays four times Empower's price, wants MAX first: its own configuration.
    let de = try #require(bySegment["DE"])
    #expect(de["own_configuration"] as? Bool == true, "\(de)")
    #expect(try #require(de["lift_relative"] as? Double) > 0.2)
    let dePath = try #require(de["out"] as? String)
    #expect(dePath == directory + "optimized.DE.json")
    let deZone = try OptimizeCommandTests.loadZone(dePath, "level_complete")
    #expect(WaterfallOrder.sortedIndices(deZone.lineItems).first == 1)
    // The United States, most of the traffic, is served by the overall proposal.
    let us = try #require(bySegment["US"])
    #expect(us["own_configuration"] as? Bool == false)
    #expect(!FileManager.default.fileExists(atPath: directory + "optimized.US.json"))

    // --country optimizes one country on its own traffic.
    let germanOnly = try Self.json(
      Self.run([
        "optimize", "--config", configPath, "--zone", "level_complete", "--out", directory + "de.json",
        "--requests", "300", "--strategy", "waterfall", "--market", calibrated, "--country", "de",
        "--calibration-resamples", "0", "--json",
      ]))
    #expect((germanOnly["changes"] as? [[String: String]])?.isEmpty == false)
  }

  @Test func countriesThatAgreeShareOneConfiguration() throws {
    let directory = CalibrateCommandTests.directory()
    let configPath = CalibrateCommandTests.write(Self.config, "zones.json", in: directory)
    // Germany pays a little less for both line items: the same order is best there too.
    let market = CalibrateCommandTests.write(
      Self.market(usShare: 0.7, dePrice: 27, deMaxPrice: 9.5), "market.json", in: directory)
    let result = Self.run([
      "optimize", "--config", configPath, "--zone", "level_complete", "--out", directory + "o.json",
      "--requests",
      "600", "--strategy", "waterfall", "--market", market, "--segments",
    ])
    #expect(result.code == 0, "\(result.err)")
    let text = result.out.joined(separator: "\n")
    #expect(text.contains("Segments by country: does a segment earn more with its own configuration?"))
    #expect(!text.contains("wrote \(directory)o.DE.json") && !text.contains("wrote \(directory)o.US.json"))
    #expect(text.contains("DE: ") && text.contains("US: "))
    #expect(!FileManager.default.fileExists(atPath: directory + "o.DE.json"))
  }

  @Test func segmentUsageErrors() {
    let directory = CalibrateCommandTests.directory()
    let configPath = CalibrateCommandTests.write(Self.config, "zones.json", in: directory)
    let market = CalibrateCommandTests.write(
      Self.market(usShare: 0.5, dePrice: 5, deMaxPrice: 20), "m.json", in: directory)
    let base = ["optimize", "--config", configPath, "--out", directory + "o.json", "--requests", "10"]
    let both = Self.run(base + ["--market", market, "--segments", "--country", "US"])
    #expect(
      both.code == ExitCode.usage && both.err.first?.contains("cannot be combined with --segment") == true)
    let none = Self.run(base + ["--segments"])
    #expect(none.code == ExitCode.usage && none.err.first?.contains("--segments needs --market FILE") == true)
    let unknown = Self.run(base + ["--market", market, "--country", "FR"])
    #expect(
      unknown.code == ExitCode.usage
        && unknown.err.first?.contains("has no country 'FR'; its segments: US, DE") == true)
    let plain = Self.run(
      base + [
        "--market", CalibrateCommandTests.write(Self.config, "c.json", in: directory), "--segment", "US",
      ])
    #expect(plain.code == ExitCode.usage && plain.err.first?.contains("is a configuration file") == true)
  }
}
