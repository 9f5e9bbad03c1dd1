/// The networks' start-up: calls each adapter's `start` (at launch, or on first use, as
/// ``MediatorOptions/networkStarts`` says), runs the start timeout, and releases the loads and bids
/// that waited for a start. The decisions are ``NetworkStarts``' (under the context's lock); the
/// adapters and the waiters are called here, outside it.
extension EngineContext {
  /// What a request does now.
  enum Admission {
    case proceed
    case refuse(String)
    /// Wait; the handle withdraws the request from the gate.
    case wait(Cancellable)
  }

  /// Every adapter, by network id (a snapshot: a copy-on-write dictionary).
  var adapters: [NetworkID: any RewardedAdapter] { shared.withLock { $0.starts.adapters } }

  /// Every adapter's info, by network id, as read when the mediator made the adapter.
  var adapterInfos: [NetworkID: AdapterInfo] { shared.withLock { $0.starts.infos } }

  /// The adapters and their infos, read in one lock round so the two agree.
  var adaptersAndInfos: (adapters: [NetworkID: any RewardedAdapter], infos: [NetworkID: AdapterInfo]) {
    shared.withLock { ($0.starts.adapters, $0.starts.infos) }
  }

  var adapterStatuses: [Mediator.AdapterStatus] { shared.withLock { $0.starts.statuses } }

  /// What a load starts with, read in one lock round: the networks' start-up and the privacy
  /// signals.
  var loadConditions: (networks: NetworkAvailability, privacy: PrivacySettings) {
    shared.withLock { ($0.starts.availability, $0.privacy) }
  }

  /// Starts every network marked ``MediatorOptions/NetworkStart/atLaunch``, each with the start
  /// timeout.
  func startAdapters(placements: [NetworkID: [String]]) {
    let now = scheduler.now
    let launching = shared.withLock { shared in
      shared.starts.placements = placements
      return shared.starts.launch(now: now)
    }
    for network in launching { callStart(network) }
  }

  /// The placements each network's `start` is given; kept up to date by ``Mediator/apply(_:)``
  /// for networks that start later.
  func updatePlacements(_ placements: [NetworkID: [String]]) {
    shared.withLock { $0.starts.placements = placements }
  }

  /// Adds a network registered while the mediator runs (see ``NetworkStarts/add(_:adapter:info:now:)``).
  /// - Returns: What to call once the caller holds no lock: the adapter's `start`, when it
  ///   starts now.
  func addNetwork(_ network: NetworkID, adapter: any RewardedAdapter, info: AdapterInfo)
    -> @Sendable () -> Void
  {
    let now = scheduler.now
    let starts = shared.withLock { $0.starts.add(network, adapter: adapter, info: info, now: now) }
    return { [self] in if starts { callStart(network) } }
  }

  /// Removes a network unregistered while the mediator runs: later requests find no adapter.
  /// - Returns: What to call once the caller holds no lock: it refuses the requests waiting for
  ///   the network's start, with `reason`.
  func removeNetwork(_ network: NetworkID, reason: String) -> @Sendable () -> Void {
    let waiters = shared.withLock { $0.starts.remove(network) }
    return { for waiter in waiters { waiter(reason) } }
  }

  /// Admits a request to `network`: straight through once it has started, refused once its start
  /// failed or timed out (or it is never started), else waiting — starting a lazy network. `waiter`
  /// is made only when the request waits.
  func admit(_ network: NetworkID, waiter: () -> NetworkStarts.Waiter) -> Admission {
    let now = scheduler.now
    switch shared.withLock({ $0.starts.admit(network, waiter, now: now) }) {
    case nil: return .refuse("no adapter registered for '\(network)'")
    case .proceed: return .proceed
    case .refuse(let reason): return .refuse(reason)
    case .wait(let ticket, let callStart):
      if callStart {
        // Not from inside this call: an adapter that answers `start` synchronously would release
        // the waiter before its owner has noted that it waits.
        scheduler.execute { [self] in self.callStart(network) }
      }
      return .wait(Cancellable { [self] in shared.withLock { $0.starts.cancel(ticket, of: network) } })
    }
  }

  /// Calls `network`'s `start` and arms its timeout.
  private func callStart(_ network: NetworkID) {
    let found = shared.withLock { shared in
      shared.starts.adapters[network].map { ($0, shared.starts.placements[network] ?? []) }
    }
    guard let (adapter, placements) = found else { return }
    let timeout = options.startTimeout
    // The gate may be gone (unregistered) or replaced (registered again) by then: each callback
    // acts on the gate of the adapter it started, found by identity, or on nothing.
    scheduler.schedule(after: timeout) { [self] in
      release(shared.withLock { $0.starts.gate(of: adapter, network) { $0.startTimedOut(after: timeout) } })
    }
    // Weak: an SDK that keeps its completion handler must not keep the mediator alive.
    adapter.start(AdapterStartRequest(placementIDs: placements)) { [weak self] result in
      guard let self else { return }
      scheduler.execute { [self] in
        let now = scheduler.now
        release(shared.withLock { $0.starts.gate(of: adapter, network) { $0.completed(result, now: now) } })
      }
    }
  }

  /// Tells the released waiters, outside the lock.
  private func release(_ release: StartGate<NetworkStarts.Waiter>.Release) {
    for waiter in release.waiters { waiter(release.refusal) }
  }
}
