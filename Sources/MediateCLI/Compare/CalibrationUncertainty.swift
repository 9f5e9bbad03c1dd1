import Foundation
import MediationKit

/// How much of a comparison's uncertainty comes from the market's calibration, when it ran on a
/// market file whose figures rest on counted data.
///
/// The comparison's own interval comes from its seeds: the same market, other users. A market
/// calibrated from a few days of data is itself uncertain, so the comparison runs again on `K`
/// markets drawn from the calibration's uncertainty (``MarketFile/resampled(_:)``). Resampled
/// market k runs on replication `k mod R`'s seed, so it meets the same users and draws as that
/// replication did on the calibrated market (common random numbers): the change in the revenue
/// difference B − A between the two is the calibration's doing, not the seeds'. The variance of
/// those changes (as fractions of A's mean revenue per replication) is the calibration's; the
/// lift's variance is `seeds / R + calibration`, its interval `lift ± t·√(that)` (t with
/// Welch–Satterthwaite degrees of freedom), and the calibration's share is its part of that
/// variance.
struct CalibrationUncertainty {
  /// The revenue difference on each resampled market, as a fraction of A's mean revenue.
  let byResample: [Double]
  /// How much each resampled market moved the difference from its seed's on the calibrated market.
  let shifts: [Double]
  /// The seeds the resampled markets ran on (the replications').
  let seeds: ClosedRange<UInt64>
  /// The lift (B − A over A) on the calibrated market, and the seeds' part of its variance.
  let lift: Double
  let seedVariance: Double
  let replications: Int

  /// The variance the calibration adds to the lift.
  var calibrationVariance: Double {
    guard let spread = PairedDifferences(shifts).standardDeviation else { return 0 }
    return spread * spread
  }

  /// The lift's 95% interval, seeds and calibration together; `nil` below two replications or
  /// two resamples.
  var interval: ClosedRange<Double>? {
    guard replications >= 2, shifts.count >= 2 else { return nil }
    let seeds = seedVariance / Double(replications)
    let calibration = calibrationVariance
    let total = seeds + calibration
    guard total > 0 else { return lift...lift }
    let df =
      total * total
      / (seeds * seeds / Double(replications - 1) + calibration * calibration / Double(shifts.count - 1))
    let t = StudentT.quantile975(degreesOfFreedom: df.isFinite ? max(1, Int(min(df, 1e6).rounded(.down))) : 1)
    let half = t * total.squareRoot()
    return (lift - half)...(lift + half)
  }

  /// The calibration's share of the lift's variance, 0…1.
  var calibrationShare: Double {
    let total = seedVariance / Double(max(1, replications)) + calibrationVariance
    return total > 0 ? calibrationVariance / total : 0
  }

  var verdict: ComparisonVerdict { ComparisonVerdict(interval) }

  /// Runs A and B of `settings` on `count` markets drawn from `file`, each on a replication's
  /// seed, and weighs them against `result`, the comparison on `file` itself.
  static func run(
    _ settings: Comparison.Settings, result: ComparisonResult, file: MarketFile, count: Int,
    registry: AdapterRegistry, progress: (@Sendable (Int) -> Void)? = nil
  ) throws(MediationError) -> CalibrationUncertainty {
    let revenueA = result.perReplicationA[.revenue] ?? []
    let meanA = revenueA.isEmpty ? 0 : revenueA.reduce(0, +) / Double(revenueA.count)
    let scale = meanA > 0 ? 1 / meanA : 0
    let differences = result.differences(.revenue).values.map { $0 * scale }
    var byResample: [Double] = []
    var shifts: [Double] = []
    var draws = Draws(random: SeededRandom(seed: settings.seed).derived("calibration-resamples"))
    let seeds = Comparison(settings: settings, registry: registry)
    for index in 0..<count {
      let replication = index % max(1, settings.replications)
      var resampled = settings
      resampled.calibrated = file.resampled(&draws).model
      resampled.seed = seeds.seed(ofReplication: replication)
      resampled.replications = 1
      resampled.keepsFunnel = false
      let run = try Comparison(settings: resampled, registry: registry).run()
      let difference = run.differences(.revenue).mean * scale
      byResample.append(difference)
      shifts.append(difference - (differences.indices.contains(replication) ? differences[replication] : 0))
      progress?((index + 1) * settings.requests * 2)
    }
    let paired = PairedDifferences(differences)
    let seedSpread = paired.standardDeviation ?? 0
    let last = seeds.seed(ofReplication: max(0, min(count, settings.replications) - 1))
    return CalibrationUncertainty(
      byResample: byResample, shifts: shifts, seeds: settings.seed...last, lift: paired.mean,
      seedVariance: seedSpread * seedSpread, replications: settings.replications)
  }

  var json: [String: Any] {
    [
      "resamples": byResample.count,
      "seeds": [seeds.lowerBound, seeds.upperBound],
      "relative_by_resample": byResample.map { JSONLine.rounded($0, 6) },
      "shift_by_resample": shifts.map { JSONLine.rounded($0, 6) },
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
    return
      "With the calibration's uncertainty (\(byResample.count) markets drawn from it, on the replications' "
      + "seeds \(seeds.lowerBound)…\(seeds.upperBound)): B earns \(ComparisonReport.percent(lift, digits: 1)) revenue ("
      + (range ?? "no CI: it needs 2 replications and 2 resamples") + "); the calibration makes "
      + String(format: "%.0f%%", calibrationShare * 100) + " of the interval's variance"
      + (verdict == .bBetter || verdict == .aBetter ? "" : ": not significant once the calibration counts")
  }
}
