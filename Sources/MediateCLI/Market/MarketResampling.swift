import Foundation
import MediationKit

/// Markets drawn from a calibration's uncertainty (a parametric bootstrap of its data): each
/// figure the data counted is drawn again from what those counts allow, so running `compare` or
/// `optimize` on several such markets shows how much their answer moves with the calibration.
///
/// - A probability counted as k of n (fill, no answer) is drawn from Beta(k + ½, n − k + ½), the
///   Jeffreys posterior: close to k/n with n large, wide with n small.
/// - A price or latency distribution fitted from n values has its median moved by the standard
///   error of a log-mean (`σ/√n`; for a price from a report's mean eCPM, `√(e^σ² − 1)/√n`), and a
///   spread fitted from data scaled by `√(χ²(n−1)/(n−1))`; a default spread stays.
/// - Segment shares counted in auctions are drawn from the Dirichlet of those counts.
///
/// Figures without counts (written by hand, or defaults) are taken as exact.
extension MarketFile {
  /// Whether any figure carries counts, so resampling can move it.
  var hasSampleSizes: Bool {
    lineItems.contains { item in
      ([item.estimate] + Array(item.segments.values)).contains { $0.hasSampleSizes }
    } || segments.contains { $0.auctions != nil }
  }

  /// A market drawn from this one's uncertainty.
  func resampled(_ draws: inout Draws) -> MarketFile {
    var market = self
    if segments.allSatisfy({ $0.auctions != nil }) {
      let weights = segments.map { draws.gamma(Double($0.auctions ?? 0) + 0.5) }
      let total = weights.reduce(0, +)
      for index in market.segments.indices where total > 0 {
        market.segments[index].share = weights[index] / total
      }
    }
    for index in market.lineItems.indices {
      market.lineItems[index].estimate = lineItems[index].estimate.resampled(&draws)
      for name in lineItems[index].segments.keys.sorted() {
        market.lineItems[index].segments[name] = lineItems[index].segments[name]?.resampled(&draws)
      }
    }
    return market
  }
}

extension MarketFile.Estimate {
  var hasSampleSizes: Bool {
    fill.trials != nil || noAnswer.trials != nil || bidNoAnswer?.trials != nil || price.observations != nil
      || loadLatency.observations != nil
      || bidLatency?.observations != nil
  }

  func resampled(_ draws: inout Draws) -> MarketFile.Estimate {
    var estimate = self
    estimate.fill = fill.resampled(&draws)
    estimate.noAnswer = noAnswer.resampled(&draws)
    estimate.bidNoAnswer = bidNoAnswer?.resampled(&draws)
    estimate.price = price.resampled(&draws)
    estimate.loadLatency = loadLatency.resampled(&draws)
    estimate.bidLatency = bidLatency?.resampled(&draws)
    return estimate
  }
}

extension MarketFile.Proportion {
  func resampled(_ draws: inout Draws) -> MarketFile.Proportion {
    guard let k = successes, let n = trials, n > 0 else { return self }
    var drawn = self
    drawn.value = draws.beta(Double(k) + 0.5, Double(n - k) + 0.5)
    return drawn
  }
}

extension MarketFile.Price {
  func resampled(_ draws: inout Draws) -> MarketFile.Price {
    guard let n = observations, n >= 2 else { return self }
    var drawn = self
    drawn.median = median * exp(MarketUncertainty.logMeanError(self, n) * draws.normal())
    if sigmaFromData { drawn.sigma = sigma * draws.chiSquareRatio(n - 1).squareRoot() }
    return drawn
  }
}

extension MarketFile.Latency {
  func resampled(_ draws: inout Draws) -> MarketFile.Latency {
    guard let n = observations, n >= 2 else { return self }
    var drawn = self
    drawn.medianMs = medianMs * exp(sigma / Double(n).squareRoot() * draws.normal())
    drawn.sigma = sigma * draws.chiSquareRatio(n - 1).squareRoot()
    return drawn
  }
}
