import Foundation
import MediationKit

/// A flight recording replayed on the engine this test links: a user's failed session, turned
/// into a regression test in a few lines.
///
/// ```swift
/// @Test func theRewardOfTicket4711IsGranted() throws {
///   let replay = try FlightRecordingReplay(contentsOf: Bundle.module.url(forResource: "ticket-4711",
///                                                                   withExtension: "jsonl")!)
///   try replay.expectIdentical()                     // the engine still does what it did
///   #expect(replay.events.map(\.event.event).contains("rewarded"))   // or assert on the events
/// }
/// ```
///
/// The replay restores each recorded session's zone from its checkpoint and feeds it the recorded
/// inputs on virtual time, the networks answering exactly as they did (see the FlightRecorder
/// article). It needs no adapter, network or clock of the app's.
public struct FlightRecordingReplay: Sendable {
  /// One event a zone published, in the replay or in the recording.
  public struct Event: Sendable, Equatable, CustomStringConvertible {
    public var zoneID: String
    /// The recorded session it belongs to.
    public var session: Int
    /// The zone's time when it was published.
    public var time: Duration
    public var event: RecordedEvent

    public var description: String { "\(time) \(zoneID) \(event)" }
  }

  /// Why a replay is not the recording (``expectIdentical()``).
  public struct Mismatch: Error, Sendable, CustomStringConvertible {
    public var description: String
  }

  /// The events the replay published, in order.
  public let events: [Event]
  /// The events the recording says were published, in order.
  public let recordedEvents: [Event]
  /// The first event that differs (`event 17: recorded rewarded, replayed skipped`); `nil` when
  /// the replay published exactly the recorded events at the recorded times.
  public let firstDifference: String?
  /// Where the replay had to go its own way: a request the recording has no answer for (treated
  /// as a timeout), an answer to a request the replay never sent.
  public let notes: [String]

  /// Whether the replay published the recorded events, in order, at the recorded times.
  public var isIdentical: Bool { firstDifference == nil }

  /// Replays `recording`.
  public init(_ recording: FlightRecording) {
    let replay = recording.replay()
    func events(_ list: [FlightRecording.Replay.Event]) -> [Event] {
      list.map { Event(zoneID: $0.zoneID, session: $0.session, time: $0.time, event: $0.event) }
    }
    self.events = events(replay.replayed)
    self.recordedEvents = events(replay.recorded)
    self.firstDifference = replay.firstDifference
    self.notes = replay.notes
  }

  /// Reads the recording at `url` and replays it.
  ///
  /// - Throws: the error reading the file, or ``FlightRecording/FileError`` when it is not a
  ///   recording this MediationKit reads.
  public init(contentsOf url: URL) throws {
    self.init(try FlightRecording(jsonLines: Data(contentsOf: url)))
  }

  /// Throws ``Mismatch`` naming the first difference unless the replay is identical; works under
  /// any test framework.
  public func expectIdentical() throws(Mismatch) {
    guard let firstDifference else { return }
    let notes = notes.isEmpty ? "" : "; " + notes.joined(separator: "; ")
    throw Mismatch(description: "the replay differs from the recording: \(firstDifference)\(notes)")
  }
}
