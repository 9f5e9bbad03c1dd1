import Foundation
import MediationKit

/// A log-normal distribution, by its median and the spread of its logarithm.
struct LogNormal: Sendable, Equatable {
  var median: Double
  var sigma: Double

  /// The mean, `median · e^(σ²/2)`.
  var mean: Double { median * exp(sigma * sigma / 2) }

  /// The value at quantile `fraction` (0 < fraction < 1).
  func quantile(_ fraction: Double) -> Double { median * exp(sigma * NormalQuantile.of(fraction)) }

}

/// The inverse of the standard normal distribution function (Acklam's rational approximation,
/// relative error below 1.2e-9), for quantiles of the fitted distributions.
enum NormalQuantile {
  static func of(_ p: Double) -> Double {
    let p = min(max(p, 1e-300), 1 - 1e-16)
    let a = [
      -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.3577518672690, -30.66479806614716,
      2.506628277459239,
    ]
    let b = [
      -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
    ]
    let c = [
      -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734,
      4.374664141464968, 2.938163982698783,
    ]
    let d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416]
    let low = 0.02425
    if p < low {
      let q = (-2 * log(p)).squareRoot()
      return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
        / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    }
    if p > 1 - low { return -of(1 - p) }
    let q = p - 0.5
    let r = q * q
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
      / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
  }
}

/// What one line item does in the market: how often a request to it is never answered, how long
/// it takes to answer, how often it fills, and at what price.
///
/// A request (a waterfall load, or a bid request) is not answered at all with probability
/// ``noAnswer`` (``bidNoAnswer`` for a bid request; the engine times it out); otherwise it is
/// answered after a ``loadLatency`` (``bidLatency`` for a bid request), with an ad with
/// probability ``fill`` at a price drawn from ``price`` (USD per thousand impressions), else with
/// no fill. Fill, price and latency are drawn independently, as the simulated SDKs draw them.
struct LineItemBehaviour: Sendable, Equatable {
  var fill: Double
  var noAnswer: Double
  var bidNoAnswer: Double
  /// USD per thousand impressions.
  var price: LogNormal
  /// Seconds.
  var loadLatency: LogNormal
  /// Seconds.
  var bidLatency: LogNormal
}

/// A market the simulated networks draw from instead of their built-in behaviour: per line item
/// (network and placement id) and segment, a ``LineItemBehaviour`` (`--market FILE` with a market
/// file `mediate calibrate` writes).
///
/// Traffic is split into segments (countries, say), each with its share; every auction belongs to
/// one, drawn from the shares with a stream keyed by the run's shard seed and the auction id, so
/// every network asked in an auction sees the same segment and the same seed gives the same split.
/// A market without segments has one, unnamed, with all the traffic.
struct CalibratedMarket: Sendable, Equatable {
  typealias Key = MarketPrices.Key

  struct Segment: Sendable, Equatable {
    /// The segment's value of ``CalibratedMarket/dimension`` (`"US"`); `nil` for all traffic.
    var name: String?
    var share: Double
  }

  /// What the segments split traffic by (`"country"`), if the market has segments.
  var dimension: String?
  var segments: [Segment]
  /// Per line item, its behaviour in each segment, in ``segments``' order.
  var behaviours: [Key: [LineItemBehaviour]]

  /// The market of one segment: all traffic is `name`'s.
  func selecting(segment name: String) -> CalibratedMarket? {
    guard let index = segments.firstIndex(where: { $0.name == name }) else { return nil }
    return CalibratedMarket(
      dimension: dimension, segments: [Segment(name: name, share: 1)],
      behaviours: behaviours.mapValues { [$0[index]] })
  }

  /// The segment auction `auctionID` of a shard seeded `seed` belongs to.
  func segment(ofAuction auctionID: UInt64, seed: UInt64) -> Int {
    guard segments.count > 1 else { return 0 }
    var random = SeededRandom.keyed(
      base: SeededRandom(seed: seed).keyBase("market-segment"), index: auctionID)
    let draw = random.nextUnit() * segments.reduce(0) { $0 + $1.share }
    var cumulative = 0.0
    for (index, segment) in segments.enumerated() {
      cumulative += segment.share
      if draw < cumulative { return index }
    }
    return segments.count - 1
  }

  /// The segment's name for auction `auctionID`, for event logs and reports.
  func segmentName(ofAuction auctionID: UInt64, seed: UInt64) -> String? {
    segments[segment(ofAuction: auctionID, seed: seed)].name
  }
}

/// What the simulated networks do, when not their built-in behaviour (`--market FILE`).
enum SimulatedMarket: Sendable, Equatable {
  /// A configuration file: the networks price each line item at its eCPM there (``MarketPrices``),
  /// and keep their built-in fill and latency.
  case prices(MarketPrices)
  /// A market file: fill, prices and latency per line item and segment (``CalibratedMarket``).
  case calibrated(CalibratedMarket)

  var calibrated: CalibratedMarket? {
    if case .calibrated(let market) = self { market } else { nil }
  }
}
