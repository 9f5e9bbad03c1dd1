import Foundation

/// What a mediator's flight recorder kept of its zones (``MediatorOptions/FlightRecorder``), as a
/// file an app can attach to a support ticket: versioned JSON Lines, described in the
/// FlightRecorder article.
///
/// Make one with ``Mediator/exportRecording()`` or ``RewardedAd/exportRecording()``; read one from
/// a file with ``init(jsonLines:)``, which refuses a file that is cut off, corrupted, reordered or
/// from a newer MediationKit, saying which and where. Replay it with `mediate replay FILE`, or in
/// a test with `MediationKitTesting`'s `FlightRecordingReplay`.
public struct FlightRecording: Sendable {
  /// The file's first line names this format.
  public static let format = "mediationkit-flight-recording"
  /// The newest version this MediationKit writes and reads; older ones are read too.
  public static let version = 1

  /// The file's contents: one JSON object per line. An exported recording is encoded on each read
  /// (a large one takes milliseconds): read it once, off the main thread.
  public var jsonLines: Data { file ?? Self.write(header: header, zones: zones) }

  /// The file this recording was read from, if it was.
  private let file: Data?

  /// The recording's zones, each with its sessions.
  let header: Header
  let zones: [Zone]

  /// Reads a recording file.
  ///
  /// - Throws: ``FlightRecording/FileError`` saying what is wrong and on which line: not a
  ///   recording, a newer version, a line that is not JSON or not what the format says, steps out
  ///   of order, or a file cut off before its end record.
  public init(jsonLines: Data) throws(FileError) {
    let (header, zones) = try Self.read(jsonLines)
    self.file = jsonLines
    self.header = header
    self.zones = zones
  }

  init(header: Header, zones: [Zone]) {
    self.header = header
    self.zones = zones
    self.file = nil
  }

  /// The zones recorded, by id.
  public var zoneIDs: [String] { zones.map(\.id) }

  /// How many inputs the recording holds, across its zones and sessions.
  public var inputCount: Int { zones.reduce(0) { $0 + $1.sessions.reduce(0) { $0 + $1.steps.count } } }

  /// Why sessions were kept: each anomaly with its zone and session number.
  public var anomalies: [String] {
    zones.flatMap { zone in
      zone.sessions.flatMap { session in
        session.anomalies.map { "zone '\(zone.id)' session \(session.number): \($0)" }
      }
    }
  }
}

extension FlightRecording {
  /// What every zone of the recording shares: the engine, its timings and seed, the networks.
  struct Header: Codable, Sendable, Equatable {
    var format: String
    var version: Int
    /// The MediationKit that wrote the recording.
    var engine: String
    var displayTimeoutNS: Int64
    var maxShowDurationNS: Int64
    var lateSignalWindowNS: Int64
    /// The mediator's seed (``MediatorOptions/seed``): the learned eCPMs' exploration draws from it.
    var seed: UInt64
    /// The networks registered at export.
    var networks: [RecordedNetwork]
    /// The privacy flags at export.
    var privacy: RecordedPrivacy
    var maxSessions: Int
    var maxInputs: Int

    var timings: ZoneMachine.Timings {
      ZoneMachine.Timings(
        displayTimeout: .nanoseconds(displayTimeoutNS), maxShowDuration: .nanoseconds(maxShowDurationNS),
        lateSignalWindow: .nanoseconds(lateSignalWindowNS))
    }
  }

  /// One zone's recording.
  struct Zone: Sendable, Equatable {
    var id: String
    /// Sessions dropped whole because they alone outgrew the input bound.
    var overflowedSessions: Int
    /// Sessions kept for an anomaly after they left the ring first, then the ring, each in order.
    var sessions: [Session]
  }

  /// One session: the zone's checkpoint when it began, and its inputs.
  struct Session: Sendable, Equatable {
    var number: Int
    /// Kept aside for an anomaly after it left the ring (sessions around it may be missing).
    var keptForAnomaly: Bool
    var anomalies: [String]
    /// Whether the zone was at rest after the last step (else the recording ends mid-session).
    var endsAtRest: Bool
    var checkpoint: ZoneCheckpoint
    var steps: [Step]
  }

  /// One input, its time, and the events it published.
  struct Step: Codable, Sendable, Equatable {
    var seq: Int
    var tNS: Int64
    var input: RecordedInput
    var published: [RecordedEvent]

    var time: Duration { .nanoseconds(tNS) }
  }
}

extension FlightRecording.Zone {
  /// `recording`'s sessions, kept anomalies first, as a file zone.
  init(id: String, _ recording: ZoneRecording) {
    func session(_ session: ZoneRecording.Session, kept: Bool) -> FlightRecording.Session {
      FlightRecording.Session(
        number: session.number, keptForAnomaly: kept, anomalies: session.anomalies,
        endsAtRest: session.endsAtRest, checkpoint: session.checkpoint,
        steps: session.steps.map {
          FlightRecording.Step(
            seq: $0.sequence, tNS: $0.time.nanoseconds, input: $0.input, published: $0.published)
        })
    }
    self.init(
      id: id, overflowedSessions: recording.overflowedSessions,
      sessions: recording.keptAnomalies.map { session($0, kept: true) }
        + recording.sessions.filter { !$0.steps.isEmpty }.map { session($0, kept: false) })
  }
}
