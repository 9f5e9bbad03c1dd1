import Foundation
import MediateCLI
import MediationKit
import Testing

/// `mediate --record`, `--fault` and `mediate replay`, run in-process over the built-in simulated
/// networks: a faulty cycle recorded and replayed on this engine comes out identical, a tampered
/// recording does not, and a file that is not a readable recording is refused, saying why.
@Suite("mediate --record, --fault and replay")
struct RecordReplayCommandTests {
  /// The ten faults, by the names `--fault` takes (pinned: scripts and the docs use them).
  static let faults = [
    "start-never-answers", "load-never-answers", "load-fails", "duplicate-callbacks",
    "callbacks-from-another-thread", "show-never-answers", "dismissal-without-display", "display-fails",
    "reward-after-dismissal", "late-reward-after-dismissal",
  ]

  /// Runs `mediate` over the built-in networks.
  static func run(_ arguments: [String]) -> (code: Int32, out: [String], err: [String]) {
    mediate(arguments, registry: BuiltInNetworks.registry())
  }

  static func temporaryPath(_ name: String) -> String {
    NSTemporaryDirectory() + "mediate-\(name)-\(UUID().uuidString).jsonl"
  }

  /// Records one cycle of `level_complete` with `extra` options and returns the file's path.
  static func record(_ extra: [String] = []) throws -> String {
    let path = temporaryPath("recording")
    let result = run(["--zone", "level_complete", "--record", path] + extra)
    try #require(result.code == 0, "\(result.err)")
    #expect(result.err.contains { $0.hasPrefix("recording: \(path) (") })
    return path
  }

