/// Ads going away (withdrawn by their network, expired) and changes from outside: a
/// configuration applied, a network registered or unregistered, the user changed, the zone
/// removed.
extension ZoneMachine {
  /// The network withdrew load `request`'s ad: a queued ad leaves the queue at once (so no show
  /// takes it); a fill not stored yet is withdrawn when it is; an ad already on screen keeps its
  /// show, and the withdrawal is reported as a diagnostic.
  mutating func withdrawn(
    _ request: RequestID, reason: AdapterWithdrawal, now: Duration, _ out: inout [ZoneEffect]
  ) {
    if let ready = queue.withdraw(loadID: request.load, reason: reason) {
      rearmExpiry(now: now, &out)
      publishWithdrawals([(ready, reason)], &out)
      return
    }
    if load?.id == request.load {
      load!.earlyWithdrawal = (request.entry, reason)
      return
    }
    let onScreen = session.map { [$0] } ?? []
    guard
      let shown = (onScreen + lingering.map(\.session)).first(where: { $0.ready.loadID == request.load })?
        .ready
    else { return }
    let note = RewardedAdEvent.Diagnostic(
      .adWithdrawn,
      "the network withdrew the ad after its show started (\(MessageFormat.excerpt("\(reason)"))); the show is unchanged"
    )
    out.append(.publish(.diagnostic(note), network: shown.info.network, arms: shown.info.experimentArms))
  }

  /// Discards withdrawn ads, says why, publishes `expired` for each and, with auto-reload, loads
  /// again once: at once after the first withdrawal since the last show, then with the retry
  /// backoff, so an SDK that withdraws every ad it fills does not make the zone load in a loop.
  /// A configuration change withdrawing several queued ads at once counts as one withdrawal.
  mutating func publishWithdrawals(
    _ withdrawn: [(ad: ReadyAd, reason: AdapterWithdrawal)], _ out: inout [ZoneEffect]
  ) {
    guard !withdrawn.isEmpty else { return }
    for (ready, reason) in withdrawn {
      out.append(.discard(ready.loaded.ad))
      let network = ready.info.network
      let note = RewardedAdEvent.Diagnostic(
        .adWithdrawn,
        reason.kind == .configurationChanged
          ? "the ready ad was withdrawn (\(MessageFormat.excerpt("\(reason)"))); discarded"
          : "the network withdrew the ready ad (\(MessageFormat.excerpt("\(reason)"))); discarded")
      out.append(.publish(.diagnostic(note), network: network, arms: ready.info.experimentArms))
      out.append(.publish(.expired, network: network, arms: ready.info.experimentArms))
    }
    guard autoReload else { return }
    consecutiveWithdrawals += 1
    if consecutiveWithdrawals == 1 {
      out.append(.reload)
    } else {
      arm(.retry, after: Self.retryDelay(afterFailures: consecutiveWithdrawals - 1), &out)
    }
  }

  /// The expiry timer fired: the ads past their expiry leave the queue (each with its `expired`),
  /// the timer is armed for the next one, and the queue refills.
  mutating func expire(now: Duration, _ out: inout [ZoneEffect]) {
    let expired = queue.expire(now: now)
    if !queue.isEmpty { rearmExpiry(now: now, &out) }
    guard !expired.isEmpty else { return }
    for ad in expired {
      out.append(.discard(ad.loaded.ad))
      out.append(.publish(.expired, network: ad.info.network, arms: ad.info.experimentArms))
    }
    if autoReload { out.append(.reload) }
  }

  mutating func apply(_ change: ZoneChange, now: Duration, _ out: inout [ZoneEffect]) {
    switch change {
    case .configuration(let new, let note): reconfigure(new, note: note, now: now, &out)
    case .user(let new): swapSetup(new)
    case .removed(let reason): retire(reason: reason, &out)
    }
  }

  /// Swaps `new` in: the next load uses it, the load in flight keeps its own. Each queued ad whose
  /// line item is gone or switched off, or whose network is unregistered, is withdrawn, the others
  /// stay (and, with auto-reload, the queue refills, up to the new depth: a lowered depth keeps the
  /// extra ads until they are shown or expire). Requests in flight to a network switched off or
  /// unregistered, or for a line item switched off, are cancelled and end
  /// ``AdInfo/NetworkResponse/State/disabled``. A removed zone comes back.
  private mutating func reconfigure(_ new: ZoneSetup, note: String?, now: Duration, _ out: inout [ZoneEffect])
  {
    // Queued ads were made by earlier loads, whose adapters the last load's setup still holds.
    let old = lastLoadSetup
    swapSetup(new)
    removal = nil
    if let note {
      out.append(
        .publish(
          .diagnostic(RewardedAdEvent.Diagnostic(.configurationApplied, note)), network: nil, arms: nil))
    }
    let withdrawn = queue.withdraw { ready in
      new.withdrawalReason(
        of: (ready.info.network, ready.info.placementID), adapter: old.networkAdapters[ready.info.network]
      ).map { AdapterWithdrawal(.configurationChanged, message: $0) }
    }
    if !withdrawn.isEmpty { rearmExpiry(now: now, &out) }
    if let current = load {
      var stops: [(entry: Int, reason: String, handle: Cancellable?)] = []
      for open in current.open {
        guard let reason = new.cancellation(of: open.entry, under: old) else { continue }
        load!.open.removeAll { $0.entry == open.entry }
        if load!.attempt == open.entry {
          load!.attempt = nil
          disarm(.load, &out)
        }
        stops.append((open.entry, reason, open.handle))
      }
      for stop in stops {
        if let handle = stop.handle { out.append(.cancel(handle)) }
        plan(current.id, now: now, &out) { $0.switchedOff(entry: stop.entry, reason: stop.reason, now: now) }
      }
    }
    publishWithdrawals(withdrawn, &out)
  }

  /// Takes the zone out of the configuration: its queued ads are withdrawn, its load in flight
  /// cancelled (ending in `failed`, `unknownZone`, with `reason`), its retry dropped, and nothing
  /// loads again until a configuration brings it back. A show on screen finishes.
  private mutating func retire(reason: String, _ out: inout [ZoneEffect]) {
    removal = reason
    out.append(
      .publish(
        .diagnostic(RewardedAdEvent.Diagnostic(.configurationApplied, reason)), network: nil, arms: nil))
    let withdrawal = AdapterWithdrawal(.configurationChanged, message: reason)
    let ready = queue.takeAll(leaving: .withdrawn(withdrawal))
    if !ready.isEmpty { disarm(.expiry, &out) }
    let cancelled = load
    load = nil
    if let cancelled {
      disarm(.load, &out)
      disarm(.auction, &out)
      for handle in cancelled.open.compactMap(\.handle) { out.append(.cancel(handle)) }
    }
    disarm(.retry, &out)
    publishWithdrawals(ready.map { ($0, withdrawal) }, &out)
    if cancelled != nil { out.append(.failRemoved(prefix: "\(reason); its load was cancelled; ")) }
  }
}
