import Foundation
import MediationKit

/// What each source can tell, and the figure `calibrate` takes from each (the richest wins):
///
/// | figure | event log | MAX / AdMob report | else |
/// | --- | --- | --- | --- |
/// | fill | fills ÷ answered requests | responses ÷ attempts (timeouts fold into no fill) | default |
/// | no answer | timed-out ÷ all requests | — (0: in the fill) | default |
/// | price | bids and impression revenue: median and spread | revenue ÷ impressions: the mean; spread default | configured eCPM, default spread |
/// | load / bid latency | answered loads' / bid requests' latencies | — | default |
///
/// A default is the simulated network's built-in behaviour (overall) or the overall figure (in a
/// segment with fewer than ``Calibration/minimumSegmentSample`` observations), and every one is
/// written to the line item's `defaults` with the reason.
extension Calibration {
  func estimate(
    _ item: ZoneConfig.LineItem, _ evidence: Evidence, fallback: MarketFile.Estimate, minimum: Int,
    field: String,
    _ defaults: inout [MarketFile.Default]
  ) -> MarketFile.Estimate {
    var estimate = fallback
    let log = evidence.log ?? LineItemObservations()
    let inSegment = !field.isEmpty
    let fallbackName = inSegment ? "the overall figure" : "the simulated \(item.network) network's default"
    let report = evidence.reports.filter { $0.value.hasFill && $0.value.attempts > 0 }
      .max { $0.value.attempts < $1.value.attempts }
    // Fill, and requests never answered.
    if log.answered >= minimum {
      estimate.fill = MarketFile.Proportion(
        value: Double(log.fills) / Double(log.answered), successes: log.fills, trials: log.answered,
        source: "event log")
      if log.loads >= minimum {
        estimate.noAnswer = MarketFile.Proportion(
          value: Double(log.unansweredLoads) / Double(log.loads), successes: log.unansweredLoads,
          trials: log.loads,
          source: "event log")
      }
      if log.bidRequests >= minimum {
        estimate.bidNoAnswer = MarketFile.Proportion(
          value: Double(log.unansweredBids) / Double(log.bidRequests), successes: log.unansweredBids,
          trials: log.bidRequests, source: "event log")
      }
    } else if let (kind, counts) = report, counts.attempts >= minimum {
      estimate.fill = MarketFile.Proportion(
        value: Double(counts.responses) / Double(counts.attempts), successes: counts.responses,
        trials: counts.attempts, source: kind.rawValue)
      estimate.noAnswer = MarketFile.Proportion(value: 0, successes: nil, trials: nil, source: kind.rawValue)
      estimate.bidNoAnswer = estimate.noAnswer
      defaults.append(
        MarketFile.Default(
          field: field + "noAnswer, bidNoAnswer",
          why: "the \(kind.rawValue) counts a request that timed out as an attempt without a response, so "
            + "timeouts are in its fill; no request is modelled as never answered"))
    } else {
      defaults.append(
        MarketFile.Default(
          field: field + "fill",
          why: "no source has \(minimum > 1 ? "\(minimum) " : "")answered requests to this line item"
            + (inSegment ? " in this segment" : "") + "; \(fallbackName) is used"))
    }
    estimate.price = price(
      item, log, evidence.reports, fallback: fallback.price, minimum: minimum, field, &defaults)
    // Latencies: only the event log times requests.
    let latencyMinimum = max(minimum, 2)
    if let fit = log.loadLatency.fit, log.loadLatency.count >= latencyMinimum {
      estimate.loadLatency = MarketFile.Latency(
        medianMs: fit.median * 1000, sigma: fit.sigma, observations: log.loadLatency.count,
        source: "event log")
    } else {
      defaults.append(
        MarketFile.Default(
          field: field + "loadLatency",
          why: "no source times \(latencyMinimum) loads of this line item"
            + (evidence.log == nil ? " (reports carry no latencies)" : "") + "; \(fallbackName) is used"))
    }
    if let fit = log.bidLatency.fit, log.bidLatency.count >= latencyMinimum {
      estimate.bidLatency = MarketFile.Latency(
        medianMs: fit.median * 1000, sigma: fit.sigma, observations: log.bidLatency.count, source: "event log"
      )
    } else if !inSegment {
      defaults.append(
        MarketFile.Default(
          field: log.bidRequests >= latencyMinimum ? "bidLatency" : "bidLatency, bidNoAnswer",
          why: "no bid requests to this line item in the data; \(fallbackName) is used should it bid"))
    }
    return Self.clamped(estimate, field: field, &defaults)
  }

