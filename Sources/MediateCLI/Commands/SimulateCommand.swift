import Foundation
import MediationKit

extension RunCommand {
  /// `mediate --requests N`: the simulator, with its report as text or one JSON object.
  func simulate(_ settings: Settings, requests: Int) throws(CLIError) -> Int32 {
    if !settings.zone.experiments.isEmpty { return try simulateArms(settings, requests: requests) }
    var simulation = Simulator.Settings(
      // The simulator sends no server callbacks: its networks' servers only would have.
      zone: ServerCallbackChecks.withoutCallbacks(settings.zone), networks: settings.networks,
      seed: settings.seed, requests: requests, privacy: settings.privacy,
      keepsFunnel: settings.reportPath != nil, market: settings.market, queueDepth: settings.queueDepth,
      flightRecorder: settings.recordPath.map { _ in MediatorOptions.FlightRecorder(isEnabled: true) })
    simulation.calibrated = settings.calibrated
    simulation.recording = SimulationRecording(
      eventLog: settings.eventsPath != nil, reports: !settings.exports.isEmpty)
    let simulator = Simulator(settings: simulation, registry: context.registry)
    let spool: SpooledOutput? = settings.eventsPath == nil ? nil : try SpooledOutput()
    var eventLog: (@Sendable (String) -> Void)?
    if let spool { eventLog = { spool.append($0) } }
    let started = ContinuousClock.now
    let recording = Locked<FlightRecording?>(nil)
    let stats = try ProgressBar.tracking(total: requests, output: context.output, command: .run) {
      progress throws(MediationError) in
      try simulator.run(progress: progress, eventLog: eventLog, flightRecording: recording)
    }
    let wall = (ContinuousClock.now - started).seconds
    try writeRecordings(stats, settings: settings, spool: spool)
    if !stats.unquotedNetworks.isEmpty {
      let names = stats.unquotedNetworks.map(\.rawValue).sorted().joined(separator: ", ")
      context.output.err(
        "note: the oracle leaves out \(names): their adapters cannot quote (SimulatedNetwork), so oracle revenue and efficiency ignore them"
      )
    }
    let zone = settings.zone
    let report = SimulationReport(
      stats: stats, wallSeconds: wall, learnsECPMs: zone.autoECPM && zone.strategy != .bidding,
      queueDepth: settings.queueDepth)
    if context.json {
      context.output.out(JSONLine.encode(report.json))
    } else {
      context.output.out(report.text(settings: settings))
    }
    if let path = settings.reportPath {
      try HTMLReport.write(HTMLReport.simulation(stats, settings: settings), to: path)
      context.output.err("report: \(path)")
    }
    if let path = settings.recordPath, let recorded = recording.withLock({ $0 }) {
      try write(recorded, to: path)
    }
    return ExitCode.success
  }
}

extension RunCommand {
  /// Writes the event log and the vendor reports a simulation recorded, saying where on stderr.
  func writeRecordings(_ stats: SimulationStats, settings: Settings, spool: SpooledOutput?) throws(CLIError) {
    if let spool, let path = settings.eventsPath {
      try spool.finish(to: path, what: "event log")
      context.output.err("event log: \(path)")
    }
    let names = ReportNetworks(context.registry.all.map(\.info))
    for (format, path) in settings.exports {
      let text = ReportExport.text(
        format, stats.reports, zone: settings.zone, dimension: settings.calibrated?.dimension, names: names)
      try OutputFile.write(Data(text.utf8), to: path, what: format.what)
      context.output.err("\(format.what): \(path)")
    }
  }
}

/// The simulator's figures, as the CLI prints them.
struct SimulationReport {
  let stats: SimulationStats
  let wallSeconds: Double
  /// Whether the zone learns its eCPMs: the report then adds the efficiency of the first and the
  /// last tenth of each shard's sessions.
  var learnsECPMs = false
  /// The queue model's depth, if the run used it.
  var queueDepth: Int?

  /// Exactly the keys the JSON report promises.
  var json: [String: Any] {
    var json: [String: Any] = [
      "requests": stats.requests,
      "fill_rate": JSONLine.rounded(stats.fillRate, 6),
      "shows": stats.shows,
      "rewards": stats.rewards,
      "skips": stats.skips,
      "revenue_usd": JSONLine.rounded(stats.revenueUSD, 6),
      "ecpm_usd": JSONLine.rounded(stats.averageECPM, 6),
      "oracle_revenue_usd": JSONLine.rounded(stats.oracleRevenueUSD, 6),
      "revenue_efficiency": JSONLine.rounded(stats.revenueEfficiency, 6),
      "ready_ms_p50": stats.readyLatency.quantile(0.5),
      "ready_ms_p90": stats.readyLatency.quantile(0.9),
      "ready_ms_p99": stats.readyLatency.quantile(0.99),
      "show_rate": JSONLine.rounded(stats.showRate, 6),
      "show_ms_p50": stats.showLatency.quantile(0.5),
      "show_ms_p90": stats.showLatency.quantile(0.9),
      "show_ms_p99": stats.showLatency.quantile(0.99),
      "queue_depth": queueDepth ?? 1,
      "wins": Dictionary(uniqueKeysWithValues: stats.wins.map { ($0.key.rawValue, $0.value) }),
      "wall_s": JSONLine.rounded(wallSeconds, 3),
      "requests_per_s": JSONLine.rounded(wallSeconds > 0 ? Double(stats.requests) / wallSeconds : 0, 1),
    ]
    if learnsECPMs {
      json["efficiency_first_tenth"] = JSONLine.rounded(stats.firstTenth.efficiency, 6)
      json["efficiency_last_tenth"] = JSONLine.rounded(stats.lastTenth.efficiency, 6)
    }
    return json
  }

