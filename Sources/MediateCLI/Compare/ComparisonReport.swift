import Foundation
import MediationKit

/// A comparison's figures as the CLI prints them: a table, a one-line verdict, or one JSON object.
struct ComparisonReport {
  let result: ComparisonResult
  let settings: Comparison.Settings

  /// `"a"` and `"b"` (the simulator's keys, over every replication), `"delta"` (per metric
  /// `"diff"` and `"ci95"`, `null` below two replications; revenue adds `"relative"` and
  /// `"ci95_relative"`, as fractions of A's revenue), `"verdict"` on revenue, and the run's settings.
  var json: [String: Any] {
    var delta: [String: Any] = [:]
    for metric in ComparedMetric.allCases {
      let value = result.delta(metric)
      var object: [String: Any] = [
        "diff": JSONLine.rounded(value.diff, 6),
        "ci95": value.ci95.map { [JSONLine.rounded($0.lowerBound, 6), JSONLine.rounded($0.upperBound, 6)] }
          ?? NSNull() as Any,
      ]
      if metric == .revenue, let relative = relativeRevenue {
        object["relative"] = JSONLine.rounded(relative.diff, 6)
        object["ci95_relative"] =
          relative.ci95.map { [JSONLine.rounded($0.lowerBound, 6), JSONLine.rounded($0.upperBound, 6)] }
          ?? NSNull() as Any
      }
      delta[metric.rawValue] = object
    }
    return [
      "a": SimulationReport(stats: result.a, wallSeconds: result.wallA).json,
      "b": SimulationReport(stats: result.b, wallSeconds: result.wallB).json,
      "delta": delta,
      "verdict": result.verdict.rawValue,
      "zone": settings.a.id,
      "requests_per_replication": settings.requests,
      "replications": settings.replications,
      "seeds": [settings.seed, settings.seed &+ UInt64(settings.replications - 1)],
    ]
  }

  /// Revenue's difference as a fraction of A's revenue; `nil` when A earned nothing.
  var relativeRevenue: ComparisonResult.Delta? {
    let base = result.a.revenueUSD
    guard base > 0 else { return nil }
    let delta = result.delta(.revenue)
    return ComparisonResult.Delta(
      diff: delta.diff / base, ci95: delta.ci95.map { ($0.lowerBound / base)...($0.upperBound / base) })
  }

  func text(sources: (a: String, b: String)) -> String {
    let zone = settings.a
    let last = settings.seed &+ UInt64(settings.replications - 1)
    var lines = [
      "Compared zone '\(zone.id)' · \(zone.strategy.rawValue) (A), \(settings.b.strategy.rawValue) (B) · networks "
        + settings.networks.map(\.rawValue).joined(separator: ", ")
        + " · \(settings.requests) requests × \(settings.replications) replications, paired seeds \(settings.seed)…\(last)",
      "A: \(sources.a)",
      "B: \(sources.b)",
      "",
      "  " + pad("metric", 22) + pad("A", 14) + pad("B", 14) + pad("B − A", 14) + "95% CI of B − A",
    ]
    for metric in ComparedMetric.allCases {
      let delta = result.delta(metric)
      let interval =
        delta.ci95.map { "\(Self.signed(metric, $0.lowerBound)) … \(Self.signed(metric, $0.upperBound))" }
        ?? "unavailable (1 replication)"
      lines.append(
        "  " + pad(metric.label, 22) + pad(Self.format(metric, metric.value(result.a)), 14)
          + pad(Self.format(metric, metric.value(result.b)), 14) + pad(Self.signed(metric, delta.diff), 14)
          + interval)
    }
    lines += ["", verdictLine, "", "wall \(String(format: "%.2f", result.wallA + result.wallB)) s"]
    return lines.joined(separator: "\n")
  }

  /// `B earns +4.1% revenue (95% CI +3.2% … +5.0%), p99 ready −310 ms`.
  var verdictLine: String {
    let p99 = "p99 ready \(Self.signed(.readyP99, result.delta(.readyP99).diff))"
    let revenue: String
    if let relative = relativeRevenue {
      // Two decimals when one would print a narrow interval as a single number.
      let digits = relative.ci95.map { $0.upperBound - $0.lowerBound < 0.005 } == true ? 2 : 1
      let interval = relative.ci95.map {
        "95% CI \(Self.percent($0.lowerBound, digits: digits)) … \(Self.percent($0.upperBound, digits: digits))"
      }
      revenue =
        "\(Self.percent(relative.diff, digits: digits)) revenue (\(interval ?? "no CI with 1 replication"))"
    } else {
      revenue = "\(Self.signed(.revenue, result.delta(.revenue).diff)) revenue (A earned nothing)"
    }
    switch result.verdict {
    case .bBetter: return "B earns \(revenue), \(p99)"
    case .aBetter: return "A is better: B earns \(revenue), \(p99)"
    case .noSignificantDifference:
      return result.replications < 2
        ? "No verdict with 1 replication (use --replications 2 or more): B earns \(revenue), \(p99)"
        : "No significant revenue difference: B earns \(revenue), \(p99)"
    }
  }

  static func format(_ metric: ComparedMetric, _ value: Double) -> String {
    switch metric {
    case .revenue: String(format: "$%.2f", value)
    case .revenueEfficiency, .fillRate: String(format: "%.2f%%", value * 100)
    case .shows, .rewards: String(format: "%.0f", value)
    case .readyP50, .readyP90, .readyP99: String(format: "%.0f ms", value)
    }
  }

  /// A difference with its sign (a real minus sign), in the metric's unit; rates in points.
  static func signed(_ metric: ComparedMetric, _ value: Double) -> String {
    let magnitude: String =
      switch metric {
      case .revenue: String(format: "$%.2f", abs(value))
      case .revenueEfficiency, .fillRate: String(format: "%.2f pt", abs(value) * 100)
      case .shows, .rewards: String(format: "%.0f", abs(value))
      case .readyP50, .readyP90, .readyP99: String(format: "%.0f ms", abs(value))
      }
    return sign(value, magnitude) + magnitude
  }

  static func percent(_ fraction: Double, digits: Int = 1) -> String {
    let text = String(format: "%.\(digits)f%%", abs(fraction) * 100)
    return sign(fraction, text) + text
  }

  /// "−" for a negative value, "+" otherwise; a value that rounds to zero gets "+", never "−0".
  private static func sign(_ value: Double, _ magnitude: String) -> String {
    value < 0 && magnitude.contains(where: { ("1"..."9").contains($0) }) ? "−" : "+"
  }

  private func pad(_ text: String, _ width: Int) -> String {
    text.padding(toLength: max(width, text.count + 1), withPad: " ", startingAt: 0)
  }
}
