import Foundation

/// A flight recording written to a file to share (`MediationKitUI`'s inspector screen), with a
/// line saying what it holds.
package struct RecordingExport: Sendable, Equatable {
  /// The file, or `nil` when it could not be written.
  package var file: URL?
  /// What the file holds, or why there is none.
  package var note: String

  /// Writes `recording`'s JSON Lines to `mediationkit-recording-<seconds since 1970>.jsonl` in
  /// `directory`, replacing a file of that name. Call it off the main thread: it encodes the
  /// recording (``FlightRecording/jsonLines``) and writes it to disk.
  package static func write(
    _ recording: FlightRecording, to directory: URL = FileManager.default.temporaryDirectory,
    now: Date = Date()
  ) -> RecordingExport {
    let file = directory.appendingPathComponent(
      "mediationkit-recording-\(Int64(now.timeIntervalSince1970)).jsonl")
    let data = recording.jsonLines  // encoded here, once
    do {
      try data.write(to: file, options: .atomic)
    } catch {
      return RecordingExport(
        file: nil, note: "the flight recording could not be written to \(file.path): \(error)")
    }
    return RecordingExport(file: file, note: summary(of: recording, bytes: data.count))
  }

  /// "2 zones, 140 inputs, 1 anomaly, 38 KB", or why the file holds no zone.
  package static func summary(of recording: FlightRecording, bytes: Int) -> String {
    let size = "\((bytes + 1023) / 1024) KB"
    guard !recording.zoneIDs.isEmpty else {
      return
        "no zone recorded (MediatorOptions.flightRecorder is off): the file holds only its header, \(size)"
    }
    func count(_ number: Int, _ one: String, _ many: String) -> String {
      "\(number) \(number == 1 ? one : many)"
    }
    return [
      count(recording.zoneIDs.count, "zone", "zones"), count(recording.inputCount, "input", "inputs"),
      count(recording.anomalies.count, "anomaly", "anomalies"), size,
    ].joined(separator: ", ")
  }
}
