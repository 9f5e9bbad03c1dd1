import Foundation
import MediationKit

/// `mediate inspect FILE`: what a flight recording holds, without replaying it — the engine that
/// wrote it, the networks with their versions, the privacy flags, and per zone its sessions
/// (number, inputs, start and end, anomalies, the queue at its start, the configuration version
/// and experiment arms) with the timeline of their inputs and the events each published.
/// `--report FILE.html` draws each session's timeline (``RecordingReport``).
///
/// Exit 0; 65 for a file that is not a recording this engine reads; 66 for a missing one; 74 when
/// the report cannot be written.
struct InspectCommand {
  let context: CommandContext

  init(_ context: CommandContext) { self.context = context }

  /// One session with its inputs.
  struct Session {
    var summary: FlightRecording.SessionSummary
    var timeline: [FlightRecording.TimelineEntry]
  }

  func run() throws(CLIError) -> Int32 {
    let reportPath = try context.outputPath(.inspectReport, what: "report")
    let (path, recording) = try context.recording(for: .inspect)
    let zones = Self.sessionsByZone(recording)
    if context.json {
      context.output.out(JSONLine.encode(json(recording, zones: zones, path: path)))
    } else {
      context.output.out(text(recording, zones: zones, path: path))
    }
    if let reportPath {
      try HTMLReport.write(RecordingReport(recording: recording, source: path).html, to: reportPath)
      context.output.err("report: \(reportPath)")
    }
    return ExitCode.success
  }

  /// The recording's sessions with their inputs, zone by zone in the recording's order.
  static func sessionsByZone(_ recording: FlightRecording) -> [(zone: String, sessions: [Session])] {
    var timelines: [String: [Int: [FlightRecording.TimelineEntry]]] = [:]
    for entry in recording.timeline {
      timelines[entry.zoneID, default: [:]][entry.session, default: []].append(entry)
    }
    let summaries = recording.sessionSummaries
    return recording.zoneIDs.map { zone in
      (
        zone,
        summaries.filter { $0.zoneID == zone }.map {
          Session(summary: $0, timeline: timelines[zone]?[$0.number] ?? [])
        }
      )
    }
  }

  // MARK: Text

  private func text(_ recording: FlightRecording, zones: [(zone: String, sessions: [Session])], path: String)
    -> String
  {
    let sessions = zones.reduce(0) { $0 + $1.sessions.count }
    var lines = [
      "Flight recording \(path)", "  engine     \(recording.engine)",
    ]
    for (index, network) in recording.networks.enumerated() {
      lines.append(
        (index == 0 ? "  networks   " : "             ")
          + "\(network.id) adapter \(network.adapterVersion) · SDK \(network.sdkVersion)"
          + (network.capabilities.isEmpty ? "" : " · \(network.capabilities.joined(separator: ", "))"))
    }
    lines.append(
      "  privacy    "
        + recording.privacyFlags.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(
          separator: ", "))
    lines.append(
      "  holds      \(recording.zoneIDs.count) zone\(recording.zoneIDs.count == 1 ? "" : "s"), \(sessions) sessions, "
        + "\(recording.inputCount) inputs; \(recording.anomalies.count) anomalies")
    for (zone, sessions) in zones {
      lines += ["", "Zone '\(zone)'"]
      for session in sessions { lines += self.lines(session) }
    }
    return lines.joined(separator: "\n")
  }

  private func lines(_ session: Session) -> [String] {
    let summary = session.summary
    let span = [summary.start, summary.end].map { $0.map { "\($0.milliseconds) ms" } ?? "-" }
    let arms = summary.experimentArms.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    let kept = summary.keptForAnomaly ? " (kept for its anomaly)" : ""
    let version = summary.configurationVersion ?? "unversioned"
    let armsText = arms.isEmpty ? "none" : arms.joined(separator: ", ")
    let queue = summary.queuedAtStart.isEmpty ? "empty" : summary.queuedAtStart.joined(separator: "; ")
    let anomalies = summary.anomalies.isEmpty ? "none" : summary.anomalies.joined(separator: "; ")
    var lines = [
      "",
      "  Session \(summary.number)\(kept) · \(summary.inputs) inputs · \(span[0]) … \(span[1]) · "
        + "configuration \(version) · arms \(armsText)",
      "    queue at start: \(queue)",
      "    anomalies: \(anomalies)",
      "    inputs (virtual time; → the events each published):",
    ]
    for entry in session.timeline {
      let time = "\(entry.time.milliseconds) ms".leftPadded(to: 10)
      lines.append(
        "    \(time)  \(entry.input.padding(toLength: 16, withPad: " ", startingAt: 0)) \(entry.summary)")
      for event in entry.published {
        let detail = RecordedEventFormat.text(event)
        lines.append(
          String(repeating: " ", count: 33) + "→ \(event.event)"
            + (event.network.map { " \($0)" } ?? "") + (detail.isEmpty ? "" : " · \(detail)"))
      }
    }
    return lines
  }

  // MARK: JSON

  private func json(_ recording: FlightRecording, zones: [(zone: String, sessions: [Session])], path: String)
    -> [String: Any]
  {
    [
      "file": path, "engine": recording.engine, "input_count": recording.inputCount,
      "networks": recording.networks.map {
        [
          "id": $0.id, "adapter_version": $0.adapterVersion, "sdk_version": $0.sdkVersion,
          "capabilities": $0.capabilities,
        ] as [String: Any]
      },
      "privacy": recording.privacyFlags, "anomalies": recording.anomalies,
      "zones": zones.map { zone in
        ["id": zone.zone, "sessions": zone.sessions.map(sessionObject)] as [String: Any]
      },
    ]
  }

  private func sessionObject(_ session: Session) -> [String: Any] {
    let summary = session.summary
    return [
      "number": summary.number, "kept_for_anomaly": summary.keptForAnomaly, "anomalies": summary.anomalies,
      "inputs": summary.inputs, "start_ms": summary.start.map { $0.milliseconds as Any } ?? NSNull(),
      "end_ms": summary.end.map { $0.milliseconds as Any } ?? NSNull(),
      "queued_at_start": summary.queuedAtStart,
      "configuration_version": summary.configurationVersion ?? NSNull(),
      "experiment_arms": summary.experimentArms,
      "timeline": session.timeline.map { entry in
        [
          "t_ms": entry.time.milliseconds, "input": entry.input, "summary": entry.summary,
          "published": entry.published.map(RecordedEventFormat.jsonObject),
        ] as [String: Any]
      },
    ]
  }
}
