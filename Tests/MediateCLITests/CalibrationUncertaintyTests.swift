import Foundation
import MediationKit
import Testing

@testable import MediateCLI

/// How much of a comparison's interval comes from the calibration: on a market calibrated from
/// little data the resampled markets move the difference a lot and the calibration makes most of
/// the interval; from a great deal of data, little of it.
@Suite("Calibration uncertainty")
struct CalibrationUncertaintyTests {
  static let zone = try! MediationConfig.load(Data(DefaultConfig.json.utf8), source: "built-in").zone(
    "level_complete")

  /// The built-in market as a market file whose every figure rests on `n` observations.
  static func market(observations n: Int) -> MarketFile {
    MarketFile(
      zone: zone.id,
      lineItems: zone.lineItems.map { item in
        var estimate = BuiltInNetworks.builtInEstimate(for: item.network, ecpm: item.ecpm)
        estimate.fill.successes = Int((estimate.fill.value * Double(n)).rounded())
        estimate.fill.trials = n
        estimate.price.observations = n
        estimate.price.sigmaFromData = true
        return MarketFile.LineItem(network: item.network, placementID: item.placementId, estimate: estimate)
      })
  }

  /// A: the configured waterfall; B: the same line items tried from the cheapest up, which earns
  /// clearly less, by an amount that depends on the line items' prices and fills.
  static func uncertainty(observations n: Int) throws -> CalibrationUncertainty {
    var reversed = zone
    for index in reversed.lineItems.indices { reversed.lineItems[index].priority = 3 - index }
    let file = market(observations: n)
    let settings = Comparison.Settings(
      a: zone, b: reversed, networks: BuiltInNetworks.allIDs, seed: 21, requests: 1_000, replications: 4,
      calibrated: file.model)
    let result = try Comparison(settings: settings, registry: BuiltInNetworks.registry()).run()
    return try CalibrationUncertainty.run(
      settings, result: result, file: file, count: 6, registry: BuiltInNetworks.registry())
  }

  /// 4 replications and 6 resampled markets of 1,000 sessions: with 30 observations a fill is
  /// known to about ±14 points and a price to ±9%, which moves B − A by several times the seeds'
  /// spread; with a million, by nothing the seeds do not dwarf.
  @Test func littleDataMakesMostOfTheIntervalAndMuchDataLittle() throws {
    let little = try Self.uncertainty(observations: 30)
    let much = try Self.uncertainty(observations: 1_000_000)
    #expect(little.byResample.count == 6 && little.seeds == 21...24)
    #expect(little.calibrationShare > 0.6, "\(little.calibrationShare)")
    #expect(much.calibrationShare < 0.5, "\(much.calibrationShare)")
    let wide = try #require(little.interval)
    let narrow = try #require(much.interval)
    #expect(wide.upperBound - wide.lowerBound > 2 * (narrow.upperBound - narrow.lowerBound))
    // The same seeds give the same resampled markets.
    #expect(try Self.uncertainty(observations: 30).byResample == little.byResample)
  }

  @Test func theIntervalAddsTheCalibrationsVarianceToTheSeeds() {
    let uncertainty = CalibrationUncertainty(
      byResample: [0.10, 0.02, 0.06, 0.14, -0.02], shifts: [0.06, -0.06, 0, 0.03, -0.03], seeds: 1...5,
      lift: 0.06,
      seedVariance: 0.0004, replications: 10)
    // The shifts' variance: (0.0036 · 2 + 0.0009 · 2) / 4 = 0.00225.
    #expect(abs(uncertainty.calibrationVariance - 0.00225) < 1e-12)
    #expect(abs(uncertainty.calibrationShare - 0.00225 / (0.00004 + 0.00225)) < 1e-12)
    let interval = uncertainty.interval!
    // Degrees of freedom ≈ 4 (the calibration's), so t = 2.776.
    #expect(abs(interval.upperBound - (0.06 + 2.776445 * (0.00229).squareRoot())) < 1e-6)
    #expect(uncertainty.verdict == .noSignificantDifference)
    let seedsOnly = CalibrationUncertainty(
      byResample: [0.06, 0.06], shifts: [0, 0], seeds: 1...2, lift: 0.06, seedVariance: 0.0004,
      replications: 10)
    #expect(seedsOnly.calibrationVariance == 0 && seedsOnly.calibrationShare == 0)
    #expect(seedsOnly.verdict == .bBetter)
  }

  @Test func resamplesNeedAMarketThatCountsItsData() {
    let directory = CalibrateCommandTests.directory()
    let config = CalibrateCommandTests.write(DefaultConfig.json, "a.json", in: directory)
    let handWritten = CalibrateCommandTests.write(
      MarketFileTests.market([MarketFileTests.item("max", "b3f1c0d2e4a59687", fill: 0.9, price: 12)]),
      "m.json",
      in: directory)
    let result = mediate(
      [
        "compare", config, config, "--requests", "10", "--market", handWritten, "--calibration-resamples",
        "3",
      ],
      registry: BuiltInNetworks.registry())
    #expect(result.code == ExitCode.usage)
    #expect(
      result.err.contains {
        $0.contains("--calibration-resamples needs --market FILE with a market file whose")
      })
    // Without counts nothing is resampled, by default.
    let quiet = mediate(
      [
        "compare", config, config, "--requests", "10", "--replications", "2", "--market", handWritten,
        "--json",
      ],
      registry: BuiltInNetworks.registry())
    #expect(quiet.code == 0 && quiet.out.first?.contains("\"calibration\"") == false)
  }
}
