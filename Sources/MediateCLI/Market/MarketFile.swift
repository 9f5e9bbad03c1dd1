import Foundation
import MediationKit

/// A market file: what `mediate calibrate` writes and `--market FILE` reads — per line item of a
/// zone (network and placement id), and per segment (country) where the data had them, its fill
/// probability, how often it never answers, its price distribution and its latency distributions,
/// each with where it came from and, when the data said, how much data it rests on (so
/// `compare` and `optimize` can tell how much of their uncertainty comes from the calibration).
///
/// A publisher can also write one by hand: only each line item's `network`, `placementId`,
/// `fill.probability`, `price` (`median` or `mean`, and `sigma`) and `loadLatency` (`medianMs`,
/// `sigma`) are required. CommandLine.md documents every key.
struct MarketFile: Equatable {
  /// The key whose value is the format's version; a JSON file without it is a configuration file.
  static let versionKey = "mediationkitMarket"
  static let version = 1

  /// A probability, and when it was counted, the counts it came from.
  struct Proportion: Equatable {
    var value: Double
    var successes: Int?
    var trials: Int?
    var source: String
  }

  /// A log-normal price distribution, USD per thousand impressions.
  struct Price: Equatable {
    var median: Double
    var sigma: Double
    /// How many prices (impressions or bids) it was estimated from.
    var observations: Int?
    /// Whether `sigma` was estimated from impression-level prices (else it is a default).
    var sigmaFromData: Bool
    var source: String

    var distribution: LogNormal { LogNormal(median: median, sigma: sigma) }
  }

  /// A log-normal latency distribution.
  struct Latency: Equatable {
    var medianMs: Double
    var sigma: Double
    var observations: Int?
    var source: String

    /// In seconds, as the simulated networks draw it.
    var distribution: LogNormal { LogNormal(median: medianMs / 1000, sigma: sigma) }
  }

  /// Everything known of a line item, overall or in one segment.
  struct Estimate: Equatable {
    var fill: Proportion
    var noAnswer: Proportion
    /// `nil`: every bid request is answered, as the simulated networks answer them.
    var bidNoAnswer: Proportion?
    var price: Price
    var loadLatency: Latency
    /// `nil`: bid requests take as long as loads.
    var bidLatency: Latency?

    var behaviour: LineItemBehaviour {
      LineItemBehaviour(
        fill: fill.value, noAnswer: noAnswer.value, bidNoAnswer: bidNoAnswer?.value ?? 0,
        price: price.distribution,
        loadLatency: loadLatency.distribution, bidLatency: (bidLatency ?? loadLatency).distribution)
    }
  }

  /// A value the data could not give: which, and why the default was used.
  struct Default: Equatable {
    var field: String
    var why: String
  }

  struct LineItem: Equatable {
    var network: NetworkID
    var placementID: String
    /// Over all the traffic.
    var estimate: Estimate
    /// Per segment, where the data had enough of it; a segment missing here uses ``estimate``.
    var segments: [String: Estimate] = [:]
    var defaults: [Default] = []
  }

  /// A segment of the traffic and its share of the auctions.
  struct Segment: Equatable {
    var name: String
    var share: Double
    var auctions: Int?
  }

  /// A source the market was calibrated from, as `calibrate` summarized it (kept for people; not
  /// read back into the simulation).
  struct Source: Equatable {
    var kind: String
    var path: String
    var summary: String
  }

  var zone: String
  var segmentBy: String?
  var segments: [Segment] = []
  var lineItems: [LineItem]
  var sources: [Source] = []
  /// What `calibrate` says about the data as a whole (unmatched rows, duplicates).
  var notes: [String] = []

  /// The market the simulated networks draw from.
  var model: CalibratedMarket {
    let shares =
      segments.isEmpty
      ? [CalibratedMarket.Segment(name: nil, share: 1)]
      : segments.map {
        CalibratedMarket.Segment(name: $0.name, share: $0.share)
      }
    var behaviours: [CalibratedMarket.Key: [LineItemBehaviour]] = [:]
    for item in lineItems {
      behaviours[CalibratedMarket.Key(network: item.network, placementID: item.placementID)] = shares.map {
        segment in (segment.name.flatMap { item.segments[$0] } ?? item.estimate).behaviour
      }
    }
    return CalibratedMarket(dimension: segmentBy, segments: shares, behaviours: behaviours)
  }

  /// Whether `data` is a market file rather than a configuration file: a JSON object with
  /// ``versionKey``.
  static func isMarketFile(_ data: Data) -> Bool {
    let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
    guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
      return false
    }
    return object[versionKey] != nil
  }
}
