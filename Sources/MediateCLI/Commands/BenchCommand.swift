import EmpowerSim
import Foundation
import MediationKit
import MediationKitTesting

/// `mediate bench`: the same simulated Empower SDK driven two ways in one run — directly, the way
/// the vendor guide's sample app does (load, show on `.ready`, load again on `.closed`/`.skipped`),
/// and through MediationKit (a one-line-item zone: load, show on `ready`, load again after the
/// terminal event) — both on virtual time, and the wall-clock cost of each.
///
/// A third loop drives the Empower adapter alone, without the engine (load, show, load again
/// after the dismissal), so the overhead splits into the adapter's part and the engine's.
struct BenchCommand {
  let context: CommandContext

  init(_ context: CommandContext) { self.context = context }

  static let placement = "bench-zone"

  func run() throws(CLIError) -> Int32 {
    try context.noPositional(.bench)
    let cycles = try context.wholeNumber(.cycles, default: 100_000, range: 1...10_000_000, .bench)
    let seed = try RunCommand(context).seed()
    // Warm up every path (code paths, allocator), then measure.
    _ = Self.direct(cycles: min(cycles, 2_000), seed: seed)
    _ = Self.adapterAlone(cycles: min(cycles, 2_000), seed: seed)
    _ = Self.mediated(cycles: min(cycles, 2_000), seed: seed)
    let direct = Self.direct(cycles: cycles, seed: seed)
    let adapterAlone = Self.adapterAlone(cycles: cycles, seed: seed)
    let mediated = Self.mediated(cycles: cycles, seed: seed)
    let directRate = Double(cycles) / direct
    let adapterRate = Double(cycles) / adapterAlone
    let mediatedRate = Double(cycles) / mediated
    let ratio = directRate / mediatedRate
    if context.json {
      context.output.out(
        JSONLine.encode([
          "cycles": cycles, "direct_cycles_per_s": JSONLine.rounded(directRate, 1),
          "adapter_only_cycles_per_s": JSONLine.rounded(adapterRate, 1),
          "mediated_cycles_per_s": JSONLine.rounded(mediatedRate, 1),
          "overhead_ratio": JSONLine.rounded(ratio, 3),
        ]))
    } else {
      context.output.out(
        """
        Empower SDK, \(cycles) load-show cycles each way, virtual time, seed \(seed)
          direct (vendor sample app)   \(String(format: "%10.0f", directRate)) cycles/s
          the adapter alone            \(String(format: "%10.0f", adapterRate)) cycles/s
          through MediationKit         \(String(format: "%10.0f", mediatedRate)) cycles/s
          overhead ratio               \(String(format: "%10.2f", ratio))x
        """)
    }
    return ExitCode.success
  }

  /// Seconds of wall time for `cycles` cycles of the guide's sample-app loop on the SDK.
  static func direct(cycles: Int, seed: UInt64) -> Double {
    let scheduler = VirtualScheduler()
    let manager = EMAManager(scheduler: scheduler, random: SeededRandom(seed: seed))
    manager.configureZone(EmpowerZoneSettings(zoneId: placement, baseECPM: 10))
    let app = SampleApp(manager: manager, cycles: cycles)
    let started = ContinuousClock.now
    app.loadRewardedAd()
    scheduler.run()
    precondition(app.completed == cycles, "the direct loop ended early")
    return (ContinuousClock.now - started).seconds
  }

  /// Seconds of wall time for `cycles` cycles of the Empower adapter driven without the engine:
  /// no auction, timers, state machine or events — the adapter's share of the mediated cost.
  static func adapterAlone(cycles: Int, seed: UInt64) -> Double {
    let scheduler = VirtualScheduler()
    let manager = EMAManager(scheduler: scheduler, random: SeededRandom(seed: seed))
    let loop = AdapterLoop(adapter: EmpowerAdapter(manager: manager), cycles: cycles)
    let started = ContinuousClock.now
    loop.load()
    scheduler.run()
    precondition(loop.completed == cycles, "the adapter loop ended early")
    return (ContinuousClock.now - started).seconds
  }

