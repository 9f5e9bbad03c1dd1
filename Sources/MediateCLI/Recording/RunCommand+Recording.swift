import Foundation
import MediationKit
import MediationKitTesting

/// `--fault NAME` and `--record FILE` on `mediate [run]`: a faulty cycle, and the flight
/// recording of a cycle or of the simulator's last sessions, for `mediate replay` and
/// `mediate inspect`.
extension RunCommand {
  /// `--fault NAME`, for the single cycle only; a reward's delay is measured against `zone`'s
  /// grace window.
  func fault(zone: ZoneConfig, simulating: Bool) throws(CLIError) -> Fault? {
    guard let name = context.arguments.value(.fault) else { return nil }
    guard !simulating else {
      throw .usage("--fault wraps the networks of one cycle; it cannot be combined with --requests")
    }
    return try FaultOption.fault(named: name, rewardGrace: .seconds(zone.rewardGraceSeconds))
  }

  /// `--record FILE`, checked before the run (exit 74 when it cannot be written). The simulator
  /// records one engine: not a zone with A/B tests, which it runs as one engine per arm.
  func recordPath(zone: ZoneConfig, simulating: Bool) throws(CLIError) -> String? {
    guard let path = try context.outputPath(.record, what: "recording") else { return nil }
    if simulating && !zone.experiments.isEmpty {
      throw .usage(
        "--record with --requests records one engine; zone '\(zone.id)' runs A/B tests, which the "
          + "simulator runs as one engine per arm: record a single cycle (with --user-id) instead")
    }
    return path
  }

  /// Writes `recording` to `path` (``OutputFile``'s rules; exit 74 naming the file when it
  /// cannot) and says what it holds on standard error.
  func write(_ recording: FlightRecording, to path: String) throws(CLIError) {
    try OutputFile.write(recording.jsonLines, to: path, what: "recording")
    let sessions = recording.sessionSummaries.count
    context.output.err(
      "recording: \(path) (\(sessions) session\(sessions == 1 ? "" : "s"), \(recording.inputCount) inputs)")
  }
}
