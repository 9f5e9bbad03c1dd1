import Foundation
import MediationKit
import Testing

@testable import MediateCLI

/// `mediate inspect`: what a recording holds, as text, as one JSON object, and drawn on an HTML
/// page whose marks carry the recording's facts.
@Suite("mediate inspect")
struct InspectCommandTests {
  static func run(_ arguments: [String]) -> (code: Int32, out: [String], err: [String]) {
    RecordReplayCommandTests.run(arguments)
  }

  @Test func textNamesTheEngineNetworksPrivacyAndEverySessionWithItsInputs() throws {
    let path = try RecordReplayCommandTests.record(["--no-consent"])
    defer { try? FileManager.default.removeItem(atPath: path) }
    let result = Self.run(["inspect", path])
    #expect(result.code == 0)
    let text = result.out
    #expect(text.first == "Flight recording \(path)")
    #expect(text.contains { $0.hasPrefix("  engine     MediationKit (adapter API ") })
    for network in BuiltInNetworks.registry().all.map(\.info) {
      #expect(
        text.contains {
          $0.contains("\(network.id) adapter \(network.adapterVersion) · SDK \(network.sdkVersion)")
        })
    }
    #expect(text.contains { $0.hasPrefix("  privacy    ") && $0.contains("has_user_consent false") })
    #expect(text.contains("Zone 'level_complete'"))
    #expect(text.contains { $0.hasPrefix("  Session 1 · 8 inputs · 0 ms … ") })
    #expect(text.contains { $0.hasPrefix("  Session 2 · ") })
    #expect(text.contains("    queue at start: empty"))
    #expect(text.contains { $0.contains("load             the app asked for a load") })
    #expect(text.contains { $0.contains("→ rewarded empower · 100 coins") })
  }

  /// A number in a recording's text that JSON cannot hold (too large, not finite) keeps its text
  /// in the output instead of losing the object.
  @Test func aNumberJSONCannotHoldKeepsItsTextAndTheObject() throws {
    let path = try RecordReplayCommandTests.record()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let hostile = text.replacingOccurrences(
      of: #""detail":"ecpm [0-9.]+""#, with: #""detail":"ecpm 1e999""#, options: .regularExpression)
    #expect(hostile != text)
    try hostile.write(toFile: path, atomically: true, encoding: .utf8)
    let result = Self.run(["inspect", path, "--json"])
    #expect(result.code == 0, "\(result.err)")
    #expect(result.out.joined().contains("ecpm 1e999"), "\(result.out)")
    #expect(JSONLine.encode(["a": Double.nan, "b": [1.0, .infinity]]) == #"{"a":null,"b":[1,null]}"#)
  }

  @Test func jsonHoldsEverySessionAndEveryInput() throws {
    let path = try RecordReplayCommandTests.record(["--fault", "late-reward-after-dismissal"])
    defer { try? FileManager.default.removeItem(atPath: path) }
    let result = Self.run(["inspect", path, "--json"])
    #expect(result.code == 0)
    #expect(result.out.count == 1)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.out[0].utf8)) as? [String: Any])
    #expect((object["engine"] as? String)?.hasPrefix("MediationKit") == true)
    let networks = try #require(object["networks"] as? [[String: Any]])
    #expect(networks.compactMap { $0["id"] as? String } == ["empower", "google", "max"])
    #expect(networks.allSatisfy { $0["adapter_version"] is String && $0["sdk_version"] is String })
    #expect((object["privacy"] as? [String: String])?["is_child_directed"] == "false")
    let zones = try #require(object["zones"] as? [[String: Any]])
    let sessions = try #require(zones.first?["sessions"] as? [[String: Any]])
    #expect(sessions.count == 2)
    var inputs = 0
    for session in sessions {
      let timeline = try #require(session["timeline"] as? [[String: Any]])
      #expect(timeline.count == session["inputs"] as? Int)
      #expect(session["start_ms"] as? Int == timeline.first?["t_ms"] as? Int)
      #expect(session["end_ms"] as? Int == timeline.last?["t_ms"] as? Int)
      inputs += timeline.count
    }
    #expect(inputs == object["input_count"] as? Int)
    let show = sessions[1]
    #expect(
      show["anomalies"] as? [String] == [
        "a show ended without a reward", "a reward came after the grace window",
      ])
    #expect(
      (show["queued_at_start"] as? [String])?.first?.hasPrefix("empower/emp-level-complete-high eCPM ")
        == true)
    let published = (show["timeline"] as? [[String: Any]] ?? []).flatMap {
      $0["published"] as? [[String: Any]] ?? []
    }
    #expect(
      published.contains { $0["event"] as? String == "diagnostic" && $0["kind"] as? String == "late_reward" })
  }

  /// `inspect --report` of a recording made with `extra`: the page, parsed.
  static func report(_ extra: [String]) throws -> (html: String, document: HTMLReportTests.Document) {
    let path = try RecordReplayCommandTests.record(extra)
    let page = NSTemporaryDirectory() + "mediate-inspect-\(UUID().uuidString).html"
    defer {
      try? FileManager.default.removeItem(atPath: path)
      try? FileManager.default.removeItem(atPath: page)
    }
    let result = Self.run(["inspect", path, "--report", page])
    #expect(result.code == 0)
    #expect(result.err == ["report: \(page)"])
    let html = try String(contentsOfFile: page, encoding: .utf8)
    return (html, HTMLReportTests.Document(html))
  }

  @Test func theReportDrawsEachSessionsLineItemsShowAndReward() throws {
    let (html, document) = try Self.report([])
    for forbidden in ["<script", "src=", "href=", "@import", "url(", "https://"] {
      #expect(!html.contains(forbidden), "\(forbidden)")
    }
    #expect(html.contains(RecordingReport.Title.networks))
    let charts = document.elements.filter { $0.name == "svg" }
    #expect(charts.map { $0.attributes["id"] ?? "" } == ["session-1", "session-2"])
    #expect(document.texts(in: "session-1").contains("Timeline of zone 'level_complete', session 1"))
    let requests = document.elements("rect", in: "session-1").filter { $0.attributes["class"] == "request" }
    #expect(requests.map { $0.attributes["data-state"] } == ["loaded"])
    #expect(requests.first?.attributes["data-lane"] == "load 1 · empower · emp-level-complete-high · load")
    let show = document.elements("rect", in: "session-2").filter { $0.attributes["class"] == "show" }
    #expect(show.map { $0.attributes["data-outcome"] } == ["closed"])
    let signals = document.elements("circle", in: "session-2").compactMap { $0.attributes["data-signal"] }
    #expect(signals == ["displayed", "rewarded", "dismissed"])
    let reward = document.elements("polygon", in: "session-2").filter { $0.attributes["class"] == "reward" }
    #expect(reward.map { $0.attributes["data-granted"] } == ["true"])
    #expect(reward.first?.attributes["data-label"] == "100 coins")
  }

  @Test func theReportShowsTimeoutsAndARewardNotGranted() throws {
    let (_, timedOut) = try Self.report(["--fault", "load-never-answers"])
    let fates = timedOut.elements("rect", in: "session-1").compactMap { $0.attributes["data-state"] }
    #expect(fates == ["timed_out", "timed_out", "timed_out", "timed_out"])
    #expect(timedOut.elements.contains { $0.attributes["class"] == "anomaly" })
    let (_, late) = try Self.report(["--fault", "late-reward-after-dismissal"])
    let reward = late.elements("polygon", in: "session-2").filter { $0.attributes["class"] == "reward" }
    #expect(reward.map { $0.attributes["data-granted"] } == ["false"])
    #expect(late.elements("rect", in: "session-2").contains { $0.attributes["data-outcome"] == "skipped" })
  }

  @Test func aReportThatCannotBeWrittenExits74BeforeReading() throws {
    let result = Self.run(["inspect", "/no/such/recording.jsonl", "--report", NSTemporaryDirectory()])
    #expect(result.code == 74)
    #expect(result.err.first?.contains("cannot write the report") == true)
  }
}
