import Foundation
import MediationKit
import MediationKitTesting
import Testing

@testable import MediationKit

/// The flight recorder on scripted networks: what it keeps, within which bounds, what it never
/// keeps, and that a recording replays exactly; what a file must be to be read.
@Suite("Flight recorder")
struct FlightRecorderTests {
  static func recorder(
    maxSessions: Int = 20, maxInputs: Int = 2_000, keptAnomalies: Int = 5, consent: Bool = false
  ) -> MediatorOptions {
    MediatorOptions(
      seed: 3, transactionIDs: .seeded,
      flightRecorder: MediatorOptions.FlightRecorder(
        isEnabled: true, maxSessions: maxSessions, maxInputs: maxInputs, keptAnomalies: keptAnomalies,
        keepsConsentStrings: consent))
  }

  /// Two networks, a waterfall, auto-reload: `cycles` load-and-show cycles, every third one
  /// skipped (an anomaly).
  static func run(
    cycles: Int, options: MediatorOptions, show: ScriptedAdapter.ShowScript = .completes,
    config: ((inout ZoneConfig) -> Void)? = nil
  ) throws -> LiveHarness {
    var z = zone([item("a", "a-z", ecpm: 12), item("b", "b-z", ecpm: 8)], autoReload: true)
    config?(&z)
    let harness = try LiveHarness(MediationConfig(zones: [z], version: "v1"), options: options) { s in
      [
        ScriptedAdapter(
          id: "a", scheduler: s,
          loads: [
            "a-z": (0..<(cycles * 2 + 2)).map {
              $0 % 3 == 0 ? .fail(after: .seconds(1), noFill) : .fill(after: .seconds(2))
            }
          ],
          show: show),
        ScriptedAdapter(
          id: "b", scheduler: s,
          loads: ["b-z": Array(repeating: .fill(after: .milliseconds(700)), count: cycles * 2 + 2)],
          show: show),
      ]
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    for _ in 0..<cycles {
      harness.settle(.seconds(30))
      if ad.isReady { try? ad.show(from: HeadlessPresenter(), customData: "secret-custom-data") }
      harness.settle(.seconds(120))
    }
    return harness
  }

  static func replay(_ recording: FlightRecording) throws -> FlightRecording.Replay {
    try FlightRecording(jsonLines: recording.jsonLines).replay()
  }

  // MARK: Replays

  @Test func aRecordingReplaysIdenticallyWithAutoReloadAndAQueue() throws {
    for depth in [1, 2] {
      let harness = try Self.run(cycles: 8, options: Self.recorder()) { $0.queueDepth = depth }
      let recording = harness.mediator.exportRecording()
      #expect(recording.zoneIDs == ["z"])
      let replay = try Self.replay(recording)
      let difference = replay.firstDifference
      #expect(difference == nil, "depth \(depth)")
      #expect(replay.replayed.count == replay.recorded.count && replay.replayed.count > 20)
      #expect(replay.notes.isEmpty, "\(replay.notes)")
    }
  }

  /// A network that misbehaves (rewards twice, rewards after the dismissal, signals after the
  /// end) is replayed misbehaving: the same diagnostics, the reward granted once.
  @Test func aMisbehavingNetworkReplaysItsMisbehaviour() throws {
    let odd = ScriptedAdapter.ShowScript([
      (.zero, .displayed), (.seconds(2), .rewarded(nil)), (.seconds(2), .rewarded(nil)),
      (.seconds(3), .dismissed), (.seconds(4), .dismissed), (.seconds(9), .rewarded(nil)),
      (.seconds(10), .clicked),
    ])
    let harness = try Self.run(cycles: 4, options: Self.recorder(), show: odd)
    let replay = try Self.replay(harness.mediator.exportRecording())
    let difference = replay.firstDifference
    #expect(difference == nil)
    let diagnostics = replay.replayed.filter { $0.event.event == "diagnostic" }.compactMap(\.event.detail)
    #expect(diagnostics.contains("duplicate_reward") && diagnostics.contains("signal_after_terminal"))
    #expect(
      replay.replayed.filter { $0.event.event == "rewarded" }.count
        == replay.replayed.filter { $0.event.event == "shown" }.count)
  }

