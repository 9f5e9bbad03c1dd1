import Foundation
import MediationKit

/// One setting the proposal changes, e.g. `lineItems[2] ecpm 12.50 → 9.80`.
struct ConfigChange: Equatable {
  /// Where, as `mediate validate` names it within the zone: `strategy`, `lineItems[2].ecpm`.
  var path: String
  var from: String
  var to: String

  var line: String {
    let parts = path.split(separator: ".", maxSplits: 1)
    let place = parts.count == 2 ? "\(parts[0]) \(parts[1])" : path
    return "\(place) \(from) → \(to)"
  }

  /// Every setting that differs between `original` and `proposed` (the same line items, in order).
  static func changes(from original: ZoneConfig, to proposed: ZoneConfig) -> [ConfigChange] {
    var changes: [ConfigChange] = []
    func compare<T: Equatable>(_ path: String, _ a: T, _ b: T, _ format: (T) -> String) {
      if a != b { changes.append(ConfigChange(path: path, from: format(a), to: format(b))) }
    }
    compare("strategy", original.strategy, proposed.strategy, \.rawValue)
    compare("auctionTimeoutSeconds", original.auctionTimeoutSeconds, proposed.auctionTimeoutSeconds, seconds)
    for (index, (a, b)) in zip(original.lineItems, proposed.lineItems).enumerated() {
      let path = "lineItems[\(index)]"
      compare("\(path).priority", a.priority, b.priority) { String($0) }
      compare("\(path).ecpm", a.ecpm, b.ecpm, money)
      compare("\(path).timeoutSeconds", a.timeoutSeconds, b.timeoutSeconds, seconds)
      compare("\(path).bidding", a.bidding, b.bidding) { String($0) }
      compare("\(path).bidFloor", a.bidFloor, b.bidFloor, money)
    }
    return changes
  }

  static func money(_ value: Double) -> String { String(format: "%.2f", value) }
  static func seconds(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(value)
  }
}

/// An optimization as the CLI prints it: the learned line items, the changes, and the held-out
/// measurement (a paired comparison of the original, A, and the proposal, B).
struct OptimizationReport {
  let optimization: Optimization
  let settings: Optimizer.Settings
  let trainingSeeds: [UInt64]
  let outPath: String

  var changes: [ConfigChange] {
    ConfigChange.changes(from: optimization.original, to: optimization.proposed)
  }

  private var comparison: ComparisonReport {
    ComparisonReport(result: optimization.heldOut, settings: optimization.heldOutSettings)
  }

  /// The proposal's held-out revenue against the oracle of the original's line items, which is
  /// the same oracle unless the proposal leaves line items out of the auction (bidding without
  /// some of them): then its own efficiency flatters it, and this one does not.
  var efficiencyAgainstOriginalOracle: Double {
    let oracle = optimization.heldOut.a.oracleRevenueUSD
    return oracle == 0 ? 0 : optimization.heldOut.b.revenueUSD / oracle
  }

  var heldOutSeeds: ClosedRange<UInt64> {
    let settings = optimization.heldOutSettings
    return settings.seed...(settings.seed &+ UInt64(settings.replications - 1))
  }

