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

  private let scheduler: any Scheduler
  /// The adapters, by network id: those the mediator was made with, then those registered and
  /// unregistered while it runs.
  private let adapterTable: Locked<[NetworkID: any RewardedAdapter]>
  private let modes: [NetworkID: MediatorOptions.NetworkStart]
  private let timeout: Duration
  private let gates: Locked<[NetworkID: StartGate<Waiter>]>
  /// Each network's placements, for its `start`; set by ``launch(placements:)``.
  private let placements = Locked<[NetworkID: [String]]>([:])
  /// Bumped whenever a start-up changes, so zones can cache which networks are unavailable.
  private let changes = Locked(0)

  init(
    adapters: [NetworkID: any RewardedAdapter], modes: [NetworkID: MediatorOptions.NetworkStart],
    timeout: Duration,
    scheduler: any Scheduler
  ) {
    self.scheduler = scheduler
    self.adapterTable = Locked(adapters)
    self.modes = modes
    self.timeout = timeout
    gates = Locked(
      Dictionary(
        uniqueKeysWithValues: adapters.keys.map { id in
          (id, StartGate(network: id, mode: modes[id] ?? .atLaunch))
        }))
  }

  /// Starts every network marked ``MediatorOptions/NetworkStart/atLaunch``, each with the start timeout.
  func launch(placements: [NetworkID: [String]]) {
    self.placements.withLock { $0 = placements }
    let now = scheduler.now
    let launching = gates.withLock { gates in
      gates.keys.sorted().filter { gates[$0]!.mode == .atLaunch && gates[$0]!.beginStart(now: now) }
    }
    _ = changes.increment()
    for id in launching { callStart(id) }
  }

  /// Every adapter, by network id (a snapshot: a copy-on-write dictionary).
  var adapters: [NetworkID: any RewardedAdapter] { adapterTable.withLock { $0 } }

  /// The placements each network's `start` is given; kept up to date by ``Mediator/apply(_:)``
  /// for networks that start later.
  func updatePlacements(_ placements: [NetworkID: [String]]) {
    self.placements.withLock { $0 = placements }
  }

  /// Adds a network registered while the mediator runs, with a fresh start gate: it starts now
  /// when ``MediatorOptions/networkStarts`` says ``MediatorOptions/NetworkStart/atLaunch`` (the default), else as
  /// that option says, so no request reaches it before its start has completed.
  func add(_ network: NetworkID, adapter: any RewardedAdapter) {
    let now = scheduler.now
    let starts = gates.withLock { gates -> Bool in
      adapterTable.withLock { $0[network] = adapter }
      var gate = StartGate<Waiter>(network: network, mode: modes[network] ?? .atLaunch)
      let begins = gate.mode == .atLaunch && gate.beginStart(now: now)
      gates[network] = gate
      return begins
    }
    _ = changes.increment()
    if starts { callStart(network) }
  }

  /// Removes a network unregistered while the mediator runs: the requests waiting for its start
  /// are refused with `reason`, and later requests find no adapter.
  /// - Returns: The adapter removed, `nil` when `network` was not there.
  @discardableResult
  func remove(_ network: NetworkID, reason: String) -> (any RewardedAdapter)? {
    let (adapter, waiters) = gates.withLock { gates -> ((any RewardedAdapter)?, [Waiter]) in
      let adapter = adapterTable.withLock { $0.removeValue(forKey: network) }
      guard var gate = gates.removeValue(forKey: network) else { return (adapter, []) }
      return (adapter, gate.removeWaiters())
    }
    _ = changes.increment()
    for waiter in waiters { waiter(reason) }
    return adapter
  }

  /// Admits a request to `network`: straight through once it has started, refused once its start
  /// failed or timed out (or it is never started), else waiting — starting a lazy network. `waiter`
  /// is made only when the request waits.
  func admit(_ network: NetworkID, waiter: () -> Waiter) -> Admission {
    let now = scheduler.now
    let admission = gates.withLock { gates -> StartGate<Waiter>.Admission? in
      gates[network]?.admit(waiter, now: now)
    }
    switch admission {
    case nil: return .refuse("no adapter registered for '\(network)'")
    case .proceed: return .proceed
    case .refuse(let reason): return .refuse(reason)
    case .wait(let ticket, let callStart):
      if callStart {
        _ = changes.increment()
        // Not from inside this call: an adapter that answers `start` synchronously would release
        // the waiter before its owner has noted that it waits.
        scheduler.execute { [self] in self.callStart(network) }
      }
      return .wait(
        Cancellable { [self] in _ = gates.withLock { $0[network]?.cancel(ticket) } })
    }
  }

  /// Calls `network`'s `start` and arms its timeout.
  private func callStart(_ network: NetworkID) {
    guard let adapter = adapterTable.withLock({ $0[network] }) else { return }
    let timeout = self.timeout
    // The gate may be gone (unregistered) or replaced (registered again) by then: each callback
    // acts on the gate of the adapter it started, found by identity, or on nothing.
    scheduler.schedule(after: timeout) { [self] in
      release(
        gates.withLock { gates in gate(of: adapter, network, in: &gates) { $0.startTimedOut(after: timeout) }
        })
    }
    let placements = self.placements.withLock { $0[network] ?? [] }
    // Weak: an SDK that keeps its completion handler must not keep the mediator alive.
    adapter.start(AdapterStartRequest(placementIDs: placements)) { [weak self] result in
      guard let self else { return }
      scheduler.runOnExecutor { [self] in
        let now = scheduler.now
        release(
          gates.withLock { gates in gate(of: adapter, network, in: &gates) { $0.completed(result, now: now) }
          })
      }
    }
  }

  /// Runs `change` on `network`'s gate if `adapter` is still the network's adapter; else releases
  /// no one.
  private func gate(
    of adapter: any RewardedAdapter, _ network: NetworkID, in gates: inout [NetworkID: StartGate<Waiter>],
    _ change: (inout StartGate<Waiter>) -> StartGate<Waiter>.Release
  ) -> StartGate<Waiter>.Release {
    let current = adapterTable.withLock { $0[network] }
    guard let current, current === adapter, gates[network] != nil else {
      return StartGate<Waiter>.Release(waiters: [], refusal: nil)
    }
    return change(&gates[network]!)
  }

  /// Tells the released waiters, outside the lock.
  private func release(_ release: StartGate<Waiter>.Release) {
    _ = changes.increment()
    for waiter in release.waiters { waiter(release.refusal) }
  }

  /// Whether each of `networks` has started (a start never reverts, so a `true` stays true).
  func started(_ networks: [NetworkID]) -> [Bool] {
    gates.withLock { gates in
      networks.map { network in
        if case .started = gates[network]?.phase { true } else { false }
      }
    }
  }

  /// Every network's start-up, by network id.
  var statuses: [Mediator.AdapterStatus] {
    gates.withLock { gates in gates.keys.sorted().map { gates[$0]!.status } }
  }

  /// Changes whenever a start-up changes.
  var version: Int { changes.get() }

  /// The networks of `items` a load cannot ask now, and why: not registered, or not started
  /// (failed, timed out, or never to be started). Networks still starting are not in it: their
  /// requests wait.
  func unavailable(for items: [ZoneConfig.LineItem]) -> [NetworkID: LoadPlan.Unavailable] {
    gates.withLock { gates in
      var unavailable: [NetworkID: LoadPlan.Unavailable] = [:]
      for item in items {
        guard let gate = gates[item.network] else {
          unavailable[item.network] = LoadPlan.Unavailable(
            fate: .skipped, reason: "no adapter registered for '\(item.network)'")
          continue
        }
        if let refusal = gate.refusal {
          unavailable[item.network] = LoadPlan.Unavailable(fate: .notStarted, reason: refusal)
        }
      }
      return unavailable
    }
  }
}
