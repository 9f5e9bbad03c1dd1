import Foundation
import MediationKit

extension RunCommand {
  /// `mediate --requests N` on a zone with experiments: the totals as usual, then each arm's
  /// figures (``ArmSimulation``) — with `--json`, an `"arms"` object keyed by arm id whose values
  /// have the keys of the plain report.
  func simulateArms(_ settings: Settings, requests: Int) throws(CLIError) -> Int32 {
    var simulated = Simulator.Settings(
      zone: ServerCallbackChecks.withoutCallbacks(settings.zone), networks: settings.networks,
      seed: settings.seed, requests: requests, privacy: settings.privacy,
      keepsFunnel: settings.reportPath != nil, market: settings.market)
    simulated.calibrated = settings.calibrated
    let simulation = ArmSimulation(settings: simulated, registry: context.registry)
    let result = try ProgressBar.tracking(total: requests, output: context.output, command: .run) {
      progress throws(MediationError) in try simulation.run(progress: progress)
    }
    let stats = result.total.stats
    if !stats.unquotedNetworks.isEmpty {
      let names = stats.unquotedNetworks.map(\.rawValue).sorted().joined(separator: ", ")
      context.output.err(
        "note: the oracle leaves out \(names): their adapters cannot quote (SimulatedNetwork), so oracle revenue and efficiency ignore them"
      )
    }
    let report = SimulationReport(
      stats: stats, wallSeconds: result.total.wallSeconds, learnsECPMs: result.total.learnsECPMs)
    let arms = result.arms.map { arm in
      (
        key: arm.key,
        report: SimulationReport(
          stats: arm.figures.stats, wallSeconds: arm.figures.wallSeconds, learnsECPMs: arm.figures.learnsECPMs
        )
      )
    }
    if context.json {
      var json = report.json
      json["arms"] = Dictionary(uniqueKeysWithValues: arms.map { ($0.key, $0.report.json) })
      context.output.out(JSONLine.encode(json))
    } else {
      context.output.out(report.text(settings: settings) + "\n\n" + Self.armTable(arms, zone: settings.zone))
    }
    if let path = settings.reportPath {
      try HTMLReport.write(HTMLReport.simulation(stats, settings: settings), to: path)
      context.output.err("report: \(path)")
    }
    return ExitCode.success
  }

  /// The per-arm table: one row per arm, columns padded to the widest cell.
  static func armTable(_ arms: [(key: String, report: SimulationReport)], zone: ZoneConfig) -> String {
    let experiments = zone.experiments.map { "'\($0.id)'" }.joined(separator: ", ")
    let header = [
      "ARM", "REQUESTS", "FILL", "SHOWS", "REWARDS", "REVENUE", "EFFICIENCY", "READY P50/P90/P99 MS",
    ]
    let rows = arms.map { arm -> [String] in
      let stats = arm.report.stats
      return [
        arm.key, "\(stats.requests)", String(format: "%.1f%%", stats.fillRate * 100), "\(stats.shows)",
        "\(stats.rewards)", String(format: "$%.2f", stats.revenueUSD),
        String(format: "%.1f%%", stats.revenueEfficiency * 100),
        "\(stats.readyLatency.quantile(0.5))/\(stats.readyLatency.quantile(0.9))/\(stats.readyLatency.quantile(0.99))",
      ]
    }
    let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
    let lines = ([header] + rows).map { row in
      var line =
        "  "
        + row.enumerated().map {
          $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0)
        }
        .joined(separator: "  ")
      while line.hasSuffix(" ") { line.removeLast() }
      return line
    }
    return
      ([
        "Arms of experiment\(zone.experiments.count == 1 ? "" : "s") \(experiments) (\(ArmSimulation.population) simulated users, each in its arm by the engine's assignment)"
      ]
      + lines).joined(separator: "\n")
  }
}