  /// `mediate replay PATH --json`: the events and the summary, parsed.
  static func replay(_ path: String) throws -> (code: Int32, events: [[String: Any]], summary: [String: Any])
  {
    let result = run(["replay", path, "--json"])
    let objects = try result.out.filter { !$0.isEmpty }.map { line in
      try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
    let summary = try #require(objects.last)
    return (result.code, Array(objects.dropLast()), summary)
  }

  @Test(arguments: faults)
  func aFaultyCycleRecordedReplaysIdentically(fault: String) throws {
    let path = try Self.record(["--fault", fault])
    defer { try? FileManager.default.removeItem(atPath: path) }
    let replay = try Self.replay(path)
    #expect(replay.code == 0)
    #expect(replay.summary["identical"] as? Bool == true)
    #expect(replay.summary["first_difference"] is NSNull)
    let contract = try #require(replay.summary["reward_contract"] as? [String: Any])
    #expect(contract["held"] as? Bool == true, "\(contract)")
    #expect(!replay.events.isEmpty)
    #expect(replay.events.allSatisfy { $0["t_ms"] is Int && $0["zone"] as? String == "level_complete" })
  }

  @Test func theFaultShowsInTheReplayedEvents() throws {
    func names(_ fault: String) throws -> [String] {
      let path = try Self.record(["--fault", fault])
      defer { try? FileManager.default.removeItem(atPath: path) }
      return try Self.replay(path).events.compactMap { $0["event"] as? String }
    }
    #expect(try names("load-fails") == ["loading", "failed"])
    #expect(try names("display-fails").suffix(1) == ["show_failed"])
    let late = try names("late-reward-after-dismissal")
    #expect(late.contains("skipped") && !late.contains("rewarded"))
    #expect(try names("reward-after-dismissal").contains("rewarded"))
  }

  /// A zone without a grace window still has both reward faults: the late reward comes a second
  /// after the dismissal, past the (empty) window.
  @Test func aZoneWithoutAGraceWindowHasTheLateRewardFault() throws {
    let config = temporaryFile(
      #"{"zones": [{"id": "z", "reward": {"type": "coins", "amount": 1}, "loadTimeoutSeconds": 30, "adExpirySeconds": 60, "rewardGraceSeconds": 0, "autoReload": false, "lineItems": [{"network": "max", "placementId": "a", "priority": 0, "ecpm": 3, "timeoutSeconds": 5}]}]}"#
    )
    defer { try? FileManager.default.removeItem(atPath: config) }
    let result = Self.run([
      "--config", config, "--zone", "z", "--networks", "max", "--fault", "late-reward-after-dismissal",
      "--json",
    ])
    #expect(result.code == 0, "\(result.err)")
    let events = result.out.compactMap { line in
      (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["event"] as? String
    }
    #expect(events.contains("skipped") && !events.contains("rewarded"), "\(events)")
  }

  @Test func aReplayedRewardKeepsTheCyclesJSONShape() throws {
    let path = try Self.record()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let replay = try Self.replay(path)
    let reward = try #require(replay.events.first { $0["event"] as? String == "rewarded" })
    #expect(reward["reward_amount"] as? Int == 100)
    #expect(reward["reward_type"] as? String == "coins")
    #expect(reward["network"] as? String == "empower")
    let ready = try #require(replay.events.first { $0["event"] as? String == "ready" })
    #expect(ready["ecpm"] is Double)
    // The text timeline names each session and says it is identical.
    let text = Self.run(["replay", path])
    #expect(text.code == 0)
    #expect(text.out.contains("Zone 'level_complete' · session 1 (virtual time)"))
    #expect(text.out.contains { $0.contains("rewarded") && $0.contains("100 coins") })
    #expect(text.out.last?.hasPrefix("Replay: identical") == true)
  }

  @Test func theSimulatorsRecordingReplaysIdentically() throws {
    let path = Self.temporaryPath("simulation")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let result = Self.run(["--zone", "level_complete", "--requests", "2000", "--json", "--record", path])
    #expect(result.code == 0)
    // The figures are the simulator's, recording or not.
    let plain = Self.run(["--zone", "level_complete", "--requests", "2000", "--json"])
    #expect(
      NSDictionary(dictionary: try simulationFigures(result.out.first))
        == NSDictionary(dictionary: try simulationFigures(plain.out.first)))
    let replay = try Self.replay(path)
    #expect(replay.code == 0)
    #expect(replay.summary["identical"] as? Bool == true)
    // Sessions 30 s apart, closer than the late-signal window, are kept one by one
    // (FlightRecorderSessionBoundaryTests).
    // The ring's 20, and up to 5 with an anomaly kept aside.
    let sessions = replay.summary["sessions"] as? Int ?? 0
    #expect((20...25).contains(sessions), "\(sessions)")
  }

  @Test func aTamperedAnswerOrSignalMakesTheReplayDiffer() throws {
    let path = try Self.record()
    defer { try? FileManager.default.removeItem(atPath: path) }
    // The network's answer: the loaded ad's price.
    let answer = try Self.tampered(path) { step in
      guard var input = step["input"] as? [String: Any], input["type"] as? String == "loaded",
        var ad = input["ad"] as? [String: Any]
      else { return nil }
      ad["ecpm"] = 1.25
      input["ad"] = ad
      return input
    }
    defer { try? FileManager.default.removeItem(atPath: answer) }
    let byAnswer = try Self.replay(answer)
    #expect(byAnswer.code == 1)
    #expect(byAnswer.summary["identical"] as? Bool == false)
    let priced = try #require(byAnswer.summary["first_difference"] as? String)
    #expect(priced.hasPrefix("event 2: recorded ready empower ecpm"), "\(priced)")
    #expect(priced.hasSuffix("replayed ready empower ecpm 1.25"), "\(priced)")
    // The show's signal: the network's reward becomes a click.
    let signal = try Self.tampered(path) { step in
      guard var input = step["input"] as? [String: Any], var signal = input["signal"] as? [String: Any],
        signal["type"] as? String == "rewarded"
      else { return nil }
      signal["type"] = "clicked"
      input["signal"] = signal
      return input
    }
    defer { try? FileManager.default.removeItem(atPath: signal) }
    let bySignal = try Self.replay(signal)
    #expect(bySignal.code == 1)
    let difference = try #require(bySignal.summary["first_difference"] as? String)
    #expect(
      difference.contains("recorded revenue_paid") || difference.contains("recorded rewarded"),
      "\(difference)")
    let text = Self.run(["replay", signal])
    #expect(text.code == 1)
    #expect(text.out.last == "Replay: differs from the recording at \(difference)")
  }

  /// A copy of the recording at `path` with the first step whose input `change` returns a new
  /// input for changed; returns the copy's path.
  static func tampered(_ path: String, _ change: ([String: Any]) -> [String: Any]?) throws -> String {
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    var changed = false
    let edited = try lines.map { line -> String in
      guard !changed, var object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        var step = object["step"] as? [String: Any], let input = change(step)
      else { return line }
      changed = true
      step["input"] = input
      object["step"] = step
      return String(
        decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }
    try #require(changed)
    let copy = temporaryPath("tampered")
    try (edited.joined(separator: "\n") + "\n").write(toFile: copy, atomically: true, encoding: .utf8)
    return copy
  }
}
