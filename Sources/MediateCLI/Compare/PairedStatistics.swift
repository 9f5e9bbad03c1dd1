import Foundation

/// Student's t distribution: the two-sided 95% critical value for any degrees of freedom.
enum StudentT {
  /// t(0.975, df) for df 1…30 (standard tables, 6 decimals).
  private static let table: [Double] = [
    12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157, 2.228139,
    2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922, 2.093024, 2.085963,
    2.079614, 2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272,
  ]
  /// z(0.975), the limit as df grows.
  static let normal975 = 1.959963984540054

  /// The value t with P(T ≤ t) = 0.975 for `degreesOfFreedom` ≥ 1: the table up to 30, then the
  /// Cornish–Fisher expansion in 1/df around the normal quantile (error below 1e-6 from df 30 on).
  static func quantile975(degreesOfFreedom df: Int) -> Double {
    precondition(df >= 1, "a t distribution needs at least one degree of freedom")
    if df <= table.count { return table[df - 1] }
    let z = normal975
    let v = Double(df)
    let g1 = (pow(z, 3) + z) / 4
    let g2 = (5 * pow(z, 5) + 16 * pow(z, 3) + 3 * z) / 96
    let g3 = (3 * pow(z, 7) + 19 * pow(z, 5) + 17 * pow(z, 3) - 15 * z) / 384
    let g4 = (79 * pow(z, 9) + 776 * pow(z, 7) + 1482 * pow(z, 5) - 1920 * pow(z, 3) - 945 * z) / 92160
    return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v)
  }
}

/// The differences B − A of paired observations (replication r of A and of B ran on the same
/// seed), and the paired t confidence interval of their mean.
struct PairedDifferences: Equatable {
  let values: [Double]

  init(_ values: [Double]) { self.values = values }

  /// Pairs `b[i] − a[i]`.
  init(a: [Double], b: [Double]) {
    precondition(a.count == b.count, "paired samples have the same length")
    values = zip(a, b).map { $1 - $0 }
  }

  var count: Int { values.count }
  var mean: Double { values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count) }

  /// The sample standard deviation (n − 1); `nil` below two values.
  var standardDeviation: Double? {
    guard values.count >= 2 else { return nil }
    let mean = self.mean
    let squares = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
    return (squares / Double(values.count - 1)).squareRoot()
  }

  /// The 95% confidence interval of the mean difference, mean ± t(0.975, n − 1)·s/√n; `nil` below
  /// two pairs, where no interval can be estimated.
  var confidenceInterval95: ClosedRange<Double>? {
    guard let sd = standardDeviation else { return nil }
    let half =
      StudentT.quantile975(degreesOfFreedom: values.count - 1) * sd / Double(values.count).squareRoot()
    return (mean - half)...(mean + half)
  }
}

/// What a comparison concludes from the confidence interval of a difference B − A where more is
/// better.
enum ComparisonVerdict: String, Equatable {
  case aBetter = "a_better"
  case bBetter = "b_better"
  case noSignificantDifference = "no_significant_difference"

  /// `b_better` when the whole interval is above zero, `a_better` when it is below, otherwise (or
  /// without an interval) no significant difference.
  init(_ interval: ClosedRange<Double>?) {
    guard let interval else {
      self = .noSignificantDifference
      return
    }
    if interval.lowerBound > 0 {
      self = .bBetter
    } else if interval.upperBound < 0 {
      self = .aBetter
    } else {
      self = .noSignificantDifference
    }
  }
}
