import MediationKit
import MediationKitTesting
import Testing

/// Random sequences of apply, load, show, register and unregister on virtual time, over two
/// zones and three networks: the reward contract holds in every zone; every show accepted is
/// rewarded exactly once and its reward is in the ledger exactly once (none lost or doubled across
/// a change); no request reaches a network while it is switched off or unregistered; and a ready
/// ad is never one whose line item or network is gone or switched off.
@Suite("Property tests: live configuration")
struct LivePropertyTests {
  static let runs: UInt64 = 200
  static let networks: [NetworkID] = ["a", "b", "c"]

  /// A random configuration: zone `z` always, `y` half the time, each with a random non-empty
  /// subset of the networks, a random queue depth from 1 to 5, some line items switched off, and
  /// some networks switched off.
  static func randomConfig(_ random: inout SeededRandom, version: Int) -> MediationConfig {
    func randomZone(_ id: String) -> ZoneConfig {
      var items = networks.filter { _ in random.chance(0.7) }
      if items.isEmpty { items = [networks[Int(random.next() % 3)]] }
      let lineItems = items.map { network in
        var item = ZoneConfig.LineItem(
          network: network, placementId: "\(network)-\(id)", priority: 0,
          ecpm: Double(1 + random.next() % 20), timeoutSeconds: 4)
        item.disabled = random.chance(0.15)
        return item
      }
      var zone = zone(lineItems, id: id, loadTimeout: 10, expiry: 600, autoReload: random.chance(0.5))
      // A queue of 1 to 5 ready ads (at most one per placement).
      zone.queueDepth = 1 + Int(random.next() % 5)
      return zone
    }
    let zones = [randomZone("z")] + (random.chance(0.5) ? [randomZone("y")] : [])
    return MediationConfig(
      zones: zones, version: "v\(version)", disabledNetworks: networks.filter { _ in random.chance(0.15) })
  }

  /// The three networks, each filling four loads (80%, within 3 s) or failing them, and starting
  /// within 0.5 s.
  static func randomAdapters(_ random: inout SeededRandom, scheduler: VirtualScheduler) -> [ScriptedAdapter] {
    networks.map { id in
      let fills: [ScriptedAdapter.LoadScript] = (0..<4).map { _ in
        random.chance(0.8)
          ? .fill(after: .milliseconds(Int64(random.next() % 3000)))
          : .fail(after: .milliseconds(Int64(random.next() % 1000)), noFill)
      }
      return ScriptedAdapter(
        id: id, scheduler: scheduler, loads: ["\(id)-z": fills, "\(id)-y": fills],
        start: .succeed(after: .milliseconds(Int64(random.next() % 500))))
    }
  }

