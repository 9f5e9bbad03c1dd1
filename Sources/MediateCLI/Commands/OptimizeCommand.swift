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
  }

  func validate() throws(CLIError) -> Plan {
    try context.noPositional(.optimize)
    guard let outPath = context.arguments.value(.out) else {
      throw .usage("optimize needs --out FILE: where to write the optimized configuration", .optimize)
    }
    let directory = URL(fileURLWithPath: outPath).deletingLastPathComponent().path
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
    else {
      throw .usage("--out \(outPath): no directory \(directory) to write the configuration into", .optimize)
    }
    try OutputFile.check(outPath, what: "configuration")
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
    let settings = Optimizer.Settings(
      zone: zone, networks: networks, seed: try RunCommand(context).seed(), requests: requests,
      privacy: context.privacy, strategies: strategies, biddingNetworks: biddingNetworks,
      keepsFunnel: reportPath != nil)
    return Plan(settings: settings, config: config, source: source, outPath: outPath, reportPath: reportPath)
  }

  func run() throws(CLIError) -> Int32 {
    let plan = try validate()
    let optimizer = Optimizer(settings: plan.settings, registry: context.registry)
    let settings = plan.settings
    // Every candidate on every training seed, at most; then both sides of the held-out comparison.
    let total = settings.requests * (settings.trainingReplications * 40 + settings.heldOutReplications * 2)
    let optimization = try ProgressBar.tracking(total: total, output: context.output, command: .optimize) {
      progress throws(MediationError) in try optimizer.run(progress: progress)
    }
    try write(optimization.proposed, into: plan.config, path: plan.outPath)
    let report = OptimizationReport(
      optimization: optimization, settings: settings, trainingSeeds: optimizer.trainingSeeds,
      outPath: plan.outPath)
    if context.json {
      context.output.out(JSONLine.encode(report.json))
    } else {
      context.output.out(report.text(source: plan.source))
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