  /// `zone`, `out`, `strategy` (`from`, `to`), `changes` (`path`, `from`, `to`), `learned` (per
  /// line item), `training` (`seeds`, `requests_per_seed`, `candidates`, `revenue_usd`),
  /// `held_out` (the `compare --json` object), `lift` (`revenue_relative`, `ci95_relative`) and
  /// `efficiency` (`original`, `optimized`, `optimized_vs_original_oracle`).
  var json: [String: Any] {
    let relative = comparison.relativeRevenue
    return [
      "zone": optimization.original.id,
      "out": outPath,
      "strategy": [
        "from": optimization.original.strategy.rawValue, "to": optimization.proposed.strategy.rawValue,
      ],
      "changes": changes.map { ["path": $0.path, "from": $0.from, "to": $0.to] },
      "learned": optimization.learned.lineItems.enumerated().map { index, figures in
        [
          "line_item": index,
          "network": figures.item.network.rawValue,
          "placement_id": figures.item.placementId,
          "configured_ecpm": figures.item.ecpm,
          "learned_ecpm": figures.learnedECPM.map { JSONLine.rounded($0, 4) } ?? NSNull() as Any,
          "attempts": figures.attempts,
          "fills": figures.fills,
          "impressions": figures.impressions,
          "load_ms_p99_5": figures.loadQuantileMilliseconds ?? NSNull() as Any,
        ] as [String: Any]
      },
      "training": [
        "seeds": trainingSeeds,
        "requests_per_seed": settings.requests,
        "candidates": optimization.candidatesEvaluated,
        "best_by_strategy": Dictionary(
          uniqueKeysWithValues: optimization.bestByStrategy.map { strategy, stats in
            (
              strategy.rawValue,
              [
                "revenue_usd": JSONLine.rounded(stats.revenueUSD, 6),
                "revenue_efficiency": JSONLine.rounded(stats.revenueEfficiency, 6),
                "ready_ms_p99": stats.readyLatency.quantile(0.99),
              ] as [String: Any]
            )
          }),
        "revenue_usd": [
          "original": JSONLine.rounded(optimization.trainingRevenue.original, 6),
          "optimized": JSONLine.rounded(optimization.trainingRevenue.proposed, 6),
        ],
      ] as [String: Any],
      "held_out": comparison.json,
      "lift": [
        "revenue_relative": relative.map { JSONLine.rounded($0.diff, 6) } ?? NSNull() as Any,
        "ci95_relative": relative?.ci95.map {
          [JSONLine.rounded($0.lowerBound, 6), JSONLine.rounded($0.upperBound, 6)]
        }
          ?? NSNull() as Any,
      ],
      "efficiency": [
        "original": JSONLine.rounded(optimization.heldOut.a.revenueEfficiency, 6),
        "optimized": JSONLine.rounded(optimization.heldOut.b.revenueEfficiency, 6),
        "optimized_vs_original_oracle": JSONLine.rounded(efficiencyAgainstOriginalOracle, 6),
      ],
    ]
  }

  func text(source: String) -> String {
    let zone = optimization.original
    var lines = [
      "Optimized zone '\(zone.id)' of \(source) · networks "
        + settings.networks.map(\.rawValue).joined(separator: ", ")
        + " · strategies tried: " + settings.strategies.map(\.rawValue).joined(separator: ", "),
      "Learned on training seeds \(trainingSeeds.map(String.init).joined(separator: ", ")) "
        + "(\(settings.requests) requests each; \(optimization.candidatesEvaluated) configurations tried):",
    ]
    for (index, figures) in optimization.learned.lineItems.enumerated() {
      let learned = figures.learnedECPM.map { String(format: "%.2f", $0) } ?? "—"
      let fill = figures.fillRate.map { String(format: "%.1f%%", $0 * 100) } ?? "—"
      let load = figures.loadQuantileMilliseconds.map { "\($0) ms" } ?? "—"
      lines.append(
        "  lineItems[\(index)] \(figures.item.network) \(figures.item.placementId): eCPM configured "
          + "\(ConfigChange.money(figures.item.ecpm)), learned \(learned) from \(figures.impressions) impressions; "
          + "fill \(fill) of \(figures.attempts) loads; load p99.5 \(load)")
    }
    lines.append("Best configuration tried, per strategy, on the training seeds:")
    for strategy in ZoneConfig.AuctionStrategy.allCases {
      guard let stats = optimization.bestByStrategy[strategy] else { continue }
      lines.append(
        "  \(strategy.rawValue): " + String(format: "$%.2f", stats.revenueUSD) + ", "
          + Self.percent(stats.revenueEfficiency)
          + " of the oracle, p99 ready \(stats.readyLatency.quantile(0.99)) ms")
    }
    lines.append("")
    let changes = self.changes
    if changes.isEmpty {
      lines.append("No change earns more on the training seeds: the configuration is kept as it is.")
    } else {
      lines.append("Changes:")
      lines += changes.map { "  " + $0.line }
    }
    lines += [
      "", "Wrote \(outPath)", "",
      "Held out (seeds \(heldOutSeeds.lowerBound)…\(heldOutSeeds.upperBound), never trained on): "
        + "A = original, B = optimized",
      comparison.verdictLine,
      "Efficiency against the oracle: original \(Self.percent(optimization.heldOut.a.revenueEfficiency)), "
        + "optimized \(Self.percent(optimization.heldOut.b.revenueEfficiency))"
        + (abs(efficiencyAgainstOriginalOracle - optimization.heldOut.b.revenueEfficiency) > 1e-9
          ? " (\(Self.percent(efficiencyAgainstOriginalOracle)) of the original's oracle: the optimized "
            + "auction leaves line items out)" : ""),
      "",
      comparison.text(sources: ("original (\(source))", "optimized (\(outPath))")),
    ]
    return lines.joined(separator: "\n")
  }

  private static func percent(_ value: Double) -> String { String(format: "%.2f%%", value * 100) }
}
