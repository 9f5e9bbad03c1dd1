import Foundation
import MediationKit

/// The Wilson score interval of a proportion: honest for small samples and for proportions near
/// 0 or 1, where the normal interval is not.
enum Wilson {
  /// The 95% interval of `successes` in `trials`; `nil` without trials.
  static func interval(successes: Int, trials: Int) -> ClosedRange<Double>? {
    guard trials > 0, successes >= 0, successes <= trials else { return nil }
    let z = StudentT.normal975
    let n = Double(trials)
    let p = Double(successes) / n
    let centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    let half = z / (1 + z * z / n) * (p * (1 - p) / n + z * z / (4 * n * n)).squareRoot()
    return max(0, centre - half)...min(1, centre + half)
  }

  /// How many trials estimate a proportion near `p` to within `margin` (both sides, 95%).
  static func trialsNeeded(p: Double, margin: Double) -> Int {
    let z = StudentT.normal975
    return Int((z * z * p * (1 - p) / (margin * margin)).rounded(.up))
  }
}

/// Streaming moments of the logarithm of positive values, for a log-normal fit: the median is
/// `e^mean(log x)`, the spread the standard deviation of `log x` (maximum likelihood, n − 1).
struct LogMoments: Equatable {
  private(set) var count = 0
  private var sum = 0.0
  private var sumOfSquares = 0.0

  /// Adds `value` when it is positive and finite (a zero price or latency has no logarithm).
  mutating func add(_ value: Double) {
    guard value > 0, value.isFinite else { return }
    let logged = log(value)
    count += 1
    sum += logged
    sumOfSquares += logged * logged
  }

  mutating func merge(_ other: LogMoments) {
    count += other.count
    sum += other.sum
    sumOfSquares += other.sumOfSquares
  }

  /// The fitted distribution; `nil` below two values.
  var fit: LogNormal? {
    guard count >= 2 else { return nil }
    let mean = sum / Double(count)
    let variance = max(0, (sumOfSquares - Double(count) * mean * mean) / Double(count - 1))
    return LogNormal(median: exp(mean), sigma: variance.squareRoot())
  }
}

/// How well a market's figures are known, and markets drawn from that uncertainty.
enum MarketUncertainty {
  /// The 95% interval of a price distribution's mean, from how many prices it rests on: the mean
  /// of n log-normal prices has a coefficient of variation `√(e^σ² − 1) / √n`.
  static func meanInterval(_ price: MarketFile.Price) -> ClosedRange<Double>? {
    guard let n = price.observations, n > 0 else { return nil }
    let spread = StudentT.normal975 * logMeanError(price, n)
    let mean = price.distribution.mean
    return mean * exp(-spread)...mean * exp(spread)
  }

  /// The standard error of the log of the mean price (or median, which moves with it).
  static func logMeanError(_ price: MarketFile.Price, _ n: Int) -> Double {
    price.sigmaFromData
      ? price.sigma / Double(n).squareRoot()
      : (exp(price.sigma * price.sigma) - 1).squareRoot() / Double(n).squareRoot()
  }
}

/// Draws from the distributions the resampling needs, from a ``SeededRandom``.
struct Draws {
  var random: SeededRandom

  mutating func normal() -> Double { random.nextGaussian() }

  /// Gamma(shape, 1) (Marsaglia and Tsang; below shape 1, boosted by `U^(1/shape)`).
  mutating func gamma(_ shape: Double) -> Double {
    guard shape > 0 else { return 0 }
    if shape < 1 { return gamma(shape + 1) * pow(max(random.nextUnit(), 1e-300), 1 / shape) }
    let d = shape - 1.0 / 3
    let c = 1 / (9 * d).squareRoot()
    while true {
      var x = 0.0
      var v = 0.0
      repeat {
        x = normal()
        v = 1 + c * x
      } while v <= 0
      v = v * v * v
      let u = random.nextUnit()
      if u < 1 - 0.0331 * x * x * x * x || log(max(u, 1e-300)) < 0.5 * x * x + d * (1 - v + log(v)) {
        return d * v
      }
    }
  }

  /// Beta(a, b).
  mutating func beta(_ a: Double, _ b: Double) -> Double {
    let x = gamma(a)
    let y = gamma(b)
    return x + y > 0 ? x / (x + y) : 0.5
  }

  /// χ²(k) / k: the factor a sample variance of k + 1 normal values varies by.
  mutating func chiSquareRatio(_ k: Int) -> Double { k > 0 ? 2 * gamma(Double(k) / 2) / Double(k) : 1 }
}
