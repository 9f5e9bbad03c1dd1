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
      zone: zone, in: config, userID: context.userID, adapters: context.adapters, seed: context.options.seed,
      previous: previous)
    let old = setups.withLock { setups -> ZoneSetup in
      setups.current = setup
      setups.removal = nil
      return setups.load
    }
    if let change { context.announce(id, change) }
    let (readyLoad, withdrawal, switchOff) = state.withLock {
      state -> (Int?, AdapterWithdrawal?, ZoneLifecycle.SwitchOff?) in
      // The networks' availability is figured again for the next load's plan.
      state.unavailable.version = -1
      var readyLoad: Int?
      var withdrawal: AdapterWithdrawal?
      // A ready ad was made by the last load, so under the load's setup.
      if let ready = state.lifecycle.slot.ready,
        let reason = setup.withdrawalReason(
          of: (ready.info.network, ready.info.placementID), adapter: old.networkAdapters[ready.info.network])
      {
        readyLoad = ready.loadID
        withdrawal = AdapterWithdrawal(.configurationChanged, message: reason)
      }
      let switchOff = state.lifecycle.switchOff { setup.cancellation(of: $0, under: old) }
      if switchOff?.stopLoadTimer == true { state.timers?.load.disarm() }
      return (readyLoad, withdrawal, switchOff)
    }
    if let switchOff {
      for stop in switchOff.stops {
        stop.handle.cancel()
        withAuction(switchOff.loadID, request: switchOff.request) { auction, now in
          auction.switchedOff(entry: stop.entry, reason: stop.reason, now: now)
        }
      }
    }
    if let readyLoad, let withdrawal { withdraw(loadID: readyLoad, entry: 0, reason: withdrawal) }
  }

  /// Resolves the zone's arms again for the user now set (``Mediator/setUserID(_:)``), from the
  /// configured zone of the current setup, and swaps the variant in when the arms differ. Like an
  /// apply, the load in flight finishes on the plan it started with; unlike one, nothing is
  /// withdrawn or cancelled: the configuration did not change, so a ready ad from the previous
  /// arm stays showable (``ZoneSetup/withdrawalReason(of:adapter:)`` knows every arm's line items).
  func userChanged(in config: MediationConfig) {
    let previous = setups.withLock { $0.current }
    let userID = context.userID
    guard !previous.base.experiments.isEmpty, previous.userID != userID else { return }
    let setup = ZoneSetup(
      zone: previous.base, in: config, userID: userID, adapters: previous.networkAdapters,
      seed: context.options.seed, previous: previous)
    setups.withLock { $0.current = setup }
  }

  /// Takes the zone out of the configuration: its ready ad is withdrawn, its load in flight
  /// cancelled (ending in `failed`, `unknownZone`, with `reason`) and nothing loads again until
  /// ``reconfigure(_:in:change:)`` brings it back. A show on screen finishes.
  func retire(reason: String) {
    setups.withLock { $0.removal = reason }
    context.announce(id, reason)
    let (ready, handles, cancelledLoad) = state.withLock {
      state -> (ZoneController.ReadyAd?, [Cancellable], Bool) in
      let ready = state.lifecycle.slot.take(
        leaving: .withdrawn(AdapterWithdrawal(.configurationChanged, message: reason)))
      if ready != nil { state.timers?.expiry.disarm() }
      let abandoned = state.lifecycle.abandon()
      if abandoned.stopLoadTimer { state.timers?.load.disarm() }
      return (ready, abandoned.handles, abandoned.cancelledLoad)
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
