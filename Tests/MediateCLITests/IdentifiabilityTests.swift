import Foundation
import MediationKit
import Testing

@testable import MediateCLI

/// Identifiability: from a known market — the simulated networks' own, and three perturbed ones
/// whose eCPMs are off the configured ones by ±50% and whose fill rates are swapped between line
/// items — the built-in `level_complete` waterfall runs, its event log and MAX and AdMob reports
/// are written and read back, `calibrate` estimates the market, and:
/// - each line item's fill is within ±2 points and its mean eCPM within ±5% of the truth wherever
///   the data hold the sample that needs (a fill near p needs `1.96² p(1−p) / 0.02²` answered
///   requests, about 1,400 at p = 0.85; a mean eCPM with σ 0.25 needs
///   `(1.96 · √(e^σ² − 1) / 0.05)²`, about 100 prices), and within the 99.99% sampling interval
///   (3.89 standard errors) where they do not (a line item low in a waterfall is asked in a few
///   auctions of a thousand: the market file says how wide its interval is);
/// - `optimize` on the calibrated market earns, on the true market's held-out seeds, at least 99%
///   of what `optimize` earns when given the true market.
///
/// Sizes: 15,000 sessions of data, which give the top line item of each waterfall its tolerance
/// and the second one its tolerance where the first fails often enough (2,500 answered requests
/// in the built-in market); the optimizer trains on 300 sessions per candidate (every candidate
/// on the same seed, so the candidates' differences, not their totals, decide) and the two
/// proposals are measured against each other on 2 × 3,000 held-out sessions of the true market.
/// The DocC article "Calibrating the simulator to your market" has the same measurement at
/// 100,000 sessions.
@Suite("Identifiability of a calibrated market")
struct IdentifiabilityTests {
  static let zone = try! MediationConfig.load(Data(DefaultConfig.json.utf8), source: "built-in").zone(
    "level_complete")
  static let registry = BuiltInNetworks.registry()

  /// A true market: `nil` for the simulated networks' own behaviour, and what each line item
  /// really does.
  struct Truth: CustomTestStringConvertible {
    let name: String
    let market: MarketFile?
    let estimates: [MarketFile.Estimate]

    var testDescription: String { name }
  }

  /// The built-in market as estimates, then `price` factors and the `fills` permutation applied.
  static func truth(_ name: String, price factors: [Double]?, fills order: [Int]?) -> Truth {
    let builtIn = zone.lineItems.map { BuiltInNetworks.builtInEstimate(for: $0.network, ecpm: $0.ecpm) }
    guard let factors, let order else { return Truth(name: name, market: nil, estimates: builtIn) }
    var estimates = builtIn
    for index in estimates.indices {
      estimates[index].price.median *= factors[index]
      estimates[index].fill = builtIn[order[index]].fill
      estimates[index].noAnswer = builtIn[order[index]].noAnswer
    }
    let market = MarketFile(
      zone: zone.id,
      lineItems: zip(zone.lineItems, estimates).map {
        MarketFile.LineItem(network: $0.network, placementID: $0.placementId, estimate: $1)
      })
    return Truth(name: name, market: market, estimates: estimates)
  }

  static let markets = [
    truth("built-in", price: nil, fills: nil),
    truth("eCPMs ×1.5/×0.5, fills rotated", price: [1.5, 0.5, 1.5, 0.5], fills: [1, 2, 3, 0]),
    truth("eCPMs ×0.5/×1.5, fills reversed", price: [0.5, 1.5, 0.5, 1.5], fills: [3, 2, 1, 0]),
    truth(
      "eCPMs ×0.5, ×0.5, ×1.5, ×1.5, fills swapped in pairs", price: [0.5, 0.5, 1.5, 1.5],
      fills: [2, 3, 0, 1]),
  ]

  /// The waterfall on `truth`'s market, its event log and report counts recorded.
  static func record(_ truth: Truth, requests: Int, seed: UInt64) throws -> (
    reports: ReportAggregates, log: String
  ) {
    var settings = Simulator.Settings(
      zone: zone, networks: BuiltInNetworks.allIDs, seed: seed, requests: requests)
    settings.calibrated = truth.market?.model
    settings.recording = SimulationRecording(eventLog: true, reports: true)
    let log = Locked("")
    let stats = try Simulator(settings: settings, registry: registry).run(eventLog: { chunk in
      log.withLock { $0 += chunk }
    })
    return (stats.reports, log.withLock { $0 })
  }

