import Foundation
import MediationKit

/// The `mediate inspect --report FILE.html` page: what a flight recording holds, as the other
/// reports are made (one self-contained file, inline CSS and SVG, no script) — the engine, the
/// networks with their versions and the privacy flags, then every session of every zone: its
/// figures, its timeline drawn (``TimelineChart``: the line items and their fates, the show's
/// signals, the reward) and its inputs with the events each published.
struct RecordingReport {
  /// The titles `.ci/run` looks for in the rendered page.
  enum Title {
    static let networks = "Networks and privacy"
    /// Each session's chart title begins with this.
    static let timeline = "Timeline of zone"
  }

  var recording: FlightRecording
  /// The file the recording was read from.
  var source: String

  var html: String {
    let sessions = recording.sessionSummaries
    let inputs = recording.inputRecords
    let rewards = inputs.reduce(0) { $0 + $1.published.filter { $0.event == "rewarded" }.count }
    let zones = recording.zoneIDs.count
    let subtitle =
      "\(recording.engine) · \(zones) zone\(zones == 1 ? "" : "s"), \(sessions.count) sessions, "
      + "\(recording.inputCount) inputs"
    var body = [
      "<div class=\"cards\">" + card("Sessions", "\(sessions.count)")
        + card("Inputs", "\(recording.inputCount)")
        + card("Anomalies", "\(recording.anomalies.count)") + card("Rewards granted", "\(rewards)")
        + "</div>",
      HTMLReport.section(networks()),
    ]
    var byZone: [String: [Int: [FlightRecording.InputRecord]]] = [:]
    for input in inputs { byZone[input.zoneID, default: [:]][input.session, default: []].append(input) }
    var timelines: [String: [Int: [FlightRecording.TimelineEntry]]] = [:]
    for entry in recording.timeline {
      timelines[entry.zoneID, default: [:]][entry.session, default: []].append(entry)
    }
    for (index, summary) in sessions.enumerated() {
      body.append(
        HTMLReport.section(
          session(
            summary, inputs: byZone[summary.zoneID]?[summary.number] ?? [],
            timeline: timelines[summary.zoneID]?[summary.number] ?? [], index: index)))
    }
    return HTMLReport.page(
      title: "Flight recording \(source)", subtitle: subtitle, body: body,
      footer:
        "a flight recording: each session's inputs as the zone took them, on the time the app's clock kept.",
      extraCSS: Self.css)
  }

  private func card(_ label: String, _ value: String) -> String {
    "<div class=\"card\"><div class=\"label\">\(SVG.escape(label))</div><div class=\"value\">\(SVG.escape(value))</div></div>"
  }

  /// The networks with their versions and capabilities, and the privacy flags.
  private func networks() -> String {
    var rows = recording.networks.map { network in
      row([
        network.id, network.adapterVersion, network.sdkVersion, network.capabilities.joined(separator: ", "),
      ])
    }
    rows.insert("<tr><th>network</th><th>adapter</th><th>SDK</th><th>capabilities</th></tr>", at: 0)
    let flags = recording.privacyFlags.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
    return "<h2>\(Title.networks)</h2><table class=\"inputs\">\(rows.joined())</table>"
      + "<p class=\"flags\">privacy: \(SVG.escape(flags.joined(separator: " · ")))</p>"
  }

  /// One session: its figures, its timeline drawn, and its inputs in a table.
  private func session(
    _ summary: FlightRecording.SessionSummary, inputs: [FlightRecording.InputRecord],
    timeline: [FlightRecording.TimelineEntry], index: Int
  )
    -> String
  {
    let span = [summary.start, summary.end].map { $0.map { "\($0.milliseconds) ms" } ?? "-" }
    let arms = summary.experimentArms.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    var facts = [
      "\(summary.inputs) inputs, \(span[0]) … \(span[1])",
      "configuration \(summary.configurationVersion ?? "unversioned")",
      "arms \(arms.isEmpty ? "none" : arms.joined(separator: ", "))",
      "queue at start: "
        + (summary.queuedAtStart.isEmpty ? "empty" : summary.queuedAtStart.joined(separator: "; ")),
    ]
    if summary.keptForAnomaly { facts.append("kept for its anomaly") }
    let title = "\(Title.timeline) '\(summary.zoneID)', session \(summary.number)"
    let chart = TimelineChart(id: "session-\(index + 1)", title: title, timeline: SessionTimeline(inputs))
    var parts = [chart.svg(), "<p class=\"facts\">\(SVG.escape(facts.joined(separator: " · ")))</p>"]
    for anomaly in summary.anomalies {
      parts.append("<p class=\"anomaly\">anomaly: \(SVG.escape(anomaly))</p>")
    }
    var rows = ["<tr><th>time</th><th>input</th><th>what</th><th>events published</th></tr>"]
    for entry in timeline {
      let events = entry.published.map { event in
        let detail = RecordedEventFormat.text(event)
        return [event.event, event.network, detail.isEmpty ? nil : detail].compactMap { $0 }.joined(
          separator: " ")
      }
      rows.append(
        row(["\(entry.time.milliseconds) ms", entry.input, entry.summary, events.joined(separator: "; ")]))
    }
    parts.append(
      "<details><summary>\(timeline.count) inputs</summary><table class=\"inputs\">\(rows.joined())</table></details>"
    )
    return parts.joined()
  }

  private func row(_ cells: [String]) -> String {
    "<tr>" + cells.map { "<td>\(SVG.escape($0))</td>" }.joined() + "</tr>"
  }

  private static let css = """
    h2 { font-size: 16px; margin: 0 0 8px; }
    .facts, .flags { color: #444; margin: 0 0 8px; }
    .anomaly { color: #D62728; font-weight: 600; margin: 0 0 8px; }
    text.event { font-size: 10px; fill: #333; }
    circle.app { stroke: #fff; stroke-width: 1.5; }
    table.inputs { border-collapse: collapse; width: 100%; margin-top: 8px; font-size: 12px; }
    table.inputs th, table.inputs td { text-align: left; padding: 3px 8px; border-bottom: 1px solid #eee; vertical-align: top; }
    details summary { cursor: pointer; color: #444; margin-top: 8px; }
    """
}
