import MediationKit
import MediationKitTesting
import Testing

@testable import MediationKit

/// The live-configuration property sequences (``LivePropertyTests``: apply, register, unregister,
/// load and show at random, over two zones and three networks), recorded: every recording replays
/// identically, configuration changes and networks coming and going included.
@Suite("Property tests: live configuration, recorded and replayed")
struct FlightRecorderLivePropertyTests {
  @Test func everyRecordedSequenceReplaysIdentically() throws {
    var replayedEvents = 0
    for seed: UInt64 in 1...60 {
      var random = SeededRandom(seed: seed)
      var version = 1
      var current = LivePropertyTests.randomConfig(&random, version: version)
      let options = MediatorOptions(
        seed: seed, transactionIDs: .seeded,
        flightRecorder: MediatorOptions.FlightRecorder(
          isEnabled: true, maxSessions: 1_000, maxInputs: 100_000))
      let harness = try LiveHarness(current, options: options) { s in
        LivePropertyTests.randomAdapters(&random, scheduler: s)
      }
      var registered = Set(LivePropertyTests.networks)
      for _ in 0..<40 {
        switch random.next() % 10 {
        case 0, 1:
          version += 1
          current = LivePropertyTests.randomConfig(&random, version: version)
          try harness.mediator.apply(current)
        case 2:
          if let id = LivePropertyTests.networks.first(where: { !registered.contains($0) }) {
            try harness.registry.register(harness.adapters[id]!.registration)
            registered.insert(id)
          }
        case 3:
          if let id = registered.sorted().randomElement(using: &random) {
            try harness.registry.unregister(id)
            registered.remove(id)
          }
        case 4, 5, 6:
          (try? harness.mediator.rewardedAd(zone: random.chance(0.7) ? "z" : "y"))?.load()
        default:
          try? (try? harness.mediator.rewardedAd(zone: random.chance(0.7) ? "z" : "y"))?.show(
            from: HeadlessPresenter())
        }
        harness.scheduler.advance(by: .milliseconds(Int64(random.next() % 8000)))
      }
      let replay = try FlightRecording(jsonLines: harness.mediator.exportRecording().jsonLines).replay()
      let difference = replay.firstDifference
      #expect(difference == nil, "seed \(seed); notes: \(replay.notes)")
      replayedEvents += replay.replayed.count
    }
    #expect(replayedEvents > 1_000)
  }
}