  /// Seconds of wall time for `cycles` cycles through a ``Mediator`` over the same SDK.
  static func mediated(cycles: Int, seed: UInt64) -> Double {
    let scheduler = VirtualScheduler()
    let zone = ZoneConfig(
      id: "bench", reward: ZoneConfig.RewardConfig(type: "coins", amount: 100),
      lineItems: [
        ZoneConfig.LineItem(network: EmpowerNetwork.id, placementId: placement, priority: 0, ecpm: 10)
      ],
      autoReload: false)
    let mediator: Mediator
    let ad: RewardedAd
    do {
      mediator = try Mediator(
        config: MediationConfig(zones: [zone]), registry: AdapterRegistry([EmpowerNetwork.registration()]),
        scheduler: scheduler, options: MediatorOptions(seed: seed, transactionIDs: .seeded))
      ad = try mediator.rewardedAd(zone: zone.id)
    } catch {
      preconditionFailure("the bench configuration is valid: \(error)")
    }
    let completed = Locked(0)
    let presenter = HeadlessPresenter()
    let subscription = mediator.observeEvents { event in
      switch event.event {
      case .ready: try? ad.show(from: presenter)
      case .failed: ad.load()
      case .closed, .skipped, .showFailed:
        if completed.increment() < cycles { ad.load() }
      default: break
      }
    }
    let started = ContinuousClock.now
    ad.load()
    scheduler.run()
    subscription.cancel()
    precondition(completed.get() == cycles, "the mediated loop ended early")
    return (ContinuousClock.now - started).seconds
  }
}

/// The Empower guide's `StoreViewController` loop, minus UIKit: load, show when ready, load again
/// after the ad is dismissed, retry on failure.
private final class SampleApp: AdStatusDelegate, AdPresenting {
  let manager: EMAManager
  let cycles: Int
  private(set) var completed = 0
  private(set) var coins = 0

  init(manager: EMAManager, cycles: Int) {
    self.manager = manager
    self.cycles = cycles
  }

  func loadRewardedAd() {
    manager.loadRewardedAd(zoneId: BenchCommand.placement, delegate: self)
  }

  func rewardedStatusChanged(adStatus: AdStatus) {
    switch adStatus {
    case .ready:
      if manager.isRewardedReady(zoneId: BenchCommand.placement) {
        manager.showRewarded(zoneId: BenchCommand.placement, from: self)
      }
    case .rewarded(_, let amount):
      coins += amount
    case .closed, .skipped:
      completed += 1
      if completed < cycles { loadRewardedAd() }
    case .failed:
      loadRewardedAd()
    default:
      break
    }
  }
}

/// The adapter driven the way the engine drives it, minus the engine: load, show the loaded ad,
/// load again once it is dismissed or fails to show and then discard the shown ad (the engine
/// reloads first too, and discards after the late-signal window), retry a failed load.
private final class AdapterLoop: Sendable {
  let adapter: EmpowerAdapter
  let cycles: Int
  private let done = Locked(0)
  private let presenter = HeadlessPresenter()
  private let request = AdapterLoadRequest(
    zoneID: "bench", placementID: BenchCommand.placement, ecpm: 10,
    reward: AdapterSignal.NetworkReward(type: "coins", amount: 100))

  init(adapter: EmpowerAdapter, cycles: Int) {
    self.adapter = adapter
    self.cycles = cycles
  }

  var completed: Int { done.get() }

  func load() {
    _ = adapter.load(request) { [self] result in
      switch result {
      case .success(let loaded):
        let ad = loaded.ad
        ad.show(
          AdapterShowRequest(zoneID: request.zoneID), from: presenter,
          signals: AdapterSignal.Sink { [self] signal in ended(signal, ad: ad) })
      case .failure:
        load()
      }
    }
  }

  private func ended(_ signal: AdapterSignal, ad: any AdapterAd) {
    switch signal {
    case .dismissed, .showFailed:
      if done.increment() < cycles { load() }
      ad.discard()
    default:
      break
    }
  }
}
