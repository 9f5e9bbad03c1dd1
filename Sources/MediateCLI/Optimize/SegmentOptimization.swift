import Foundation
import MediationKit

/// `optimize --segments`: whether a segment of the market (a country) deserves its own
/// configuration.
///
/// Each segment is optimized on its own traffic (the market with all auctions in it); its
/// proposal is then measured against the overall proposal on that segment's traffic, on held-out
/// seeds of its own, with the paired comparison. A segment gets its configuration when it earns
/// significantly more there (the 95% CI above 0) and by at least ``materialLift``; otherwise the
/// overall proposal serves it, and the report says by how little they differ.
struct SegmentOptimization {
  /// The smallest revenue lift over the overall proposal worth a configuration of its own.
  static let materialLift = 0.01
  /// The segments' held-out seeds start this far from the optimization's seed.
  static let seedOffset: UInt64 = 2_000_000

  struct Proposal {
    let segment: String
    let optimization: Optimization
    /// A = the overall proposal, B = the segment's, on the segment's traffic; `nil` when they are
    /// the same configuration.
    let againstOverall: ComparisonResult?
    let comparison: Comparison.Settings?

    var relative: ComparisonResult.Delta? {
      guard let againstOverall, let comparison else { return nil }
      return ComparisonReport(result: againstOverall, settings: comparison).relativeRevenue
    }

    /// Whether the segment's own configuration earns enough more to be worth keeping apart.
    var matters: Bool {
      guard let relative, let interval = relative.ci95 else { return false }
      return interval.lowerBound > 0 && relative.diff >= SegmentOptimization.materialLift
    }
  }

  let settings: Optimizer.Settings
  let overall: ZoneConfig
  let file: MarketFile
  let registry: AdapterRegistry

  func run(progress: (@Sendable (Int) -> Void)? = nil) throws(MediationError) -> [Proposal] {
    var proposals: [Proposal] = []
    for segment in file.segments {
      guard let market = file.model.selecting(segment: segment.name) else { continue }
      var own = settings
      own.calibrated = market
      own.keepsFunnel = false
      let optimization = try Optimizer(settings: own, registry: registry).run()
      progress?(proposals.count + 1)
      guard optimization.proposed != overall else {
        proposals.append(
          Proposal(segment: segment.name, optimization: optimization, againstOverall: nil, comparison: nil))
        continue
      }
      let comparison = Comparison.Settings(
        a: ServerCallbackChecks.withoutCallbacks(overall),
        b: ServerCallbackChecks.withoutCallbacks(optimization.proposed), networks: settings.networks,
        seed: settings.seed &+ Self.seedOffset, requests: settings.requests,
        replications: settings.heldOutReplications, privacy: settings.privacy, calibrated: market)
      let result = try Comparison(settings: comparison, registry: registry).run()
      proposals.append(
        Proposal(
          segment: segment.name, optimization: optimization, againstOverall: result, comparison: comparison))
    }
    return proposals
  }

  /// Where a segment's configuration is written: next to `out`, `out` without `.json`, then
  /// `.SEGMENT.json` (characters other than letters, digits, `-` and `_` as `_`).
  static func path(for segment: String, out: String) -> String {
    let stem = out.hasSuffix(".json") ? String(out.dropLast(5)) : out
    let safe = String(segment.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
    return "\(stem).\(safe).json"
  }

  /// The report's lines for each segment.
  static func text(_ proposals: [Proposal], dimension: String, out: String) -> [String] {
    var lines = ["", "Segments by \(dimension): does a segment earn more with its own configuration?"]
    for proposal in proposals {
      let changes = ConfigChange.changes(
        from: proposal.optimization.original, to: proposal.optimization.proposed)
      guard let relative = proposal.relative else {
        lines.append(
          "  \(proposal.segment): its own optimization proposes the overall configuration: nothing to split")
        continue
      }
      let interval = relative.ci95.map {
        "95% CI \(ComparisonReport.percent($0.lowerBound, digits: 2)) … \(ComparisonReport.percent($0.upperBound, digits: 2))"
      }
      let lift =
        "its own configuration earns \(ComparisonReport.percent(relative.diff, digits: 2)) on \(proposal.segment) "
        + "traffic (\(interval ?? "no CI")) against the overall proposal"
      if proposal.matters {
        lines.append(
          "  \(proposal.segment): \(lift): wrote \(path(for: proposal.segment, out: out)) ("
            + changes.map(\.line).joined(separator: ", ") + ")")
      } else {
        lines.append(
          "  \(proposal.segment): \(lift): not enough to matter (it takes a significant "
            + String(format: "%.0f%%", materialLift * 100) + " or more); the overall proposal serves it")
      }
    }
    return lines
  }

  static func json(_ proposals: [Proposal], out: String) -> [[String: Any]] {
    proposals.map { proposal in
      let relative = proposal.relative
      return [
        "segment": proposal.segment,
        "same_as_overall": relative == nil,
        "changes": ConfigChange.changes(
          from: proposal.optimization.original, to: proposal.optimization.proposed
        )
        .map { ["path": $0.path, "from": $0.from, "to": $0.to] },
        "lift_relative": relative.map { JSONLine.rounded($0.diff, 6) } ?? NSNull() as Any,
        "ci95_relative": relative?.ci95.map {
          [JSONLine.rounded($0.lowerBound, 6), JSONLine.rounded($0.upperBound, 6)]
        }
          ?? NSNull() as Any,
        "own_configuration": proposal.matters,
        "out": proposal.matters ? path(for: proposal.segment, out: out) : NSNull() as Any,
      ]
    }
  }
}
