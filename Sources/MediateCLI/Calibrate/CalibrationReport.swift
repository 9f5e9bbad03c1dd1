import Foundation
import MediationKit

/// A calibration as `calibrate` prints it: every line item's figures with their intervals and
/// sources, the sample a fill within ±2 points would need where the data falls short, every
/// default with its reason, and the notes (unmatched rows, duplicates, disagreements).
struct CalibrationReport {
  let market: MarketFile
  let zone: ZoneConfig
  let outPath: String

  /// The margin a fill estimate should reach (±2 points, 95%).
  static let fillMargin = 0.02

  var json: [String: Any] {
    [
      "zone": market.zone,
      "out": outPath,
      "segment_by": market.segmentBy ?? NSNull() as Any,
      "segments": market.segments.map {
        ["name": $0.name, "share": JSONLine.rounded($0.share, 6)] as [String: Any]
      },
      "line_items": market.lineItems.enumerated().map { index, item in lineItemJSON(index, item) },
      "notes": market.notes,
      "sources": market.sources.map { ["kind": $0.kind, "path": $0.path, "summary": $0.summary] },
    ]
  }

  private func lineItemJSON(_ index: Int, _ item: MarketFile.LineItem) -> [String: Any] {
    var object = item.json
    object["line_item"] = index
    let fill = item.estimate.fill
    if let trials = fill.trials,
      let interval = Wilson.interval(successes: fill.successes ?? 0, trials: trials),
      interval.upperBound - interval.lowerBound > 2 * Self.fillMargin
    {
      object["answered_needed_for_2pt_fill"] = Wilson.trialsNeeded(p: fill.value, margin: Self.fillMargin)
    }
    return object
  }

  func text(source: String) -> String {
    var lines = [
      "Calibrated zone '\(market.zone)' of \(source) from "
        + market.sources.map { "\($0.path) (\($0.summary))" }.joined(separator: ", ")
    ]
    if let segmentBy = market.segmentBy {
      lines.append(
        "Segments by \(segmentBy): "
          + market.segments.map { "\($0.name) \(String(format: "%.1f%%", $0.share * 100))" }.joined(
            separator: ", "))
    }
    for (index, item) in market.lineItems.enumerated() {
      lines.append("")
      lines.append("lineItems[\(index)] \(item.network) \(item.placementID)")
      lines += Self.describe(item.estimate).map { "  " + $0 }
      for name in item.segments.keys.sorted() {
        guard let estimate = item.segments[name] else { continue }
        lines.append(
          "  \(market.segmentBy ?? "segment") \(name): " + Self.describe(estimate).joined(separator: "; "))
      }
      let fill = item.estimate.fill
      if let trials = fill.trials,
        let interval = Wilson.interval(successes: fill.successes ?? 0, trials: trials),
        interval.upperBound - interval.lowerBound > 2 * Self.fillMargin
      {
        lines.append(
          "  fill known to ±\(String(format: "%.1f", (interval.upperBound - interval.lowerBound) * 50)) points: "
            + "±2 points needs about \(Wilson.trialsNeeded(p: fill.value, margin: Self.fillMargin)) answered requests, "
            + "it has \(trials)")
      }
      for note in item.defaults { lines.append("  default \(note.field): \(note.why)") }
    }
    if !market.notes.isEmpty {
      lines.append("")
      lines += market.notes.map { "note: " + $0 }
    }
    lines += ["", "Wrote \(outPath)"]
    return lines.joined(separator: "\n")
  }

  /// One estimate's figures: fill, no answer, price, latencies, each with its source.
  static func describe(_ estimate: MarketFile.Estimate) -> [String] {
    let fill = estimate.fill
    var fillText = "fill \(percent(fill.value))"
    if let k = fill.successes, let n = fill.trials, let interval = Wilson.interval(successes: k, trials: n) {
      let counted =
        fill.source == "event log" ? "\(k) fills of \(n) answered" : "\(k) responses of \(n) attempts"
      fillText += " (95% CI \(percent(interval.lowerBound))–\(percent(interval.upperBound)), \(counted))"
    }
    fillText +=
      " [\(fill.source)]; no answer \(percent(estimate.noAnswer.value)) [\(estimate.noAnswer.source)]"
    if let bid = estimate.bidNoAnswer, bid.value > 0 || bid.source != "default" {
      fillText += ", to bid requests \(percent(bid.value)) [\(bid.source)]"
    }
    let price = estimate.price
    var priceText = "price mean \(money(price.distribution.mean))"
    if let interval = MarketUncertainty.meanInterval(price) {
      priceText += " (95% CI \(money(interval.lowerBound))–\(money(interval.upperBound)))"
    }
    priceText +=
      ", median \(money(price.median)), σ \(String(format: "%.2f", price.sigma))"
      + (price.observations.map {
        price.sigmaFromData ? " from \($0) prices" : " from \($0) impressions' mean"
      } ?? "")
      + " [\(price.source)]"
    return [fillText, priceText, latency("load", estimate.loadLatency)]
      + (estimate.bidLatency.map { [latency("bid", $0)] } ?? [])
  }

  static func latency(_ name: String, _ latency: MarketFile.Latency) -> String {
    "\(name) latency median \(String(format: "%.0f", latency.medianMs)) ms, p99 "
      + String(format: "%.0f", latency.distribution.quantile(0.99) * 1000)
      + " ms, σ \(String(format: "%.2f", latency.sigma))"
      + (latency.observations.map { " from \($0) requests" } ?? "") + " [\(latency.source)]"
  }

  static func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }
  static func money(_ value: Double) -> String { String(format: "$%.2f", value) }
}
