import Foundation
import MediationKit

/// `mediate calibrate`: reads MAX and AdMob reports and MediationKit's event log, matches their
/// rows to a zone's line items, and writes the market they describe (``MarketFile``) for
/// `--market`, `compare` and `optimize`; prints every figure with its source, and every default
/// and unmatched row.
struct CalibrateCommand {
  let context: CommandContext

  init(_ context: CommandContext) { self.context = context }

  struct Plan {
    var zone: ZoneConfig
    var source: String
    var outPath: String
    var maxReports: [String]
    var admobReports: [String]
    var eventLogs: [String]
    var segmentation: Calibration.Segmentation
    var apps: [String]
  }

  func validate() throws(CLIError) -> Plan {
    try context.noPositional(.calibrate)
    guard let outPath = context.arguments.value(.calibrateOut) else {
      throw .usage("calibrate needs --out FILE: where to write the market file", .calibrate)
    }
    try OutputFile.checkOut(outPath, what: "market file", .calibrate)
    let args = context.arguments
    let maxReports = args.values(.maxReport)
    let admobReports = args.values(.admobReport)
    let eventLogs = args.values(.eventLogs)
    guard !(maxReports + admobReports + eventLogs).isEmpty else {
      throw .usage(
        "calibrate needs data: --max-report FILE, --admob-report FILE or --events FILE (each may be given "
          + "more than once)", .calibrate)
    }
    let (config, source) = try context.loadConfig()
    let zoneID = args.value(.calibrateZone) ?? config.zones[0].id
    guard let zone = config.zones.first(where: { $0.id == zoneID }) else {
      throw .usage(
        "zone '\(zoneID)' is not in \(source); its zones: \(config.zones.map(\.id).joined(separator: ", "))",
        .calibrate)
    }
    var segmentation = Calibration.Segmentation.automatic
    if let dimension = args.value(.segmentBy)?.trimmingCharacters(in: .whitespaces).lowercased() {
      guard !dimension.isEmpty, dimension.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
        throw .usage(
          "invalid value '\(dimension)' for --segment-by: expected a dimension name (country, platform, …) or none",
          .calibrate)
      }
      segmentation = dimension == "none" ? .none : .by(dimension)
    }
    return Plan(
      zone: zone, source: source, outPath: outPath, maxReports: maxReports, admobReports: admobReports,
      eventLogs: eventLogs, segmentation: segmentation, apps: args.values(.app))
  }

  func run() throws(CLIError) -> Int32 {
    let plan = try validate()
    let networks = ReportNetworks(context.registry.all.map(\.info))
    var sources: [MarketFile.Source] = []
    var reads: Set<Data> = []
    /// Each file's bytes (mapped, not copied: an event log may be gigabytes), once: the same file
    /// given twice is read once, and said so.
    func read(_ path: String) throws(CLIError) -> Data? {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
        let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
      else { throw .noInput(path) }
      guard reads.insert(data).inserted else {
        context.output.err("note: \(path) has the same bytes as a file read before: read once")
        return nil
      }
      return data
    }
    func text(_ data: Data, _ path: String) throws(CLIError) -> String {
      guard let text = String(data: data, encoding: .utf8) else { throw .data("\(path): not UTF-8 text") }
      return text
    }
    var rows: [ReportRow] = []
    for path in plan.maxReports {
      guard let data = try read(path) else { continue }
      let read = try MaxReport.rows(try text(data, path), file: path, networks: networks)
      rows += read
      sources.append(MarketFile.Source(kind: "max_report", path: path, summary: "\(read.count) rows"))
    }
    for path in plan.admobReports {
      guard let data = try read(path) else { continue }
      let read = try AdMobReport.rows(data, file: path, networks: networks)
      rows += read
      sources.append(MarketFile.Source(kind: "admob_report", path: path, summary: "\(read.count) rows"))
    }
    let (ofApp, otherApps) = try ReportRowChecks.selectingApp(rows, apps: plan.apps)
    let (counted, duplicates) = try ReportRowChecks.deduplicated(ofApp)
    var log: EventLogReader?
    for path in plan.eventLogs {
      guard let data = try read(path) else { continue }
      var reader = log ?? EventLogReader(zone: plan.zone.id)
      let before = (reader.lines, reader.otherZoneLines)
      try reader.read(data, file: path)
      sources.append(
        MarketFile.Source(
          kind: "event_log", path: path,
          summary: "\(reader.lines - before.0) lines, \(reader.otherZoneLines - before.1) of other zones"))
      log = reader
    }
    let calibration = Calibration(zone: plan.zone, segmentation: plan.segmentation)
    var market = try calibration.run(rows: counted, log: log, sources: sources)
    if otherApps > 0 {
      market.notes.append(
        "\(otherApps) report rows of other apps than \(plan.apps.joined(separator: ", ")) were skipped")
    }
    if duplicates > 0 {
      market.notes.append("\(duplicates) report rows given twice (the same day and keys) were counted once")
    }
    guard market.lineItems.contains(where: { $0.hasData }) else {
      throw .data(
        "none of the data is about zone '\(plan.zone.id)''s line items (network and placement id): is it a report "
          + "for another app or zone? " + market.notes.joined(separator: " "))
    }
    try OutputFile.write(Data(market.json.utf8), to: plan.outPath, what: "market file")
    let report = CalibrationReport(market: market, zone: plan.zone, outPath: plan.outPath)
    context.output.out(context.json ? JSONLine.encode(report.json) : report.text(source: plan.source))
    return ExitCode.success
  }
}

extension MarketFile.LineItem {
  /// Whether any figure came from data rather than a default.
  var hasData: Bool {
    [estimate.fill.source, estimate.price.source, estimate.loadLatency.source].contains { $0 != "default" }
  }
}