  /// Edited answers make the replay go its own way, and the first difference names the event.
  @Test func aTamperedRecordingIsNotIdenticalAndSaysWhere() throws {
    let harness = try Self.run(cycles: 3, options: Self.recorder())
    let text = String(decoding: harness.mediator.exportRecording().jsonLines, as: UTF8.self)
    // The network's first reward becomes a dismissal.
    let reward = try #require(text.range(of: #""signal":{"type":"rewarded"}"#))
    let tampered = text.replacingCharacters(in: reward, with: #""signal":{"type":"dismissed"}"#)
    let replay = try FlightRecording(jsonLines: Data(tampered.utf8)).replay()
    let difference = try #require(replay.firstDifference)
    // Recorded: the reward at 30 s (with the impression's revenue), the dismissal at 31 s. Replayed:
    // a dismissal at 30 s, held for the reward's grace window, then the second one is a duplicate.
    #expect(
      difference
        == "event 4: recorded revenue_paid b 0.008 publisher_defined, replayed diagnostic b duplicate_signal")
  }

  /// A changed engine (here: a configuration that asks another placement first) asks what the
  /// recording has no answer for: the replay says so, the request times out, and the recorded
  /// network answers the replay's own later request after the recorded delay.
  @Test func aRequestTheRecordingHasNoAnswerForTimesOutAndAnswersKeepTheirDelay() throws {
    let z = zone([item("b", "b-z", ecpm: 8, timeout: 4)])
    let harness = try LiveHarness(MediationConfig(zones: [z]), options: Self.recorder()) { s in
      [ScriptedAdapter(id: "b", scheduler: s, loads: ["b-z": [.fill(after: .milliseconds(700))]])]
    }
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    let recorded = harness.mediator.exportRecording()
    var zones = recorded.zones
    for field in [\ZoneCheckpoint.setup.zone, \ZoneCheckpoint.setup.base] {
      zones[0].sessions[0].checkpoint[keyPath: field].lineItems.insert(
        item("b", "b-new", ecpm: 20, timeout: 4), at: 0)
    }
    let replay = FlightRecording(header: recorded.header, zones: zones).replay()
    #expect(
      replay.notes == [
        "zone 'z' session 1: load 1 asked b/b-new (load): the recording has no answer; treated as a timeout"
      ])
    let ready = try #require(replay.replayed.first { $0.event.event == "ready" })
    let recordedReady = try #require(replay.recorded.first { $0.event.event == "ready" })
    #expect(ready.event == recordedReady.event)
    #expect(
      ready.time == recordedReady.time + .seconds(4), "the fill came 0.7 s after the replay's own request")
    #expect(
      replay.firstDifference == "event 2 (ready b ecpm 8.0): recorded at 0.7 seconds, replayed at 4.7 seconds"
    )
  }

  /// The ring keeps the last sessions; what is left replays from its first session's checkpoint.
  @Test func aRecordingCutByTheRingReplaysFromItsFirstSession() throws {
    let harness = try Self.run(cycles: 12, options: Self.recorder(maxSessions: 3, keptAnomalies: 0))
    let recording = harness.mediator.exportRecording()
    let sessions = recording.sessionSummaries
    #expect(sessions.count == 3)
    #expect(sessions.first!.number > 1, "the first sessions left the ring")
    let numbers = sessions.map(\.number)
    #expect(
      numbers == Array(numbers[0]..<numbers[0] + 3), "the last three, in order, across the ring's compactions"
    )
    let difference = try Self.replay(recording).firstDifference
    #expect(difference == nil)
  }

  // MARK: Bounds

  @Test func theBoundsHoldOverManyCyclesAndAnomaliesAreKeptAside() throws {
    let harness = try Self.run(
      cycles: 60, options: Self.recorder(maxSessions: 50, maxInputs: 120, keptAnomalies: 2), show: .skips)
    let recording = harness.mediator.exportRecording()
    let kept = recording.sessionSummaries.filter(\.keptForAnomaly)
    let ring = recording.sessionSummaries.filter { !$0.keptForAnomaly }
    #expect(ring.reduce(0) { $0 + $1.inputs } <= 120)
    #expect(kept.count == 2)
    #expect(kept.allSatisfy { $0.anomalies.contains("a show ended without a reward") })
    #expect(kept.last!.number < ring.first!.number)
    let difference = try Self.replay(recording).firstDifference
    #expect(difference == nil)
  }

  // MARK: What a recording never holds

  @Test func aRecordingHoldsNoUserIDCustomDataOrConsentStrings() throws {
    let tcString = "CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA"
    for keeps in [false, true] {
      var z = zone([item("a", "a-z", ecpm: 12)], autoReload: false)
      z.experiments = [
        ZoneConfig.Experiment(
          id: "e",
          arms: [.init(id: "x", weight: 1, lineItems: nil), .init(id: "y", weight: 1, lineItems: nil)])
      ]
      let harness = try LiveHarness(MediationConfig(zones: [z]), options: Self.recorder(consent: keeps)) {
        s in
        [ScriptedAdapter(id: "a", scheduler: s, loads: ["a-z": [.fill(after: .seconds(1))]])]
      }
      try harness.mediator.setUserID("user-8f3a-private")
      harness.mediator.privacy.iab = IABConsent(
        tcString: tcString, gdprApplies: true, usPrivacyString: "1YNN")
      let ad = try harness.mediator.rewardedAd(zone: "z")
      ad.load()
      harness.settle()
      try ad.show(from: HeadlessPresenter(), customData: "order-1234-private")
      harness.settle(.seconds(120))
      let text = String(decoding: harness.mediator.exportRecording().jsonLines, as: UTF8.self)
      #expect(!text.contains("user-8f3a-private"))
      #expect(!text.contains("order-1234-private"))
      #expect(text.contains(tcString) == keeps)
      #expect(text.contains(#""tcStringPresent":true"#))
    }
  }

  // MARK: Switched on by the configuration

  @Test func theConfigurationSwitchesRecordingOnForChosenUsers() throws {
    func exported(_ rule: FlightRecorderRule, user: String?, hash: (@Sendable (String) -> String)? = nil)
      throws -> Int
    {
      let z = zone([item("a", "a-z", ecpm: 12)])
      var options = MediatorOptions()
      options.flightRecorder.userIDHash = hash
      let harness = try LiveHarness(MediationConfig(zones: [z], flightRecorder: rule), options: options) {
        s in
        [ScriptedAdapter(id: "a", scheduler: s, loads: ["a-z": [.fill(after: .seconds(1))]])]
      }
      if let user { try harness.mediator.setUserID(user) }
      let ad = try harness.mediator.rewardedAd(zone: "z")
      ad.load()
      harness.settle()
      return harness.mediator.exportRecording().inputCount
    }
    #expect(try exported(FlightRecorderRule(userIDs: ["qa-7"]), user: "qa-7") > 0)
    #expect(try exported(FlightRecorderRule(userIDs: ["qa-7"]), user: "qa-8") == 0)
    #expect(try exported(FlightRecorderRule(userIDs: ["qa-7"]), user: nil) == 0)
    // A stand-in hash (the platform's SHA-256 where there is one): the rule matches what it gives.
    let digest = String(repeating: "ab", count: 32)
    let fakeHash: @Sendable (String) -> String = { $0 == "qa-9" ? digest : "" }
    #expect(try exported(FlightRecorderRule(hashedUserIDs: [digest]), user: "qa-9", hash: fakeHash) > 0)
    #expect(try exported(FlightRecorderRule(hashedUserIDs: [digest]), user: "qa-8", hash: fakeHash) == 0)
    #expect(try exported(FlightRecorderRule(hashedUserIDs: [digest]), user: "qa-9", hash: nil) == 0)
    #expect(try exported(FlightRecorderRule(fraction: 1), user: "anyone") > 0)
    #expect(try exported(FlightRecorderRule(fraction: 0), user: "anyone") == 0)
    // A fraction picks a stable share of users.
    let picked = (0..<2000).filter { FlightRecorderRule(fraction: 0.1).selects("user-\($0)", hash: nil) }
      .count
    #expect((150...250).contains(picked))
  }

  @Test func aBadRuleIsAnIssueAtItsPath() {
    let rule = FlightRecorderRule(userIDs: [""], hashedUserIDs: ["ABC"], fraction: 1.5)
    let issues = MediationConfig(zones: [zone([item("a", "a-z", ecpm: 1)])], flightRecorder: rule).validate()
    #expect(
      issues.map(\.path) == [
        "flightRecorder.fraction", "flightRecorder.userIDs[0]", "flightRecorder.hashedUserIDs[0]",
      ])
  }

  // MARK: Files that are not recordings

  @Test func filesThatAreNotWholeRecordingsAreRefusedWithTheReason() throws {
    let harness = try Self.run(cycles: 2, options: Self.recorder())
    let text = String(decoding: harness.mediator.exportRecording().jsonLines, as: UTF8.self)
    var lines = text.split(separator: "\n").map(String.init)
    func refusal(_ text: String) -> FlightRecording.FileError? {
      do {
        _ = try FlightRecording(jsonLines: Data(text.utf8))
        return nil
      } catch {
        return error
      }
    }
    #expect(refusal(text) == nil)
    #expect(refusal("")?.kind == .notARecording)
    #expect(refusal("{\"zones\": []}\n")?.kind == .notARecording)
    let future = text.replacingOccurrences(of: #""version":1"#, with: #""version":7"#)
    #expect(refusal(future)?.kind == .futureVersion)
    #expect(refusal(future)?.message.contains("version 7") == true)
    // Cut in the middle of a line, and cut at a line's end (the end record missing).
    #expect(refusal(String(text.dropLast(40)))?.kind == .truncated)
    #expect(refusal(lines.dropLast().joined(separator: "\n") + "\n")?.kind == .truncated)
    // A line that is not JSON, a step whose field is wrong.
    var corrupted = lines
    corrupted[3] = "{\"step\": {\"seq\": tru"
    #expect(refusal(corrupted.joined(separator: "\n") + "\n")?.kind == .corrupted)
    #expect(refusal(corrupted.joined(separator: "\n") + "\n")?.line == 4)
    let wrongType = text.replacingOccurrences(of: #""type":"show""#, with: #""type":"teleport""#)
    #expect(refusal(wrongType)?.kind == .corrupted)
    // Two steps swapped.
    let steps = lines.indices.filter { lines[$0].hasPrefix(#"{"step""#) }
    lines.swapAt(steps[2], steps[3])
    let reordered = refusal(lines.joined(separator: "\n") + "\n")
    #expect(reordered?.kind == .reordered)
    #expect(reordered?.line == steps[3] + 1)
  }

  /// A recording's numbers become durations, timers and counters when it replays: one out of
  /// range is refused at reading, naming what is wrong, and never traps the replay.
  @Test func numbersOutOfRangeAreRefusedAndNeverTrapTheReplay() throws {
    let harness = try Self.run(cycles: 2, options: Self.recorder())
    let text = String(decoding: harness.mediator.exportRecording().jsonLines, as: UTF8.self)
    func refusal(_ text: String) -> FlightRecording.FileError? {
      do {
        _ = try FlightRecording(jsonLines: Data(text.utf8))
        return nil
      } catch {
        return error
      }
    }
    func replacing(_ pattern: String, with replacement: String) -> String {
      text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
    }
    let timeout = refusal(replacing(#""loadTimeoutSeconds":[0-9.]+"#, with: #""loadTimeoutSeconds":1e30"#))
    #expect(timeout?.kind == .corrupted)
    #expect(timeout?.message.contains("loadTimeoutSeconds") == true)
    let itemTimeout = refusal(replacing(#""timeoutSeconds":[0-9.]+"#, with: #""timeoutSeconds":1e30"#))
    #expect(itemTimeout?.kind == .corrupted)
    let counter = refusal(replacing(#""lastLoadID":[0-9]+"#, with: #""lastLoadID":9223372036854775807"#))
    #expect(counter?.kind == .corrupted)
    #expect(counter?.message.contains("lastLoadID must be within 0...2147483647") == true)
    // The largest auction id: the replay's own next id wraps instead of overflowing.
    let auction = replacing(#""auctionID":[0-9]+"#, with: #""auctionID":18446744073709551615"#)
    #expect(refusal(auction) == nil)
    _ = try Self.replay(FlightRecording(jsonLines: Data(auction.utf8)))
  }
}
