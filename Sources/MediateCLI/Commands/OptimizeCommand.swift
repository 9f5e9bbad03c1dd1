import Foundation
import MediationKit

/// `mediate optimize`: learns what every line item of a zone really earns on training seeds,
/// proposes a better configuration (order, eCPMs, timeouts, bidding, strategy), writes it as a
/// valid configuration file and measures it against the original on held-out seeds.
struct OptimizeCommand {
  let context: CommandContext

  init(_ context: CommandContext) { self.context = context }

  static let defaultRequests = 20_000
  static let maxRequests = 1_000_000

  struct Plan {
    var settings: Optimizer.Settings
    var config: MediationConfig
    var source: String
    var outPath: String
    var reportPath: String?
    var market: LoadedMarket?
    var resamples = 0
    /// `--segments`: optimize each segment of the market too.
    var segments = false
  }

  func validate() throws(CLIError) -> Plan {
    try context.noPositional(.optimize)
    guard let outPath = context.arguments.value(.out) else {
      throw .usage("optimize needs --out FILE: where to write the optimized configuration", .optimize)
    }
    try OutputFile.checkOut(outPath, what: "configuration", .optimize)
    let (config, source) = try context.loadConfig()
    let zoneID = context.arguments.value(.optimizeZone) ?? config.zones[0].id
    guard let zone = config.zones.first(where: { $0.id == zoneID }) else {
      throw .usage(
        "zone '\(zoneID)' is not in \(source); its zones: \(config.zones.map(\.id).joined(separator: ", "))",
        .optimize)
    }
    let networks = try context.networks()
    let biddingNetworks = Set(
      context.registry.all.filter { $0.info.capabilities.contains(.bidding) }.map(\.info.id)
    )
    .intersection(networks)
    var strategies = ZoneConfig.AuctionStrategy.allCases
    if let name = context.arguments.value(.strategy) {
      guard let strategy = ZoneConfig.AuctionStrategy(rawValue: name) else {
        let names = ZoneConfig.AuctionStrategy.allCases.map(\.rawValue).joined(separator: ", ")
        throw .usage("invalid value '\(name)' for --strategy: expected one of \(names)", .optimize)
      }
      if strategy != .waterfall
        && !zone.lineItems.contains(where: { $0.bidding || biddingNetworks.contains($0.network) })
      {
        throw .usage(
          "zone '\(zone.id)' has no line item that bids or whose network can bid, so it cannot run "
            + "--strategy \(name)", .optimize)
      }
      strategies = [strategy]
    }
    let requests = try context.requests(limit: Self.maxRequests) ?? Self.defaultRequests
    let reportPath = try context.reportPath()
    let segments = context.arguments.has(.segments)
    if segments, try context.segmentOption() != nil {
      throw .usage(
        "--segments optimizes every segment; it cannot be combined with --segment or --country", .optimize)
    }
    let market = try context.loadMarket(for: zone)
    if segments {
      guard let file = market?.file, file.segmentBy != nil, file.segments.count > 1 else {
        throw .usage(
          "--segments needs --market FILE with a market file split into two or more segments", .optimize)
      }
    }
    let settings = Optimizer.Settings(
      zone: zone, networks: networks, seed: try RunCommand(context).seed(), requests: requests,
      privacy: context.privacy, strategies: strategies, biddingNetworks: biddingNetworks,
      keepsFunnel: reportPath != nil, market: market?.prices, calibrated: market?.calibrated)
    return Plan(
      settings: settings, config: config, source: source, outPath: outPath, reportPath: reportPath,
      market: market,
      resamples: try context.calibrationResamples(market), segments: segments)
  }

  func run() throws(CLIError) -> Int32 {
    let plan = try validate()
    let optimizer = Optimizer(settings: plan.settings, registry: context.registry)
    let settings = plan.settings
    // Every candidate on every training seed, at most; then both sides of the held-out comparison.
    let total = settings.requests * (settings.trainingReplications * 40 + settings.heldOutReplications * 2)
    let extra = settings.requests * 2 * plan.resamples
    let (optimization, uncertainty) = try ProgressBar.tracking(
      total: total + extra, output: context.output, command: .optimize
    ) { progress throws(MediationError) -> (Optimization, CalibrationUncertainty?) in
      let optimization = try optimizer.run(progress: progress)
      guard plan.resamples > 0, let file = plan.market?.file else { return (optimization, nil) }
      let uncertainty = try CalibrationUncertainty.run(
        optimization.heldOutSettings, result: optimization.heldOut, file: file, count: plan.resamples,
        registry: context.registry
      ) { progress?(total + $0) }
      return (optimization, uncertainty)
    }
    try write(optimization.proposed, into: plan.config, path: plan.outPath)
    let segments = try optimizeSegments(plan, overall: optimization.proposed)
    let report = OptimizationReport(
      optimization: optimization, settings: settings, trainingSeeds: optimizer.trainingSeeds,
      outPath: plan.outPath)
    if context.json {
      var json = report.json
      if let uncertainty { json["calibration"] = uncertainty.json }
      if let segments { json["segments"] = SegmentOptimization.json(segments, out: plan.outPath) }
      context.output.out(JSONLine.encode(json))
    } else {
      var lines = [report.text(source: plan.source)]
      if let uncertainty { lines.append(uncertainty.text) }
      if let segments, let dimension = plan.market?.file?.segmentBy {
        lines += SegmentOptimization.text(segments, dimension: dimension, out: plan.outPath)
      }
      context.output.out(lines.joined(separator: "\n"))
    }
    if let reportPath = plan.reportPath {
      try HTMLReport.write(
        HTMLReport.comparison(
          optimization.heldOut, settings: optimization.heldOutSettings,
          sources: ("original (\(plan.source))", "optimized (\(plan.outPath))")),
        to: reportPath)
      context.output.err("report: \(reportPath)")
    }
    return ExitCode.success
  }

  /// With `--segments`: each segment's proposal, and its configuration written where it earns
  /// enough more than the overall proposal.
  func optimizeSegments(_ plan: Plan, overall: ZoneConfig) throws(CLIError) -> [SegmentOptimization.Proposal]?
  {
    guard plan.segments, let file = plan.market?.file else { return nil }
    let segmentation = SegmentOptimization(
      settings: plan.settings, overall: overall, file: file, registry: context.registry)
    let proposals = try ProgressBar.tracking(
      total: file.segments.count, output: context.output, command: .optimize
    ) {
      progress throws(MediationError) in try segmentation.run(progress: progress)
    }
    for proposal in proposals where proposal.matters {
      try write(
        proposal.optimization.proposed, into: plan.config,
        path: SegmentOptimization.path(for: proposal.segment, out: plan.outPath))
    }
    return proposals
  }

  /// Writes `config` with its zone `zone.id` replaced by `zone`, after checking it loads back as
  /// the same valid configuration (it always should: a failure here is a bug, reported rather
  /// than written).
  func write(_ zone: ZoneConfig, into config: MediationConfig, path: String) throws(CLIError) {
    var config = config
    config.zones = config.zones.map { $0.id == zone.id ? zone : $0 }
    let text = ConfigFileWriter.json(config) + "\n"
    let reloaded: MediationConfig
    do {
      reloaded = try CommandContext.load(
        Data(text.utf8), source: path, knownNetworks: context.registry.networkIDs)
    } catch {
      throw .data("the proposed configuration does not validate, so it was not written: \(error.description)")
    }
    guard reloaded == config else {
      throw .data("the proposed configuration does not read back the same, so it was not written")
    }
    try OutputFile.write(Data(text.utf8), to: path, what: "configuration")
  }
}