  func text(settings: RunCommand.Settings) -> String {
    let zone = settings.zone
    let wins = stats.wins.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
      .map { "\($0.key) \($0.value) (\(percent(Double($0.value) / Double(max(1, stats.fills)))))" }
      .joined(separator: ", ")
    let learning =
      learnsECPMs
      ? [
        "  learned eCPMs       efficiency \(percent(stats.firstTenth.efficiency)) in the first tenth of each engine's sessions, \(percent(stats.lastTenth.efficiency)) in the last"
      ] : []
    return
      ([
        "Simulated \(stats.requests) sessions · zone '\(zone.id)' · \(zone.strategy.rawValue) · networks "
          + settings.networks.map(\.rawValue).joined(separator: ", ") + " · seed \(settings.seed)"
          + (queueDepth.map { " · queue depth \($0), shows from the queue" } ?? ""),
        "",
        "  fill rate           \(percent(stats.fillRate))  (\(stats.fills) fills)",
        "  shows               \(stats.shows)   rewards \(stats.rewards)   skips \(stats.skips)   show failures \(stats.showFailures)   capped \(stats.capped)",
        "  revenue             \(money(stats.revenueUSD))   average eCPM \(money(stats.averageECPM))",
        "  oracle revenue      \(money(stats.oracleRevenueUSD))   efficiency \(percent(stats.revenueEfficiency))",
      ] + learning + [
        "  time to ready       p50 \(stats.readyLatency.quantile(0.5)) ms   p90 \(stats.readyLatency.quantile(0.9)) ms   p99 \(stats.readyLatency.quantile(0.99)) ms"
          + (queueDepth == nil ? "" : "   (each load's own time)"),
        "  show rate           \(percent(stats.showRate))   time from show request to show  p50 \(stats.showLatency.quantile(0.5)) ms   p90 \(stats.showLatency.quantile(0.9)) ms   p99 \(stats.showLatency.quantile(0.99)) ms",
        "  wins                \(wins.isEmpty ? "none" : wins)",
        "  wall                \(String(format: "%.2f", wallSeconds)) s   \(String(format: "%.0f", wallSeconds > 0 ? Double(stats.requests) / wallSeconds : 0)) requests/s",
      ]).joined(separator: "\n")
  }

  private func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }
  private func money(_ value: Double) -> String { String(format: "$%.2f", value) }
}

/// A one-line progress bar on stderr, redrawn in place.
final class ProgressBar: Sendable {
  private let total: Int
  private let output: CLIOutput
  private let lastDrawn = Locked(-1)

  init?(total: Int, output: CLIOutput, enabled: Bool) {
    guard enabled else { return nil }
    self.total = total
    self.output = output
  }

  func update(_ done: Int) {
    let percent = done * 100 / max(1, total)
    let redraw = lastDrawn.withLock { last in
      guard percent != last else { return false }
      last = percent
      return true
    }
    guard redraw else { return }
    let width = 30
    let filled = width * percent / 100
    FileHandle.standardError.write(
      Data(
        "\r[\(String(repeating: "#", count: filled))\(String(repeating: " ", count: width - filled))] \(percent)% (\(done)/\(total))"
          .utf8))
  }

  func finish() { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }

  /// Runs `work` with a progress callback that draws a bar on stderr when it is a terminal and
  /// the run is long (50,000 requests or more), then clears the bar. A ``MediationError`` from the
  /// run (a network that cannot be used) is a usage error of `command`.
  static func tracking<T>(
    total: Int, output: CLIOutput, command: Command,
    _ work: ((@Sendable (Int) -> Void)?) throws(MediationError) -> T
  ) throws(CLIError) -> T {
    let bar = ProgressBar(total: total, output: output, enabled: output.stderrIsTerminal && total >= 50_000)
    defer { bar?.finish() }
    var report: (@Sendable (Int) -> Void)?
    if let bar { report = { done in bar.update(done) } }
    do throws(MediationError) {
      return try work(report)
    } catch {
      throw .usage(error.message, command)
    }
  }
}
