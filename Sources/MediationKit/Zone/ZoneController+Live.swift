/// Configuration changes on a running mediator (``Mediator/apply(_:)``, a network registered or
/// unregistered): the zone's setup swapped in one step, the ready ad and the requests in flight
/// checked against it, and a removed zone retired.
extension ZoneController {
  /// Makes the zone's setup from `zone` and `config` and swaps it in: the next load uses it, the
  /// load in flight keeps its own. A ready ad whose line item is gone or switched off, or whose
  /// network is unregistered, is withdrawn (and, with auto-reload, loaded again); requests in
  /// flight to a network switched off or unregistered, or for a line item switched off, are
  /// cancelled and end ``AdInfo/NetworkResponse/State/disabled``. A retired zone comes back. `change`,
  /// when given, is published as a ``RewardedAdEvent/Diagnostic/Kind/configurationApplied`` diagnostic first.
  func reconfigure(_ zone: ZoneConfig, in config: MediationConfig, change: String?) {
    let previous = setups.withLock { $0.current }
    let setup = ZoneSetup(
      zone: zone, in: config, adapters: context.adapters, seed: context.options.seed, previous: previous)
    let old = setups.withLock { setups -> ZoneSetup in
      setups.current = setup
      setups.removal = nil
      return setups.load
    }
    if let change { context.announce(id, change) }
    typealias Stop = (entry: Int, reason: String, handle: Cancellable)
    let (readyLoad, withdrawal, stops, load) = state.withLock {
      state -> (Int?, AdapterWithdrawal?, [Stop], (id: Int, request: AdapterLoadRequest)?) in
      // The networks' availability is figured again for the next load's plan.
      state.unavailable.version = -1
      var readyLoad: Int?
      var withdrawal: AdapterWithdrawal?
      // A ready ad was made by the last load, so under the load's setup.
      if let ready = state.slot.ready,
        let reason = setup.withdrawalReason(
          of: (ready.info.network, ready.info.placementID), adapter: old.networkAdapters[ready.info.network])
      {
        readyLoad = ready.loadID
        withdrawal = AdapterWithdrawal(.configurationChanged, message: reason)
      }
      guard state.auction != nil, let request = state.loadRequest else {
        return (readyLoad, withdrawal, [], nil)
      }
      var stops: [Stop] = []
      for entry in state.inFlight.entries {
        guard let reason = setup.cancellation(of: entry, under: old),
          let handle = state.inFlight.remove(entry)
        else { continue }
        state.stopLoadTimer(entry: entry)
        stops.append((entry, reason, handle))
      }
      return (readyLoad, withdrawal, stops, (state.loadID, request))
    }
    if let load {
      for stop in stops {
        stop.handle.cancel()
        withAuction(load.id, request: load.request) { auction, now in
          auction.switchedOff(entry: stop.entry, reason: stop.reason, now: now)
        }
      }
    }
    if let readyLoad, let withdrawal { withdraw(loadID: readyLoad, entry: 0, reason: withdrawal) }
  }

  /// Takes the zone out of the configuration: its ready ad is withdrawn, its load in flight
  /// cancelled (ending in `failed`, `unknownZone`, with `reason`) and nothing loads again until
  /// ``reconfigure(_:in:change:)`` brings it back. A show on screen finishes.
  func retire(reason: String) {
    setups.withLock { $0.removal = reason }
    context.announce(id, reason)
    let (ready, handles, cancelledLoad) = state.withLock {
      state -> (ZoneController.ReadyAd?, [Cancellable], Bool) in
      let ready = state.slot.take(
        leaving: .withdrawn(AdapterWithdrawal(.configurationChanged, message: reason)))
      if ready != nil { state.timers?.expiry.disarm() }
      var handles = state.inFlight.handles
      state.inFlight.removeAll()
      if let timer = state.auctionTimer.take() { handles.append(timer) }
      if let timer = state.retryTimer.take() { handles.append(timer) }
      if state.attempt.take() != nil { state.timers?.load.disarm() }
      // A new load id: every answer of the cancelled load is stale from now on.
      let cancelled = state.auction.take() != nil
      state.loadID += 1
      return (ready, handles, cancelled)
    }
    for handle in handles { handle.cancel() }
    context.scheduler.runOnExecutor { [self] in
      if let ready {
        publishWithdrawal(of: ready, reason: AdapterWithdrawal(.configurationChanged, message: reason))
      }
      if cancelledLoad {
        var error = MediationError.unknownZone(id, known: context.zoneIDs())
        error.message = "\(reason); its load was cancelled; " + error.message
        context.publish(id, nil, .failed(error))
      }
    }
  }
}
