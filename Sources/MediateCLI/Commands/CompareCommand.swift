import Foundation
import MediationKit

/// `mediate compare A.json B.json`: one zone of two configurations on the same engine and the
/// same seeds, replication by replication, with the 95% confidence interval of every difference
/// and a verdict on revenue.
struct CompareCommand {
  let context: CommandContext

  init(_ context: CommandContext) { self.context = context }

  static let defaultRequests = 100_000
  static let defaultReplications = 10
  static let maxReplications = 1_000
  /// Requests per replication and side, and in all (both sides, every replication).
  static let maxRequests = 10_000_000
  static let maxTotalRequests = 100_000_000

  struct Plan {
    var settings: Comparison.Settings
    var sources: (a: String, b: String)
    var report: String?
    var market: LoadedMarket?
    var resamples: Int
  }

  func validate() throws(CLIError) -> Plan {
    let files = context.arguments.positional
    guard files.count == 2 else {
      throw .usage(
        "compare needs two configuration files, A and B; found \(files.count)"
          + (files.count > 2 ? " ('\(files[2])' is one too many)" : ""), .compare)
    }
    let known = context.registry.networkIDs
    let configA = try CommandContext.loadConfig(path: files[0], knownNetworks: known)
    let configB = try CommandContext.loadConfig(path: files[1], knownNetworks: known)
    let zoneID = context.arguments.value(.compareZone) ?? configA.zones[0].id
    func zone(_ config: MediationConfig, _ path: String) throws(CLIError) -> ZoneConfig {
      guard let zone = config.zones.first(where: { $0.id == zoneID }) else {
        throw .usage(
          "zone '\(zoneID)' is not in \(path); its zones: \(config.zones.map(\.id).joined(separator: ", "))",
          .compare)
      }
      return try context.applyingStrategy(to: ServerCallbackChecks.withoutCallbacks(zone))
    }
    let a = try zone(configA, files[0])
    let b = try zone(configB, files[1])
    let requests = try context.requests(limit: Self.maxRequests) ?? Self.defaultRequests
    let replications = try context.wholeNumber(
      .replications, default: Self.defaultReplications, range: 1...Self.maxReplications, .compare)
    guard requests * replications <= Self.maxTotalRequests else {
      throw .usage(
        "--requests \(requests) × --replications \(replications) is more than \(Self.maxTotalRequests) requests per side",
        .compare)
    }
    let market = try context.loadMarket(for: a)
    var settings = Comparison.Settings(
      a: a, b: b, networks: try context.networks(), seed: try RunCommand(context).seed(), requests: requests,
      replications: replications, privacy: context.privacy, market: market?.prices,
      calibrated: market?.calibrated)
    let report = try context.reportPath()
    settings.keepsFunnel = report != nil
    return Plan(
      settings: settings, sources: (files[0], files[1]), report: report, market: market,
      resamples: try context.calibrationResamples(market))
  }

  func run() throws(CLIError) -> Int32 {
    let plan = try validate()
    let (settings, sources, reportPath) = (plan.settings, plan.sources, plan.report)
    let comparison = Comparison(settings: settings, registry: context.registry)
    let runs = settings.requests * settings.replications * 2
    let (result, uncertainty) = try ProgressBar.tracking(
      total: runs + settings.requests * 2 * plan.resamples, output: context.output, command: .compare
    ) { progress throws(MediationError) -> (ComparisonResult, CalibrationUncertainty?) in
      let result = try comparison.run(progress: progress)
      guard plan.resamples > 0, let file = plan.market?.file else { return (result, nil) }
      let uncertainty = try CalibrationUncertainty.run(
        settings, result: result, file: file, count: plan.resamples, registry: context.registry
      ) { progress?(runs + $0) }
      return (result, uncertainty)
    }
    let report = ComparisonReport(result: result, settings: settings)
    if context.json {
      var json = report.json
      if let uncertainty { json["calibration"] = uncertainty.json }
      context.output.out(JSONLine.encode(json))
    } else {
      context.output.out(report.text(sources: sources) + (uncertainty.map { "\n" + $0.text } ?? ""))
    }
    if let reportPath {
      try HTMLReport.write(
        HTMLReport.comparison(result, settings: settings, sources: sources), to: reportPath)
      context.output.err("report: \(reportPath)")
    }
    return ExitCode.success
  }
}