  /// `estimate` within what a market file takes (a price median up to the configuration's largest
  /// eCPM and a spread up to 3; a latency median up to 10 minutes and a spread up to 5): data that
  /// fits beyond them (latencies in the wrong unit, say) is clamped, and the market file says so.
  static func clamped(_ estimate: MarketFile.Estimate, field: String, _ defaults: inout [MarketFile.Default])
    -> MarketFile.Estimate
  {
    var estimate = estimate
    func clamp(_ value: inout Double, _ range: ClosedRange<Double>, _ name: String) {
      guard !range.contains(value) else { return }
      let found = value
      value = value.isFinite ? min(max(value, range.lowerBound), range.upperBound) : range.lowerBound
      defaults.append(
        MarketFile.Default(
          field: field + name,
          why:
            "the data gives \(found), beyond the \(range.lowerBound)…\(range.upperBound) a market file takes; "
            + "clamped to \(value): check the data's units"))
    }
    clamp(&estimate.price.median, 0...MediationConfig.Limits.maxECPM, "price.median")
    clamp(&estimate.price.sigma, 0...3, "price.sigma")
    clamp(&estimate.loadLatency.medianMs, 0...600_000, "loadLatency.medianMs")
    clamp(&estimate.loadLatency.sigma, 0...5, "loadLatency.sigma")
    if var bid = estimate.bidLatency {
      clamp(&bid.medianMs, 0...600_000, "bidLatency.medianMs")
      clamp(&bid.sigma, 0...5, "bidLatency.sigma")
      estimate.bidLatency = bid
    }
    return estimate
  }

  private func price(
    _ item: ZoneConfig.LineItem, _ log: LineItemObservations, _ reports: [ReportRow.Kind: ReportCounts],
    fallback: MarketFile.Price, minimum: Int, _ field: String, _ defaults: inout [MarketFile.Default]
  ) -> MarketFile.Price {
    let needed = max(minimum, Self.minimumPrices)
    if let fit = log.prices.fit, log.prices.count >= needed {
      return MarketFile.Price(
        median: fit.median, sigma: fit.sigma, observations: log.prices.count, sigmaFromData: true,
        source: "event log")
    }
    if let (kind, counts) = reports.filter({ $0.value.hasRevenue && $0.value.impressions >= minimum })
      .max(by: { $0.value.impressions < $1.value.impressions })
    {
      let mean = counts.revenueUSD * 1000 / Double(counts.impressions)
      let sigma = fallback.sigma
      defaults.append(
        MarketFile.Default(
          field: field + "price.sigma",
          why: "the \(kind.rawValue) gives the mean eCPM only; the spread \(sigma) is "
            + (field.isEmpty ? "the simulated networks' price spread" : "the overall one")))
      if item.bidding && zone.strategy != .waterfall {
        defaults.append(
          MarketFile.Default(
            field: field + "price.median",
            why:
              "the line item bids, and the \(kind.rawValue)'s eCPM is what its winning bids paid: above its "
              + "mean bid (an event log, which has every bid, would not be)"))
      }
      return MarketFile.Price(
        median: mean / exp(sigma * sigma / 2), sigma: sigma, observations: counts.impressions,
        sigmaFromData: false,
        source: kind.rawValue)
    }
    defaults.append(
      MarketFile.Default(
        field: field + "price",
        why: "no source has \(needed) prices or an impression of this line item"
          + (field.isEmpty
            ? "; its configured eCPM \(ConfigChange.money(item.ecpm)) is the median"
            : "; the overall price is used")))
    return fallback
  }

  /// A note when the event log and a report disagree on a line item's fill by more than their
  /// sampling explains (3 standard errors): they may not cover the same traffic or days.
  func disagreement(_ item: ZoneConfig.LineItem, _ index: Int, _ evidence: Evidence) -> String? {
    guard let log = evidence.log, log.attempts >= 30 else { return nil }
    let logFill = Double(log.fills) / Double(log.attempts)
    for (kind, counts) in evidence.reports.sorted(by: { $0.key.rawValue < $1.key.rawValue })
    where counts.hasFill && counts.attempts >= 30 {
      let reportFill = Double(counts.responses) / Double(counts.attempts)
      let error =
        (logFill * (1 - logFill) / Double(log.attempts) + reportFill * (1 - reportFill)
        / Double(counts.attempts))
        .squareRoot()
      if abs(logFill - reportFill) > 3 * max(error, 1e-9) {
        return "lineItems[\(index)] (\(item.network) \(item.placementId)): the event log fills "
          + String(format: "%.1f%%", logFill * 100) + " of requests, the \(kind.rawValue) "
          + String(format: "%.1f%%", reportFill * 100)
          + ": more apart than sampling explains; do they cover the same days and traffic?"
      }
    }
    return nil
  }
}
