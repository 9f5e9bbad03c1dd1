import Foundation

extension FlightRecording {
  /// Why a file is not a recording this MediationKit can read, and where.
  public struct FileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem it is.
    public enum Kind: String, Sendable, Equatable {
      /// Not a flight recording at all (empty, or its first line is not a recording's header).
      case notARecording = "not_a_recording"
      /// Written by a newer MediationKit, in a version this one cannot read.
      case futureVersion = "future_version"
      /// A line that is not JSON, or not what the format says.
      case corrupted
      /// Steps out of order (a sequence number or a time going back), or a record out of place.
      case reordered
      /// The file ends before its end record, or holds fewer records than its end record says.
      case truncated
    }

    public var kind: Kind
    /// The line the problem is on, from 1; `nil` for the file as a whole.
    public var line: Int?
    public var message: String

    public var description: String {
      (line.map { "line \($0): " } ?? "") + message
    }
  }

  /// One line of the file: exactly one of these.
  private struct Line: Codable {
    var header: Header?
    var zone: ZoneLine?
    var session: SessionLine?
    var step: Step?
    var end: EndLine?
  }

  private struct ZoneLine: Codable {
    var id: String
    var overflowedSessions: Int
  }

  private struct SessionLine: Codable {
    var number: Int
    var keptForAnomaly: Bool
    var anomalies: [String]
    var endsAtRest: Bool
    var checkpoint: ZoneCheckpoint
  }

  private struct EndLine: Codable {
    var zones: Int
    var sessions: Int
    var steps: Int
  }

  static func write(header: Header, zones: [Zone]) -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var data = Data()
    func append(_ line: Line) {
      // Every value here is a plain number, string, array or dictionary: encoding cannot fail.
      guard let encoded = try? encoder.encode(line) else { return }
      data.append(encoded)
      data.append(0x0A)
    }
    append(Line(header: header))
    var sessions = 0
    var steps = 0
    for zone in zones {
      append(Line(zone: ZoneLine(id: zone.id, overflowedSessions: zone.overflowedSessions)))
      for session in zone.sessions {
        sessions += 1
        append(
          Line(
            session: SessionLine(
              number: session.number, keptForAnomaly: session.keptForAnomaly, anomalies: session.anomalies,
              endsAtRest: session.endsAtRest, checkpoint: session.checkpoint)))
        for step in session.steps {
          steps += 1
          append(Line(step: step))
        }
      }
    }
    append(Line(end: EndLine(zones: zones.count, sessions: sessions, steps: steps)))
    return data
  }

  static func read(_ data: Data) throws(FileError) -> (Header, [Zone]) {
    let decoder = JSONDecoder()
    var lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
    if lines.last?.isEmpty == true { lines.removeLast() }
    guard let first = lines.first, !first.isEmpty else {
      throw FileError(
        kind: .notARecording, line: nil, message: "the file is empty; expected a flight recording")
    }
    let header = try readHeader(first, decoder)
    var zones: [Zone] = []
    var end: EndLine?
    for (index, bytes) in lines.enumerated().dropFirst() {
      let number = index + 1
      guard end == nil else {
        throw FileError(kind: .corrupted, line: number, message: "a record after the end record")
      }
      let line: Line
      do {
        line = try decoder.decode(Line.self, from: Data(bytes))
      } catch {
        let cutOff = index == lines.count - 1 && data.last != 0x0A
        throw FileError(
          kind: cutOff ? .truncated : .corrupted, line: number,
          message: cutOff
            ? "the last line is cut off: the file ends in the middle of a record"
            : "not a recording record: \(Self.describe(error))")
      }
      try place(line, number: number, into: &zones, end: &end)
    }
    guard let end else {
      throw FileError(
        kind: .truncated, line: nil,
        message: "the file ends after \(lines.count) lines without its end record: it was cut off")
    }
    let sessions = zones.reduce(0) { $0 + $1.sessions.count }
    let steps = zones.reduce(0) { $0 + $1.sessions.reduce(0) { $0 + $1.steps.count } }
    guard end.zones == zones.count, end.sessions == sessions, end.steps == steps else {
      throw FileError(
        kind: .truncated, line: lines.count,
        message: "the end record counts \(end.zones) zones, \(end.sessions) sessions and \(end.steps) steps; "
          + "the file holds \(zones.count), \(sessions) and \(steps): records are missing")
    }
    return (header, zones)
  }

  private static func readHeader(_ bytes: Data.SubSequence, _ decoder: JSONDecoder) throws(FileError)
    -> Header
  {
    struct Probe: Decodable {
      struct Format: Decodable {
        var format: String?
        var version: Int?
      }
      var header: Format?
    }
    guard let probe = try? decoder.decode(Probe.self, from: Data(bytes)), let format = probe.header,
      format.format == FlightRecording.format, let version = format.version
    else {
      throw FileError(
        kind: .notARecording, line: 1,
        message: "not a flight recording: the first line should be its header, {\"header\": {\"format\": "
          + "\"\(FlightRecording.format)\", ...}}")
    }
    guard version <= FlightRecording.version else {
      throw FileError(
        kind: .futureVersion, line: 1,
        message: "written in recording version \(version) by a newer MediationKit; this one reads versions "
          + "1 to \(FlightRecording.version): update MediationKit to read it")
    }
    guard version >= 1 else {
      throw FileError(kind: .corrupted, line: 1, message: "recording version \(version); versions start at 1")
    }
    do {
      return try decoder.decode(Line.self, from: Data(bytes)).header!
    } catch {
      throw FileError(kind: .corrupted, line: 1, message: "the header is not complete: \(describe(error))")
    }
  }

  /// Puts `line` where it belongs: a zone, a session of the last zone, a step of the last session.
  private static func place(
    _ line: Line, number: Int, into zones: inout [Zone], end: inout EndLine?
  ) throws(FileError) {
    let present = [
      line.header != nil, line.zone != nil, line.session != nil, line.step != nil, line.end != nil,
    ]
    guard present.filter({ $0 }).count == 1 else {
      throw FileError(
        kind: .corrupted, line: number,
        message: "a record holds exactly one of header, zone, session, step and end")
    }
    if line.header != nil {
      throw FileError(
        kind: .reordered, line: number, message: "a second header; the header is the first line only")
    } else if let zone = line.zone {
      zones.append(Zone(id: zone.id, overflowedSessions: zone.overflowedSessions, sessions: []))
    } else if let session = line.session {
      guard !zones.isEmpty else {
        throw FileError(kind: .reordered, line: number, message: "a session before any zone record")
      }
      if let problem = session.checkpoint.problem {
        throw FileError(kind: .corrupted, line: number, message: "the session's checkpoint: \(problem)")
      }
      zones[zones.count - 1].sessions.append(
        Session(
          number: session.number, keptForAnomaly: session.keptForAnomaly, anomalies: session.anomalies,
          endsAtRest: session.endsAtRest, checkpoint: session.checkpoint, steps: []))
    } else if let step = line.step {
      guard var zone = zones.popLast(), var session = zone.sessions.popLast() else {
        throw FileError(kind: .reordered, line: number, message: "a step before any session record")
      }
      if let problem = step.input.change?.setup?.problem {
        throw FileError(kind: .corrupted, line: number, message: "the configuration change: \(problem)")
      }
      if let previous = session.steps.last {
        guard step.seq > previous.seq, step.tNS >= previous.tNS else {
          throw FileError(
            kind: .reordered, line: number,
            message: "step \(step.seq) at \(step.tNS) ns follows step \(previous.seq) at \(previous.tNS) ns: "
              + "steps go forward in number and time")
        }
      }
      session.steps.append(step)
      zone.sessions.append(session)
      zones.append(zone)
    } else {
      end = line.end
    }
  }

  /// A decoding error in a few words: the path to the field, and what was wrong.
  private static func describe(_ error: any Error) -> String {
    func path(_ context: DecodingError.Context) -> String {
      let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
      return path.isEmpty ? "" : "\(path.dropFirst()): "
    }
    switch error as? DecodingError {
    case .dataCorrupted(let context): return path(context) + MessageFormat.excerpt(context.debugDescription)
    case .keyNotFound(let key, let context): return path(context) + "'\(key.stringValue)' is missing"
    case .typeMismatch(let type, let context): return path(context) + "expected \(type)"
    case .valueNotFound(let type, let context): return path(context) + "expected \(type), found null"
    default: return MessageFormat.excerpt("\(error)")
    }
  }
}

extension RecordedSetup {
  /// What is wrong with the recorded zone or its base configuration, as validation says it; `nil`
  /// when both are valid. A recording's numbers become durations and timers when it replays.
  var problem: String? {
    let issues = MediationConfig(zones: [zone]).validate() + MediationConfig(zones: [base]).validate()
    return issues.first.map { "\($0)" }
  }
}

extension ZoneCheckpoint {
  /// What is wrong with the checkpoint: its setup's problem, or a counter out of range (the engine
  /// counts on from each, so a file's `Int.max` would overflow); `nil` when it is sound.
  var problem: String? {
    if let problem = setup.problem { return problem }
    let counters = [
      ("lastLoadID", lastLoadID), ("lastShowID", lastShowID), ("lastTimerGeneration", lastTimerGeneration),
      ("consecutiveFailures", consecutiveFailures), ("consecutiveWithdrawals", consecutiveWithdrawals),
      ("learningEpoch", learningEpoch), ("learned.loads", learned?.loads ?? 0),
    ]
    let range = 0...Int(Int32.max)
    guard let (name, value) = counters.first(where: { !range.contains($0.1) }) else { return nil }
    return "\(name) must be within \(range.lowerBound)...\(range.upperBound), found \(value)"
  }
}
