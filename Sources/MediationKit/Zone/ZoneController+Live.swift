/// Configuration changes on a running mediator (``Mediator/apply(_:)``, a network registered or
/// unregistered): the zone's setup swapped in one step, the queued ads and the requests in flight
/// checked against it, and a removed zone retired.
extension ZoneController {
  /// Makes the zone's setup from `zone` and `config` and swaps it in: the next load uses it, the
  /// load in flight keeps its own. Each queued ad whose line item is gone or switched off, or whose
  /// network is unregistered, is withdrawn, the others stay (and, with auto-reload, the queue
  /// refills, up to the new `queueDepth`: a lowered depth keeps the extra ads until they are
  /// shown or expire); requests in
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
    let now = context.scheduler.now
    let (withdrawn, switchOff) = state.withLock {
      state -> ([(ad: ReadyAd, reason: AdapterWithdrawal)], ZoneLifecycle.SwitchOff?) in
      // The networks' availability is figured again for the next load's plan.
      state.unavailable.version = -1
      // Taken out at once, so that no show can take them after this lock round. Queued ads were
      // made by earlier loads, whose adapters the last load's setup still holds.
      let withdrawn = state.lifecycle.queue.withdraw { ready in
        setup.withdrawalReason(
          of: (ready.info.network, ready.info.placementID), adapter: old.networkAdapters[ready.info.network]
        ).map { AdapterWithdrawal(.configurationChanged, message: $0) }
      }
      if !withdrawn.isEmpty { state.armExpiry(now: now) }
      let switchOff = state.lifecycle.switchOff { setup.cancellation(of: $0, under: old) }
      if switchOff?.stopLoadTimer == true { state.timers?.load.disarm() }
      return (withdrawn, switchOff)
    }
    if let switchOff {
      for stop in switchOff.stops {
        stop.handle.cancel()
        withAuction(switchOff.loadID, request: switchOff.request) { auction, now in
          auction.switchedOff(entry: stop.entry, reason: stop.reason, now: now)
        }
      }
    }
    if !withdrawn.isEmpty { context.scheduler.runOnExecutor { [self] in publishWithdrawals(withdrawn) } }
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

  /// Takes the zone out of the configuration: its queued ads are withdrawn, its load in flight
  /// cancelled (ending in `failed`, `unknownZone`, with `reason`) and nothing loads again until
  /// ``reconfigure(_:in:change:)`` brings it back. A show on screen finishes.
  func retire(reason: String) {
    setups.withLock { $0.removal = reason }
    context.announce(id, reason)
    let (ready, handles, cancelledLoad) = state.withLock {
      state -> ([ZoneController.ReadyAd], [Cancellable], Bool) in
      let ready = state.lifecycle.queue.takeAll(
        leaving: .withdrawn(AdapterWithdrawal(.configurationChanged, message: reason)))
      if !ready.isEmpty { state.timers?.expiry.disarm() }
      let abandoned = state.lifecycle.abandon()
      if abandoned.stopLoadTimer { state.timers?.load.disarm() }
      if abandoned.stopAuctionTimer { state.timers?.auction.disarm() }
      return (ready, abandoned.handles, abandoned.cancelledLoad)
    }
    for handle in handles { handle.cancel() }
    context.scheduler.runOnExecutor { [self] in
      publishWithdrawals(of: ready, reason: AdapterWithdrawal(.configurationChanged, message: reason))
      if cancelledLoad {
        var error = MediationError.unknownZone(id, known: context.zoneIDs())
        error.message = "\(reason); its load was cancelled; " + error.message
        context.publish(id, nil, .failed(error))
      }
    }
  }
}
