/// The start-up of every network of one mediator, as a pure value: the registered adapters, one
/// ``StartGate`` per network (which makes every decision), and each network's placements for its
/// `start`. ``EngineContext`` keeps it under its one lock and does the calling: the adapters'
/// `start`, the start timeouts, the waiters released (EngineContext+NetworkStarts.swift).
struct NetworkStarts {
  /// Told on the executor how a waited-for start ended: `nil` to go on, else why the request is
  /// skipped.
  typealias Waiter = @Sendable (_ refusal: String?) -> Void

  /// The adapters, by network id: those the mediator was made with, then those registered and
  /// unregistered while it runs.
  private(set) var adapters: [NetworkID: any RewardedAdapter]
  /// Each adapter's info, read once when the mediator made it (never under a lock).
  private(set) var infos: [NetworkID: AdapterInfo]
  private var gates: [NetworkID: StartGate<Waiter>]
  /// Each network's placements, for its `start`.
  var placements: [NetworkID: [String]] = [:]
  private let modes: [NetworkID: MediatorOptions.NetworkStart]

  init(
    adapters: [NetworkID: (adapter: any RewardedAdapter, info: AdapterInfo)],
    modes: [NetworkID: MediatorOptions.NetworkStart]
  ) {
    self.modes = modes
    self.adapters = adapters.mapValues(\.adapter)
    self.infos = adapters.mapValues(\.info)
    self.gates = Dictionary(
      uniqueKeysWithValues: adapters.keys.map { ($0, StartGate(network: $0, mode: modes[$0] ?? .atLaunch)) })
  }

  /// Marks every network that starts at launch as starting; returns them, to call in this order.
  mutating func launch(now: Duration) -> [NetworkID] {
    gates.keys.sorted().filter { gates[$0]!.mode == .atLaunch && gates[$0]!.beginStart(now: now) }
  }

  /// Adds a network registered while the mediator runs, with a fresh start gate, so no request
  /// reaches it before its start has completed; `true` when it starts now (the default
  /// ``MediatorOptions/NetworkStart/atLaunch``), else it starts as its option says.
  mutating func add(_ network: NetworkID, adapter: any RewardedAdapter, info: AdapterInfo, now: Duration)
    -> Bool
  {
    var gate = StartGate<Waiter>(network: network, mode: modes[network] ?? .atLaunch)
    let starts = gate.mode == .atLaunch && gate.beginStart(now: now)
    adapters[network] = adapter
    infos[network] = info
    gates[network] = gate
    return starts
  }

  /// Removes a network unregistered while the mediator runs: later requests find no adapter.
  /// Returns the requests that waited for its start, to refuse.
  mutating func remove(_ network: NetworkID) -> [Waiter] {
    adapters[network] = nil
    infos[network] = nil
    guard var gate = gates.removeValue(forKey: network) else { return [] }
    return gate.removeWaiters()
  }

  /// Admits a request to `network` (see ``StartGate/admit(_:now:)``); `nil` when no adapter is
  /// registered for it.
  mutating func admit(_ network: NetworkID, _ waiter: () -> Waiter, now: Duration) -> StartGate<Waiter>
    .Admission?
  {
    gates[network]?.admit(waiter, now: now)
  }

  /// Withdraws a waiting request from `network`'s gate.
  mutating func cancel(_ ticket: Int, of network: NetworkID) {
    _ = gates[network]?.cancel(ticket)
  }

  /// Runs `change` on `network`'s gate if `adapter` is still the network's adapter (it may have
  /// been unregistered, or registered again, since its start was called); else releases no one.
  mutating func gate(
    of adapter: any RewardedAdapter, _ network: NetworkID,
    _ change: (inout StartGate<Waiter>) -> StartGate<Waiter>.Release
  ) -> StartGate<Waiter>.Release {
    guard let current = adapters[network], current === adapter, gates[network] != nil else {
      return StartGate<Waiter>.Release(waiters: [], refusal: nil)
    }
    return change(&gates[network]!)
  }

  /// Every network's start-up, by network id.
  var statuses: [Mediator.AdapterStatus] { gates.keys.sorted().map { gates[$0]!.status } }

  /// The networks registered now, and why those a load cannot ask cannot: their start failed or
  /// timed out, or they are never started. Networks still starting are not refused: their
  /// requests wait.
  var availability: NetworkAvailability {
    var availability = NetworkAvailability()
    for (network, gate) in gates {
      availability.registered.insert(network)
      if let refusal = gate.refusal { availability.refusals[network] = refusal }
    }
    return availability
  }
}
