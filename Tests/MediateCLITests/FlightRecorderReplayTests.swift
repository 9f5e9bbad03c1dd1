import Foundation
import MediateCLI
import MediationKit
import MediationKitTesting
import Testing

/// Record, then replay: every built-in network × every fault of the test kit × 20 seeds, through
/// a real mediator on virtual time, and the replay on the current engine publishes the recorded
/// events, in order, at the recorded times.
@Suite("Flight recorder: record, then replay")
struct FlightRecorderReplayTests {
  static let networks: [NetworkID] = BuiltInNetworks.registry().all.map(\.info.id)
  static let faults: [Fault] = [.none] + Fault.catalogue(rewardGrace: .seconds(5))

  /// A zone of one network under `fault`, recording, run through two load-and-show cycles (the
  /// second healed), with what the recording holds at the end.
  struct RecordedRun {
    let scheduler = VirtualScheduler()
    let mediator: Mediator
    let adapter: FaultInjectingAdapter

    init(network: NetworkID, fault: Fault, seed: UInt64, autoReload: Bool = false) throws {
      let registration = try BuiltInNetworks.registry().registration(for: network)
      let registry = try AdapterRegistry([FaultInjection.registration(wrapping: registration, fault: fault)])
      let zone = ZoneConfig(
        id: "faulty", reward: ZoneConfig.RewardConfig(type: "coins", amount: 10),
        lineItems: [
          ZoneConfig.LineItem(
            network: network, placementId: Harness.placements[network] ?? "p", priority: 0, ecpm: 10)
        ],
        loadTimeoutSeconds: 30, adExpirySeconds: 3600, rewardGraceSeconds: 5, autoReload: autoReload)
      mediator = try Mediator(
        config: MediationConfig(zones: [zone]), registry: registry, scheduler: scheduler,
        options: MediatorOptions(
          seed: seed, transactionIDs: .seeded, flightRecorder: MediatorOptions.FlightRecorder(isEnabled: true)
        ))
      adapter = try #require(mediator.madeAdapter(for: network) as? FaultInjectingAdapter)
    }

    /// Loads, shows when ready, and lets every window (display, grace, late signals) run out.
    func cycle() throws {
      let ad = try mediator.rewardedAd(zone: "faulty")
      ad.load()
      scheduler.run(until: scheduler.now + .seconds(31))
      if ad.isReady { try? ad.show(from: HeadlessPresenter()) }
      scheduler.run(until: scheduler.now + .seconds(400))
    }
  }

  @Test(arguments: networks, faults)
  func aRecordingReplaysIdentically(network: NetworkID, fault: Fault) throws {
    for seed: UInt64 in 1...20 {
      let run = try RecordedRun(network: network, fault: fault, seed: seed)
      try run.cycle()
      run.adapter.fault = .none
      try run.cycle()
      let recording = run.mediator.exportRecording()
      #expect(recording.inputCount > 0)
      let replay = try FlightRecording(jsonLines: recording.jsonLines).replay()
      let difference = replay.firstDifference
      #expect(difference == nil, "\(network) · \(fault) · seed \(seed)")
      #expect(!replay.replayed.isEmpty)
    }
  }
}