  /// Checks `estimate` of line item `index` against the truth: `fill` and `price` as the source
  /// counts them.
  static func check(
    _ estimate: MarketFile.Estimate, truth fill: Double, price: Double, _ what: String, sigma: Double = 0.25
  ) {
    if let n = estimate.fill.trials, n > 0 {
      let error = abs(estimate.fill.value - fill)
      if n >= Wilson.trialsNeeded(p: fill, margin: 0.02) {
        #expect(error <= 0.02, "\(what): fill \(estimate.fill.value) vs \(fill) from \(n)")
      } else {
        #expect(
          error <= 3.89 * (fill * (1 - fill) / Double(n)).squareRoot(),
          "\(what): fill \(estimate.fill.value) vs \(fill) from \(n)")
      }
    }
    guard let m = estimate.price.observations, m > 0 else { return }
    let cv = (exp(sigma * sigma) - 1).squareRoot()
    let relative = abs(estimate.price.distribution.mean - price) / price
    if Double(m) >= pow(1.96 * cv / 0.05, 2) {
      #expect(
        relative <= 0.05, "\(what): mean eCPM \(estimate.price.distribution.mean) vs \(price) from \(m)")
    } else {
      #expect(
        relative <= 3.89 * cv / Double(m).squareRoot(),
        "\(what): mean eCPM \(estimate.price.distribution.mean) vs \(price) from \(m)")
    }
  }

  /// What the optimizer proposes on `market` (the simulated networks' own when `nil`).
  static func optimize(_ market: CalibratedMarket?) throws -> ZoneConfig {
    let bidders = Set(registry.all.filter { $0.info.capabilities.contains(.bidding) }.map(\.info.id))
    var settings = Optimizer.Settings(
      zone: zone, networks: BuiltInNetworks.allIDs, seed: 11, requests: 300, biddingNetworks: bidders)
    settings.trainingReplications = 1
    settings.heldOutReplications = 2
    settings.calibrated = market
    return try Optimizer(settings: settings, registry: registry).run().proposed
  }

  @Test(arguments: markets)
  func aCalibratedMarketRecoversTheTruthAndOptimizesAsWell(_ truth: Truth) throws {
    let (reports, log) = try Self.record(truth, requests: 15_000, seed: 3)
    let names = ReportNetworks(Self.registry.all.map(\.info))
    let maxRows = try MaxReport.rows(
      ReportExport.maxCSV(reports, zone: Self.zone, dimension: nil, names: names), file: "max.csv",
      networks: names)
    let admobRows = try AdMobReport.rows(
      Data(ReportExport.admobJSON(reports, zone: Self.zone, dimension: nil, names: names).utf8),
      file: "admob.json",
      networks: names)
    var reader = EventLogReader(zone: Self.zone.id)
    try reader.read(log, file: "events.jsonl")
    let calibration = Calibration(zone: Self.zone, segmentation: .none)
    let fromLog = try calibration.run(rows: [], log: reader, sources: [])
    let fromMax = try calibration.run(rows: maxRows, log: nil, sources: [])
    let fromAdMob = try calibration.run(rows: admobRows, log: nil, sources: [])
    let combined = try calibration.run(rows: maxRows + admobRows, log: reader, sources: [])
    for (index, real) in truth.estimates.enumerated() {
      let mean = real.price.distribution.mean
      // The event log counts answered requests; a report counts a timeout as an attempt unanswered.
      Self.check(
        fromLog.lineItems[index].estimate, truth: real.fill.value, price: mean, "\(truth.name) log [\(index)]"
      )
      let perAttempt = real.fill.value * (1 - real.noAnswer.value)
      Self.check(
        fromMax.lineItems[index].estimate, truth: perAttempt, price: mean, "\(truth.name) MAX [\(index)]")
      Self.check(
        fromAdMob.lineItems[index].estimate, truth: perAttempt, price: mean, "\(truth.name) AdMob [\(index)]")
      #expect(combined.lineItems[index].estimate == fromLog.lineItems[index].estimate || index == 3)
    }
    // The top line item is asked in every auction: it always has the sample.
    #expect((fromLog.lineItems[0].estimate.fill.trials ?? 0) >= 14_000)

    let onTruth = try Self.optimize(truth.market?.model)
    let onCalibration = try Self.optimize(combined.model)
    let heldOut = Comparison(
      settings: Comparison.Settings(
        a: onTruth, b: onCalibration, networks: BuiltInNetworks.allIDs, seed: 3_000_011, requests: 3_000,
        replications: 2, calibrated: truth.market?.model),
      registry: Self.registry)
    let result = try heldOut.run()
    let ratio = result.b.revenueUSD / result.a.revenueUSD
    #expect(ratio >= 0.99, "\(truth.name): calibrated proposal earns \(ratio) of the true one's")
  }
}