  /// The first violation of run `seed`, or `nil`.
  static func violation(seed: UInt64) throws -> String? {
    var random = SeededRandom(seed: seed)
    let ledger = InMemoryRewardLedger()
    var version = 1
    var current = randomConfig(&random, version: version)
    let harness = try LiveHarness(current, ledger: ledger) { s in randomAdapters(&random, scheduler: s) }
    var registered = Set(networks)
    var handles: [String: RewardedAd] = [:]
    var accepted = 0
    var log: [String] = []

    func requests(_ id: NetworkID) -> Int {
      harness.adapters[id]!.loadRequests.count + harness.adapters[id]!.bidRequests.count
    }
    func isOff(_ id: NetworkID) -> Bool { !registered.contains(id) || current.disabledNetworks.contains(id) }

    // Each zone's queued ads, by network, as the events tell.
    var queued: [String: Set<NetworkID>] = [:]
    for _ in 0..<40 {
      let off = networks.filter(isOff)
      let before = off.map(requests)
      let eventsBefore = harness.recorder.events.count
      let zonesBefore = Set(current.zones.map(\.id))
      switch random.next() % 10 {
      case 0, 1:
        version += 1
        current = randomConfig(&random, version: version)
        try harness.mediator.apply(current)
        log.append(
          "apply \(current.zones.map { "\($0.id):\($0.lineItems.map { "\($0.network)\($0.disabled ? "-" : "")" })" }) off \(current.disabledNetworks)"
        )
      case 2:
        if let id = networks.filter({ !registered.contains($0) }).first {
          try harness.registry.register(harness.adapters[id]!.registration)
          registered.insert(id)
          log.append("register \(id)")
        }
      case 3:
        if let id = registered.sorted().randomElement(using: &random) {
          try harness.registry.unregister(id)
          registered.remove(id)
          log.append("unregister \(id)")
        }
      case 4, 5, 6:
        let id = random.chance(0.7) ? "z" : "y"
        if let ad = handles[id] ?? (try? harness.mediator.rewardedAd(zone: id)) {
          handles[id] = ad
          ad.load()
          log.append("load \(id)")
        }
      default:
        let id = random.chance(0.7) ? "z" : "y"
        if let ad = handles[id] ?? (try? harness.mediator.rewardedAd(zone: id)) {
          handles[id] = ad
          do {
            try ad.show(from: HeadlessPresenter())
            accepted += 1
            log.append("show \(id): accepted")
          } catch {
            log.append("show \(id): \(error.code)")
          }
        }
      }
      let step = Duration.milliseconds(Int64(random.next() % 8000))
      harness.scheduler.advance(by: step)
      // A zone in the configuration throughout the step never refuses a load as unknown (a
      // handle of a zone removed and added again works again).
      let zonesThroughout = zonesBefore.intersection(current.zones.map(\.id))
      for event in harness.recorder.events[eventsBefore...] where zonesThroughout.contains(event.zoneID) {
        if case .failed(let error) = event.event, error.code == .unknownZone {
          return "zone '\(event.zoneID)' refused a load as unknown while configured: \(error); \(log)"
        }
      }
      // The networks off for the whole step got nothing.
      for (id, count) in zip(off, before) where isOff(id) && requests(id) != count {
        return "network '\(id)' got a request while switched off or unregistered; \(log)"
      }
      // Every queued ad's line item and network are in the configuration, switched on and
      // registered. The queue is followed from the events: a zone has one placement per network,
      // and a queue one ad per placement, so a network names a queued ad (`ready` adds it, an
      // "already ready" answer again; `shown` and `expired` take it out).
      for event in harness.recorder.events[eventsBefore...] {
        switch event.event {
        case .ready(let info): queued[event.zoneID, default: []].insert(info.network)
        case .shown(let info): queued[event.zoneID]?.remove(info.network)
        case .expired: if let network = event.network { queued[event.zoneID]?.remove(network) }
        default: break
        }
      }
      for (id, ad) in handles where ad.isReady {
        guard let networks = queued[id], !networks.isEmpty else {
          return "zone '\(id)' ready without a queued ad; \(log)"
        }
        for network in networks.sorted() {
          let item = current.zones.first { $0.id == id }?.lineItems.first {
            $0.network == network && $0.placementId == "\(network)-\(id)"
          }
          guard let item, !item.disabled, !isOff(item.network) else {
            return
              "zone '\(id)' still offers an ad of \(network)/\(network)-\(id), gone or switched off; \(log)"
          }
        }
      }
    }
    harness.settle(.seconds(120))
    do {
      try harness.recorder.verifyContract()
    } catch {
      return "\(error); \(log)"
    }
    let rewards = harness.recorder.events.compactMap { event -> Reward? in
      if case .rewarded(let reward) = event.event { reward } else { nil }
    }
    if rewards.count != accepted { return "\(accepted) shows accepted, \(rewards.count) rewards; \(log)" }
    let recorded = try ledger.pending().map(\.reward.transactionID)
    if recorded.sorted() != rewards.map(\.transactionID).sorted() {
      return "ledger \(recorded) differs from the rewards delivered \(rewards.map(\.transactionID)); \(log)"
    }
    return nil
  }

  @Test func randomChangesNeverBreakTheRewardContract() throws {
    var failures: [String] = []
    for seed in 1...Self.runs {
      if let violation = try Self.violation(seed: seed) { failures.append("seed \(seed): \(violation)") }
    }
    #expect(failures.isEmpty, "\(failures.count) runs failed; first: \(failures.first ?? "")")
  }
}
