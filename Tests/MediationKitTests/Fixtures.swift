import Foundation
import MediationKit
import MediationKitTesting

/// A mediator on virtual time over scripted networks, with its events recorded.
struct Harness {
  let scheduler = VirtualScheduler()
  let mediator: Mediator
  let recorder: EventRecorder
  let adapters: [NetworkID: ScriptedAdapter]

  init(
    zones: [ZoneConfig],
    scripts: [NetworkID: [String: [ScriptedAdapter.LoadScript]]],
    show: ScriptedAdapter.ShowScript = .completes,
    options: MediatorOptions = MediatorOptions(), ledger: (any RewardLedger)? = nil
  ) throws {
    try self.init(zones: zones, options: options, ledger: ledger) { scheduler in
      scripts.map { ScriptedAdapter(id: $0.key, scheduler: scheduler, loads: $0.value, show: show) }
    }
  }

  /// A harness over adapters the caller builds on the harness's scheduler.
  init(
    zones: [ZoneConfig], options: MediatorOptions = MediatorOptions(), ledger: (any RewardLedger)? = nil,
    adapters makeAdapters: (VirtualScheduler) -> [ScriptedAdapter]
  ) throws {
    var adapters: [NetworkID: ScriptedAdapter] = [:]
    let registry = AdapterRegistry()
    for adapter in makeAdapters(scheduler) {
      adapters[adapter.info.id] = adapter
      try registry.register(adapter.registration)
    }
    self.adapters = adapters
    mediator = try Mediator(
      config: MediationConfig(zones: zones), registry: registry, scheduler: scheduler, options: options,
      ledger: ledger)
    recorder = EventRecorder(mediator)
  }

  /// Runs a minute of virtual time: enough for any load, not enough for an ad to expire.
  func settle(_ duration: Duration = .seconds(60)) { scheduler.advance(by: duration) }

  /// Loads `ad`, shows it and loads again, each step let run to its end.
  func loadShowAndLoadAgain(_ ad: RewardedAd) throws {
    ad.load()
    settle()
    try ad.show(from: HeadlessPresenter())
    settle()
    ad.load()
    settle()
  }

  func names(_ zone: String = "z") -> [String] { recorder.names(zone: zone) }
}

func zone(
  _ items: [ZoneConfig.LineItem], id: String = "z", loadTimeout: Double = 30, expiry: Double = 3600,
  grace: Double = 5,
  autoReload: Bool = false, strategy: ZoneConfig.AuctionStrategy = .waterfall, auctionTimeout: Double = 5,
  caps: ZoneConfig.FrequencyCaps? = nil
) -> ZoneConfig {
  ZoneConfig(
    id: id, reward: ZoneConfig.RewardConfig(type: "coins", amount: 100), lineItems: items,
    loadTimeoutSeconds: loadTimeout,
    adExpirySeconds: expiry, rewardGraceSeconds: grace, autoReload: autoReload, strategy: strategy,
    auctionTimeoutSeconds: auctionTimeout, caps: caps)
}

func bidder(
  _ network: NetworkID, _ placement: String, priority: Int = 0, ecpm: Double = 10, floor: Double = 0
)
  -> ZoneConfig.LineItem
{
  ZoneConfig.LineItem(
    network: network, placementId: placement, priority: priority, ecpm: ecpm, timeoutSeconds: 10,
    bidding: true,
    bidFloor: floor)
}

func item(_ network: NetworkID, _ placement: String, priority: Int = 0, ecpm: Double, timeout: Double = 10)
  -> ZoneConfig.LineItem
{
  ZoneConfig.LineItem(
    network: network, placementId: placement, priority: priority, ecpm: ecpm, timeoutSeconds: timeout)
}

let noFill = AdapterError(.noFill, vendorCode: 204, message: "no fill")

extension RewardedAdEvent {
  var adInfo: AdInfo? {
    switch self {
    case .ready(let info), .shown(let info): info
    default: nil
    }
  }
}

/// Runs `body` on a thread of its own and waits for it up to `timeout`: whether it finished. For
/// code that could deadlock, so that a deadlock fails the test instead of hanging the run.
func finishes(within timeout: Duration = .seconds(30), _ body: @escaping @Sendable () -> Void) -> Bool {
  let finished = DispatchSemaphore(value: 0)
  Thread {
    body()
    finished.signal()
  }.start()
  return finished.wait(timeout: .now() + .nanoseconds(Int(timeout.seconds * 1e9))) == .success
}

/// Yields until `condition` holds, for work another task does without a clock to drive (bounded,
/// so a broken test fails instead of hanging; it never sleeps).
func eventually(isolation: isolated (any Actor)? = #isolation, _ condition: () -> Bool) async -> Bool {
  for _ in 0..<1_000_000 where !condition() { await Task.yield() }
  return condition()
}

extension AdapterInfo {
  /// The info of a test network built for this MediationKit's adapter API, linked with SDK 1.0.0.
  static func testNetwork(_ id: NetworkID, displayName: String? = nil) -> AdapterInfo {
    AdapterInfo(
      id: id, displayName: displayName ?? "\(id)", adapterVersion: "1", sdkVersion: "1.0.0",
      adapterAPIVersion: AdapterCompatibility.coreAPIVersion,
      supportedSDKVersions: SemanticVersion(1, 0)..<SemanticVersion(2, 0))
  }
}
