import Foundation
import MediationKit
import MediationKitTesting
import Testing

@testable import MediateCLI

/// Session boundaries of the core's flight recorder, pinned through the built-in networks.
///
/// A session begins when an input from outside finds the zone at rest (no load under way, no show
/// on screen); ended shows still waiting out their late-signal window
/// (`MediatorOptions.lateSignalWindow`, 60 s by default) are part of the checkpoint. So an app
/// that loads again sooner than that after a show — as the simulator does, 30 s after each show —
/// still gets a session per load and per show, and the recorder keeps the last `maxSessions`.
/// (It once waited for the windows to close: every input then chained into one session, which
/// outgrew `maxInputs` and was dropped.)
@Suite("Flight recorder: sessions when shows come often, and after an overflow")
struct FlightRecorderSessionBoundaryTests {
  /// A mediator of the built-in `level_complete` (not reloading on its own) on Empower alone,
  /// recording with `recorder`.
  static func mediator(_ scheduler: VirtualScheduler, _ recorder: MediatorOptions.FlightRecorder) throws
    -> Mediator
  {
    let config = try MediationConfig.load(Data(DefaultConfig.json.utf8), source: "built-in")
    var zone = try config.zone("level_complete")
    zone.autoReload = false
    return try Mediator(
      config: MediationConfig(zones: [zone]), registry: try BuiltInNetworks.registry().subset(["empower"]),
      scheduler: scheduler,
      options: MediatorOptions(seed: 1, transactionIDs: .seeded, flightRecorder: recorder))
  }

  /// `cycles` load-and-show cycles of `level_complete` on Empower, each next load `gap` after
  /// the show's terminal event (or the failed load), with the recorder on; what it kept.
  static func recording(cycles: Int, gap: Duration) throws -> FlightRecording {
    let scheduler = VirtualScheduler()
    let mediator = try Self.mediator(scheduler, MediatorOptions.FlightRecorder(isEnabled: true))
    let ad = try mediator.rewardedAd(zone: "level_complete")
    let remaining = Locked(cycles)
    let presenter = HeadlessPresenter()
    let subscription = mediator.observeEvents { event in
      switch event.event {
      case .ready: try? ad.show(from: presenter)
      case .closed, .skipped, .showFailed, .failed:
        let more = remaining.withLock { count -> Bool in
          count -= 1
          return count > 0
        }
        if more { scheduler.schedule(after: gap) { ad.load() } }
      default: break
      }
    }
    defer { subscription.cancel() }
    ad.load()
    scheduler.run()
    return mediator.exportRecording()
  }

  /// The sessions of the recorder's ring (those kept for an anomaly aside).
  static func ring(_ recording: FlightRecording) -> [FlightRecording.SessionSummary] {
    recording.sessionSummaries.filter { !$0.keptForAnomaly }
  }

  @Test func showsFartherApartThanTheLateSignalWindowKeepTheLastSessions() throws {
    let recording = try Self.recording(cycles: 300, gap: .seconds(90))
    #expect(Self.ring(recording).count == MediatorOptions.FlightRecorder().maxSessions)
  }

  @Test func showsCloserThanTheLateSignalWindowKeepTheLastSessions() throws {
    let recording = try Self.recording(cycles: 300, gap: .seconds(30))
    #expect(Self.ring(recording).count == MediatorOptions.FlightRecorder().maxSessions)
    #expect(Self.ring(recording).allSatisfy { $0.inputs < 100 }, "a session is a load or a show, not many")
    let difference = recording.replay().firstDifference
    #expect(difference == nil)
  }

  /// A timer armed while the recorder has no open session (after a session outgrew `maxInputs`,
  /// or recording switched on while the zone was busy) is followed all the same, so the checkpoint
  /// of the session its firing begins holds it and the firing replays. (It once replayed as
  /// `event 1: recorded expired empower, replayed nothing more`.)
  @Test func aTimerArmedWhileNoSessionIsOpenReplays() throws {
    let scheduler = VirtualScheduler()
    // The load's session (its eight inputs) outgrows four and is dropped; the ad it made expires
    // an hour later, at rest, which begins a session of its own.
    let mediator = try Self.mediator(scheduler, MediatorOptions.FlightRecorder(isEnabled: true, maxInputs: 4))
    try mediator.rewardedAd(zone: "level_complete").load()
    scheduler.run()
    let recording = mediator.exportRecording()
    let replay = recording.replay()
    #expect(replay.recorded.map(\.event.event) == ["expired"])
    #expect(replay.firstDifference == nil)
  }
}
