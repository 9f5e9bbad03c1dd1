import Foundation
import MediationKit

/// `mediate replay FILE`: replays a flight recording (`mediate --record`, or one an app exported)
/// on this engine — every session from its own checkpoint, the networks answering as they
/// answered then — and prints the replayed timeline, whether it is identical to the recorded
/// one, the replay's notes, and the reward contract checked on the replayed events.
///
/// Exit 0 when the replay is identical and keeps the reward contract; 1 when it differs from the
/// recording or breaks the contract (the summary says which); 65 for a file that is not a
/// recording this engine reads; 66 for a missing one.
struct ReplayCommand {
  let context: CommandContext

  init(_ context: CommandContext) { self.context = context }

  /// What the replay found, as the summary prints it.
  struct Summary {
    var identical: Bool
    var firstDifference: String?
    var notes: [String]
    var contractViolations: [String]
    var recordedEvents: Int
    var replayedEvents: Int
    var sessions: Int

    var passed: Bool { identical && contractViolations.isEmpty }

    /// The one object `--json` prints after the events.
    var json: [String: Any] {
      [
        "identical": identical, "first_difference": firstDifference ?? NSNull(), "notes": notes,
        "reward_contract": ["held": contractViolations.isEmpty, "violations": contractViolations],
        "recorded_events": recordedEvents, "replayed_events": replayedEvents, "sessions": sessions,
      ]
    }
  }

  func run() throws(CLIError) -> Int32 {
    let (path, recording) = try context.recording(for: .replay)
    let replay = recording.replay()
    let summary = Summary(
      identical: replay.isIdentical, firstDifference: replay.firstDifference, notes: replay.notes,
      contractViolations: RecordedEventFormat.contractViolations(replay.replayed),
      recordedEvents: replay.recorded.count, replayedEvents: replay.replayed.count,
      sessions: recording.sessionSummaries.count)
    if context.json {
      for event in replay.replayed {
        context.output.out(JSONLine.encode(RecordedEventFormat.jsonObject(event)))
      }
      context.output.out(JSONLine.encode(summary.json))
    } else {
      context.output.out(text(replay, summary: summary, path: path, engine: recording.engine))
    }
    return summary.passed ? ExitCode.success : ExitCode.failure
  }

  /// The replay for people: the replayed events per zone and session, the notes, the verdicts.
  private func text(
    _ replay: FlightRecording.Replay, summary: Summary, path: String, engine: String
  ) -> String {
    var lines = [
      "Replay of \(path) (recorded by \(engine)) on this engine: \(summary.sessions) sessions, "
        + "\(summary.replayedEvents) events replayed, \(summary.recordedEvents) recorded"
    ]
    var current: (zone: String, session: Int)?
    for event in replay.replayed {
      if current?.zone != event.zoneID || current?.session != event.session {
        current = (event.zoneID, event.session)
        lines += ["", "Zone '\(event.zoneID)' · session \(event.session) (virtual time)"]
      }
      lines.append(RecordedEventFormat.textRow(event))
    }
    if !replay.notes.isEmpty {
      lines += ["", "Notes (where the replay went its own way):"] + replay.notes.map { "  \($0)" }
    }
    lines.append("")
    if summary.contractViolations.isEmpty {
      lines.append("Reward contract: kept in every session")
    } else {
      lines += ["Reward contract: broken"] + summary.contractViolations.map { "  \($0)" }
    }
    if let difference = summary.firstDifference {
      lines.append("Replay: differs from the recording at \(difference)")
    } else {
      lines.append("Replay: identical (the recorded events, in order, at the recorded times)")
    }
    return lines.joined(separator: "\n")
  }
}
