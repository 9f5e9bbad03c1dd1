import Synchronization

/// What every zone of one mediator shares: the clock, the adapters, the full-screen gate, the
/// event hub and the random stream.
final class EngineContext: Sendable {
  let scheduler: any Scheduler
  let options: MediatorOptions
  let adapters: [NetworkID: any RewardedAdapter]
  let hub = EventHub()
  let fullScreen = FullScreenGate()
  private let random: Mutex<SeededRandom>
  private let startFailures = Mutex<[NetworkID: String]>([:])

  init(scheduler: any Scheduler, options: MediatorOptions, adapters: [NetworkID: any RewardedAdapter]) {
    self.scheduler = scheduler
    self.options = options
    self.adapters = adapters
    self.random = Mutex(SeededRandom(seed: options.seed).derived("mediator"))
  }

  /// A new unique reward transaction id, drawn from the seeded stream.
  func nextTransactionID() -> String {
    random.withLock { $0.uuidString() }
  }

  func recordStartFailure(_ network: NetworkID, _ reason: String) {
    startFailures.withLock { $0[network] = reason }
  }

  /// The networks a waterfall cannot ask, with why.
  func unavailableNetworks(for items: [LineItem]) -> [NetworkID: String] {
    let failures = startFailures.withLock { $0 }
    var unavailable: [NetworkID: String] = [:]
    for item in items {
      if adapters[item.network] == nil {
        unavailable[item.network] = "no adapter registered for '\(item.network)'"
      } else if let reason = failures[item.network] {
        unavailable[item.network] = "adapter failed to start: \(reason)"
      }
    }
    return unavailable
  }

  func publish(_ zoneID: String, _ network: NetworkID?, _ event: RewardedAdEvent) {
    hub.publish(ZoneEvent(time: scheduler.now, zoneID: zoneID, network: network, event: event))
  }
}

/// Lets one full-screen ad up at a time, across every zone of a mediator.
final class FullScreenGate: Sendable {
  private let holder = Mutex<String?>(nil)

  /// Takes the screen for `zoneID`; `false` when another zone holds it.
  func acquire(_ zoneID: String) -> Bool {
    holder.withLock { holder in
      guard holder == nil else { return false }
      holder = zoneID
      return true
    }
  }

  func release(_ zoneID: String) {
    holder.withLock { holder in if holder == zoneID { holder = nil } }
  }

  var current: String? { holder.withLock { $0 } }
}
