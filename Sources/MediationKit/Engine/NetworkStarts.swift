/// The start-up of every network of one mediator: calls each adapter's `start` (at launch, or on
/// first use, as ``MediatorOptions/networkStarts`` says), runs the start timeout, and holds the
/// loads and bids that wait for a start. The thin locking layer around one ``StartGate`` per
/// network, which makes every decision.
final class NetworkStarts: Sendable {
  /// Told on the executor how a waited-for start ended: `nil` to go on, else why the request is
  /// skipped.
  typealias Waiter = @Sendable (_ refusal: String?) -> Void

  /// What a request does now.
  enum Admission {
    case proceed
    case refuse(String)
    /// Wait; the handle withdraws the request from the gate.
    case wait(Cancellable)
  }

  /// What the lock guards: the registered adapters and their start gates.
  private struct State {
    /// The adapters, by network id: those the mediator was made with, then those registered and
    /// unregistered while it runs.
    var adapters: [NetworkID: any RewardedAdapter]
    /// Each adapter's info, read once when the mediator made it (never under a lock).
    var infos: [NetworkID: AdapterInfo]
    var gates: [NetworkID: StartGate<Waiter>]
    /// Each network's placements, for its `start`.
    var placements: [NetworkID: [String]] = [:]

    /// Runs `change` on `network`'s gate if `adapter` is still the network's adapter; else
    /// releases no one.
    mutating func gate(
      of adapter: any RewardedAdapter, _ network: NetworkID,
      _ change: (inout StartGate<Waiter>) -> StartGate<Waiter>.Release
    ) -> StartGate<Waiter>.Release {
      guard let current = adapters[network], current === adapter, gates[network] != nil else {
        return StartGate<Waiter>.Release(waiters: [], refusal: nil)
      }
      return change(&gates[network]!)
    }
  }

  private let scheduler: any Scheduler
  private let modes: [NetworkID: MediatorOptions.NetworkStart]
  private let timeout: Duration
  private let state: Locked<State>

  /// - Parameter adapters: Each network's adapter with its info, read by the caller outside any lock.
  init(
    adapters: [NetworkID: (adapter: any RewardedAdapter, info: AdapterInfo)],
    modes: [NetworkID: MediatorOptions.NetworkStart], timeout: Duration, scheduler: any Scheduler
  ) {
    self.scheduler = scheduler
    self.modes = modes
    self.timeout = timeout
    state = Locked(
      State(
        adapters: adapters.mapValues(\.adapter), infos: adapters.mapValues(\.info),
        gates: Dictionary(
          uniqueKeysWithValues: adapters.keys.map { id in
            (id, StartGate(network: id, mode: modes[id] ?? .atLaunch))
          })))
  }

  /// Starts every network marked ``MediatorOptions/NetworkStart/atLaunch``, each with the start timeout.
  func launch(placements: [NetworkID: [String]]) {
    let now = scheduler.now
    let launching = state.withLock { state in
      state.placements = placements
      return state.gates.keys.sorted().filter {
        state.gates[$0]!.mode == .atLaunch && state.gates[$0]!.beginStart(now: now)
      }
    }
    for id in launching { callStart(id) }
  }

  /// Every adapter, by network id (a snapshot: a copy-on-write dictionary).
  var adapters: [NetworkID: any RewardedAdapter] { state.withLock { $0.adapters } }

  /// Every adapter's info, by network id, as read when the mediator made the adapter.
  var infos: [NetworkID: AdapterInfo] { state.withLock { $0.infos } }

  /// The adapters and their infos, read in one lock round so the two agree.
  var adaptersAndInfos: (adapters: [NetworkID: any RewardedAdapter], infos: [NetworkID: AdapterInfo]) {
    state.withLock { ($0.adapters, $0.infos) }
  }

  /// The placements each network's `start` is given; kept up to date by ``Mediator/apply(_:)``
  /// for networks that start later.
  func updatePlacements(_ placements: [NetworkID: [String]]) {
    state.withLock { $0.placements = placements }
  }

