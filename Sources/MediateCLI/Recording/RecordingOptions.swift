import Foundation
import MediationKit

/// The options of the flight-recorder commands: `--record` and `--fault` on the cycle, and the
/// recording file `replay` and `inspect` read.
extension OptionSpec {
  static let record = OptionSpec(
    name: "--record", valueName: "FILE",
    help:
      "Run with the flight recorder on and write what it kept to FILE (JSON Lines), for mediate replay "
      + "and mediate inspect; with --requests, the last sessions of the last shard, within the recorder's bounds."
  )

  /// `--fault NAME`; its help names the ten faults (the article says what each does).
  static let fault = OptionSpec(
    name: "--fault", valueName: "NAME",
    help:
      "Wrap every network of the cycle (--networks) in the test kit's fault NAME, one of: "
      + FaultOption.names.joined(separator: ", ")
      + " (the reward comes half the zone's grace window after the dismissal, or twice it: not granted).")

  static let inspectReport = OptionSpec(
    name: "--report", valueName: "FILE",
    help:
      "Also write a self-contained HTML page (no script) to FILE: each session's timeline drawn, with "
      + "the line items and their fates, the show's signals and the reward.")
}

extension CommandContext {
  /// `option`'s file, checked before the run: its directory must exist and the path must be one
  /// ``OutputFile`` writes (a regular file, a link to one, or nothing yet); `nil` when left out.
  func outputPath(_ option: OptionSpec, what: String) throws(CLIError) -> String? {
    guard let path = arguments.value(option) else { return nil }
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
    else {
      throw CLIError(kind: .io, message: "\(path): cannot write the \(what): no directory \(directory)")
    }
    try OutputFile.check(path, what: what)
    return path
  }

  /// The flight recording `command` names as its one argument, read and checked.
  ///
  /// - Throws: Usage (64) without exactly one FILE; no input (66) for a file that is not there or
  ///   cannot be read; bad data (65) for one that is not a recording this MediationKit reads,
  ///   saying where and why: `FILE: line 7: … (reordered)`.
  func recording(for command: Command) throws(CLIError) -> (path: String, recording: FlightRecording) {
    let files = arguments.positional
    guard let path = files.first else { throw .usage("missing FILE, the flight recording to read", command) }
    if files.count > 1 { throw .usage("unexpected argument '\(files[1])'", command) }
    guard let data = FileManager.default.contents(atPath: path) else { throw .noInput(path) }
    do {
      return (path, try FlightRecording(jsonLines: data))
    } catch {
      throw .data("\(path): \(error.description) (\(error.kind.rawValue))")
    }
  }
}
