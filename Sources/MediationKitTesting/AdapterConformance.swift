import MediationKit
import Synchronization

/// The conformance suite for adapter authors: runs full load-and-show cycles of one adapter
/// through a real ``Mediator`` on virtual time, over many seeds, and checks the reward contract
/// on every one. Throws instead of failing a test, so it works under any test framework.
///
/// ```swift
/// @Test func keepsTheRewardContract() throws {
///   let report = try AdapterConformance.run(MyNetwork.registration(), placementID: "my-placement")
///   #expect(report.fills > 0)
/// }
/// ```
public enum AdapterConformance {
  /// What the cycles did.
  public struct Report: Sendable, Equatable {
    public var cycles = 0
    public var fills = 0
    public var rewards = 0
    public var skips = 0
    public var showFailures = 0
    public var diagnostics = 0
  }

  /// A contract violation, with the seed that reproduces it.
  public struct Failure: Error, CustomStringConvertible {
    public var seed: UInt64
    public var violation: RewardContractViolation
    public var events: [String]
    public var description: String { "seed \(seed): \(violation) in \(events)" }
  }

  /// Runs one load-and-show cycle per seed and verifies each.
  ///
  /// - Parameters:
  ///   - registration: The adapter under test.
  ///   - placementID: The placement to load.
  ///   - ecpm: The line item's eCPM.
  ///   - seeds: One cycle per seed.
  ///   - rewardGraceSeconds: The zone's grace window for late rewards.
  /// - Returns: What the cycles did.
  /// - Throws: ``Failure`` at the first cycle that breaks the contract, or a ``MediationError``
  ///   if the mediator cannot be built.
  public static func run(
    _ registration: AdapterRegistration, placementID: String, ecpm: Double = 10,
    seeds: ClosedRange<UInt64> = 1...100,
    rewardGraceSeconds: Double = 5
  ) throws -> Report {
    let zone = ZoneConfig(
      id: "conformance", reward: RewardConfig(type: "coins", amount: 10),
      lineItems: [LineItem(network: registration.info.id, placementId: placementID, priority: 0, ecpm: ecpm)],
      rewardGraceSeconds: rewardGraceSeconds, autoReload: false)
    let registry = try AdapterRegistry([registration])
    var report = Report()
    for seed in seeds {
      let scheduler = VirtualScheduler()
      let mediator = try Mediator(
        config: MediationConfig(zones: [zone]), registry: registry, scheduler: scheduler,
        options: MediatorOptions(seed: seed))
      let recorder = EventRecorder(mediator)
      let ad = try mediator.rewardedAd(zone: zone.id)
      ad.load()
      scheduler.run(until: .seconds(zone.loadTimeoutSeconds + 1))
      if ad.isReady { try ad.show(from: HeadlessPresenter()) }
      scheduler.run(until: scheduler.now + .seconds(600))
      let events = recorder.events(zone: zone.id)
      do {
        try RewardContract.verify(events)
      } catch {
        throw Failure(seed: seed, violation: error, events: events.map(\.name))
      }
      report.cycles += 1
      for event in events {
        switch event {
        case .ready: report.fills += 1
        case .rewarded: report.rewards += 1
        case .skipped: report.skips += 1
        case .showFailed: report.showFailures += 1
        case .diagnostic: report.diagnostics += 1
        default: break
        }
      }
    }
    return report
  }
}