  /// Adds a network registered while the mediator runs, with a fresh start gate, so no request
  /// reaches it before its start has completed. It starts now when
  /// ``MediatorOptions/networkStarts`` says ``NetworkStart/atLaunch`` (the default), else as that
  /// option says.
  /// - Returns: What to call once the caller holds no lock: the adapter's `start`, when it
  ///   starts now.
  func add(_ network: NetworkID, adapter: any RewardedAdapter, info: AdapterInfo) -> @Sendable () -> Void {
    let now = scheduler.now
    var gate = StartGate<Waiter>(network: network, mode: modes[network] ?? .atLaunch)
    let starts = gate.mode == .atLaunch && gate.beginStart(now: now)
    state.withLock { state in
      state.adapters[network] = adapter
      state.infos[network] = info
      state.gates[network] = gate
    }
    return { [self] in if starts { callStart(network) } }
  }

  /// Removes a network unregistered while the mediator runs: later requests find no adapter.
  /// - Returns: What to call once the caller holds no lock: it refuses the requests waiting for
  ///   the network's start, with `reason`.
  func remove(_ network: NetworkID, reason: String) -> @Sendable () -> Void {
    let waiters = state.withLock { state -> [Waiter] in
      state.adapters[network] = nil
      state.infos[network] = nil
      guard var gate = state.gates.removeValue(forKey: network) else { return [] }
      return gate.removeWaiters()
    }
    return { for waiter in waiters { waiter(reason) } }
  }

  /// Admits a request to `network`: straight through once it has started, refused once its start
  /// failed or timed out (or it is never started), else waiting — starting a lazy network. `waiter`
  /// is made only when the request waits.
  func admit(_ network: NetworkID, waiter: () -> Waiter) -> Admission {
    let now = scheduler.now
    let admission = state.withLock { state -> StartGate<Waiter>.Admission? in
      state.gates[network]?.admit(waiter, now: now)
    }
    switch admission {
    case nil: return .refuse("no adapter registered for '\(network)'")
    case .proceed: return .proceed
    case .refuse(let reason): return .refuse(reason)
    case .wait(let ticket, let callStart):
      if callStart {
        // Not from inside this call: an adapter that answers `start` synchronously would release
        // the waiter before its owner has noted that it waits.
        scheduler.execute { [self] in self.callStart(network) }
      }
      return .wait(
        Cancellable { [self] in _ = state.withLock { $0.gates[network]?.cancel(ticket) } })
    }
  }

  /// Calls `network`'s `start` and arms its timeout.
  private func callStart(_ network: NetworkID) {
    let found = state.withLock { state in
      state.adapters[network].map { ($0, state.placements[network] ?? []) }
    }
    guard let found else { return }
    let (adapter, placements) = found
    let timeout = self.timeout
    // The gate may be gone (unregistered) or replaced (registered again) by then: each callback
    // acts on the gate of the adapter it started, found by identity, or on nothing.
    scheduler.schedule(after: timeout) { [self] in
      release(state.withLock { $0.gate(of: adapter, network) { $0.startTimedOut(after: timeout) } })
    }
    // Weak: an SDK that keeps its completion handler must not keep the mediator alive.
    adapter.start(AdapterStartRequest(placementIDs: placements)) { [weak self] result in
      guard let self else { return }
      scheduler.execute { [self] in
        let now = scheduler.now
        release(state.withLock { $0.gate(of: adapter, network) { $0.completed(result, now: now) } })
      }
    }
  }

  /// Tells the released waiters, outside the lock.
  private func release(_ release: StartGate<Waiter>.Release) {
    for waiter in release.waiters { waiter(release.refusal) }
  }

  /// Every network's start-up, by network id.
  var statuses: [Mediator.AdapterStatus] {
    state.withLock { state in state.gates.keys.sorted().map { state.gates[$0]!.status } }
  }

  /// The networks registered now, and why those a load cannot ask cannot: their start failed or
  /// timed out, or they are never started. Networks still starting are not refused: their
  /// requests wait.
  var availability: NetworkAvailability {
    state.withLock { state in
      var availability = NetworkAvailability()
      for (network, gate) in state.gates {
        availability.registered.insert(network)
        if let refusal = gate.refusal { availability.refusals[network] = refusal }
      }
      return availability
    }
  }
}
