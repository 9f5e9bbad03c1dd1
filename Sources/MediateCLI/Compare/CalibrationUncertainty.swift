import Foundation
import MediationKit

/// How much of a comparison's uncertainty comes from the market's calibration, when it ran on a
/// market file whose figures rest on counted data.
///
/// The comparison's own interval comes from its seeds: the same market, other users. A market
/// calibrated from a few days of data is itself uncertain, so the comparison runs again on `K`
/// markets drawn from the calibration's uncertainty (``MarketFile/resampled(_:)``), one seed each
/// (seeds after the replications'). Each gives a revenue difference B − A as a fraction of A's
/// mean revenue per replication; their variance is the seeds' variance (from the replications)
/// plus the calibration's, so the calibration's is their difference (never below 0). The lift's
/// variance is then `seeds/R + calibration`, its interval `lift ± t·√(that)` (t with
/// Welch–Satterthwaite degrees of freedom), and the calibration's share of it is its part of
/// that variance.
struct CalibrationUncertainty {
  /// The revenue difference on each resampled market, as a fraction of A's mean revenue.
  let byResample: [Double]
  /// The seeds the resampled markets ran on.
  let seeds: ClosedRange<UInt64>
  /// The lift (B − A over A) on the calibrated market, and the seeds' part of its variance.
  let lift: Double
  let seedVariance: Double
  let replications: Int

  /// The variance the calibration adds to a single run's difference.
  var calibrationVariance: Double {
    guard let spread = PairedDifferences(byResample).standardDeviation else { return 0 }
    return max(0, spread * spread - seedVariance)
  }

  /// The lift's 95% interval, seeds and calibration together; `nil` below two replications or
  /// two resamples.
  var interval: ClosedRange<Double>? {
    guard replications >= 2, byResample.count >= 2 else { return nil }
    let seeds = seedVariance / Double(replications)
    let calibration = calibrationVariance
    let total = seeds + calibration
    guard total > 0 else { return lift...lift }
    let df =
      total * total
      / (seeds * seeds / Double(replications - 1) + calibration * calibration / Double(byResample.count - 1))
    let t = StudentT.quantile975(degreesOfFreedom: max(1, Int(df.rounded(.down))))
    let half = t * total.squareRoot()
    return (lift - half)...(lift + half)
  }

  /// The calibration's share of the lift's variance, 0…1.
  var calibrationShare: Double {
    let total = seedVariance / Double(max(1, replications)) + calibrationVariance
    return total > 0 ? calibrationVariance / total : 0
  }

  var verdict: ComparisonVerdict { ComparisonVerdict(interval) }

  /// Runs A and B of `settings` on `count` markets drawn from `file`, and weighs them against
  /// `result`, the comparison on `file` itself.
  static func run(
    _ settings: Comparison.Settings, result: ComparisonResult, file: MarketFile, count: Int,
    registry: AdapterRegistry, progress: (@Sendable (Int) -> Void)? = nil
  ) throws(MediationError) -> CalibrationUncertainty {
    let revenueA = result.perReplicationA[.revenue] ?? []
    let meanA = revenueA.isEmpty ? 0 : revenueA.reduce(0, +) / Double(revenueA.count)
    let differences = result.differences(.revenue)
    let scale = meanA > 0 ? 1 / meanA : 0
    let first = settings.seed &+ UInt64(settings.replications)
    var byResample: [Double] = []
    var draws = Draws(random: SeededRandom(seed: settings.seed).derived("calibration-resamples"))
    for index in 0..<count {
      var resampled = settings
      resampled.calibrated = file.resampled(&draws).model
      resampled.seed = first &+ UInt64(index)
      resampled.replications = 1
      resampled.keepsFunnel = false
      let run = try Comparison(settings: resampled, registry: registry).run()
      byResample.append(
        ((run.perReplicationB[.revenue]?.first ?? 0) - (run.perReplicationA[.revenue]?.first ?? 0)) * scale)
      progress?((index + 1) * settings.requests * 2)
    }
    let seedSpread = PairedDifferences(differences.values.map { $0 * scale }).standardDeviation ?? 0
    return CalibrationUncertainty(
      byResample: byResample, seeds: first...(first &+ UInt64(max(0, count - 1))),
      lift: differences.mean * scale,
      seedVariance: seedSpread * seedSpread, replications: settings.replications)
  }

  var json: [String: Any] {
    [
      "resamples": byResample.count,
      "seeds": [seeds.lowerBound, seeds.upperBound],
      "relative_by_resample": byResample.map { JSONLine.rounded($0, 6) },
      "ci95_relative_with_calibration": interval.map {
        [JSONLine.rounded($0.lowerBound, 6), JSONLine.rounded($0.upperBound, 6)]
      } ?? NSNull() as Any,
      "calibration_share_of_variance": JSONLine.rounded(calibrationShare, 4),
      "verdict_with_calibration": verdict.rawValue,
    ]
  }

  /// `With the calibration's uncertainty (10 resampled markets): B earns +4.0% (95% CI +2.1% …
  /// +5.9%); the calibration makes 83% of the interval's variance`.
  var text: String {
    let range = interval.map {
      "95% CI \(ComparisonReport.percent($0.lowerBound, digits: 1)) … \(ComparisonReport.percent($0.upperBound, digits: 1))"
    }
    return "With the calibration's uncertainty (\(byResample.count) markets drawn from it, seeds "
      + "\(seeds.lowerBound)…\(seeds.upperBound)): B earns \(ComparisonReport.percent(lift, digits: 1)) revenue ("
      + (range ?? "no CI: it needs 2 replications and 2 resamples") + "); the calibration makes "
      + String(format: "%.0f%%", calibrationShare * 100) + " of the interval's variance"
      + (verdict == .bBetter || verdict == .aBetter ? "" : ": not significant once the calibration counts")
  }
}
