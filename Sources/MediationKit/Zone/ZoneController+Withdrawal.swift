/// Queued ads going away: withdrawn by their network (at any time, on any thread) or expired, each
/// on its own; the queue then refills.
extension ZoneController {
  /// The sink load `loadID`'s request to `entry` hands the adapter for its ad.
  func withdrawalSink(loadID: Int, entry: Int) -> AdapterWithdrawalSink {
    AdapterWithdrawalSink(receiver: withdrawals, loadID: loadID, entry: entry)
  }

  /// Un-readies load `loadID`'s ad at once, on the caller's thread, so that ``isReady`` and
  /// ``show(from:customData:)`` never see it again (the other queued ads stay); publishes on the
  /// executor.
  func withdraw(loadID: Int, entry: Int, reason: AdapterWithdrawal) {
    enum Found { case ready(ReadyAd), shown(ReadyAd), pending, gone }
    let now = context.scheduler.now
    let found = state.withLock { state -> Found in
      switch state.lifecycle.withdraw(loadID: loadID, entry: entry, reason: reason) {
      case .ready(let ready):
        state.armExpiry(now: now)
        return .ready(ready)
      case .pending:
        // The load has not stored its fill yet (its answer may still be hopping onto the
        // executor, or the fill is being stored): the fill applies it.
        return .pending
      case .notHere:
        break
      }
      if let session = state.session, session.ready.loadID == loadID { return .shown(session.ready) }
      if let ended = state.lingering.first(where: { $0.session.ready.loadID == loadID }) {
        return .shown(ended.session.ready)
      }
      return .gone
    }
    switch found {
    case .ready(let ready):
      context.scheduler.runOnExecutor { [self] in publishWithdrawals(of: [ready], reason: reason) }
    case .shown(let ready):
      let note = Diagnostic(
        .adWithdrawn,
        "the network withdrew the ad after its show started (\(MessageFormat.excerpt("\(reason)"))); the show is unchanged"
      )
      context.scheduler.runOnExecutor { [self] in
        context.publish(id, ready.info.network, .diagnostic(note), arms: ready.info.experimentArms)
      }
    case .pending, .gone:
      break
    }
  }

  /// Discards withdrawn ads, says why, publishes `expired` for each and, with auto-reload, loads
  /// again once: at once after the first withdrawal since the last show, then with the retry
  /// backoff, so an SDK that withdraws every ad it fills does not make the zone load in a loop.
  /// A configuration change withdrawing several queued ads at once counts as one withdrawal.
  func publishWithdrawals(of withdrawn: [ReadyAd], reason: AdapterWithdrawal) {
    publishWithdrawals(withdrawn.map { ($0, reason) })
  }

  /// ``publishWithdrawals(of:reason:)`` for ads withdrawn each for its own reason.
  func publishWithdrawals(_ withdrawn: [(ad: ReadyAd, reason: AdapterWithdrawal)]) {
    guard !withdrawn.isEmpty else { return }
    for (ready, reason) in withdrawn {
      ready.loaded.ad.discard()
      let network = ready.info.network
      let note = Diagnostic(
        .adWithdrawn,
        reason.kind == .configurationChanged
          ? "the ready ad was withdrawn (\(MessageFormat.excerpt("\(reason)"))); discarded"
          : "the network withdrew the ready ad (\(MessageFormat.excerpt("\(reason)"))); discarded")
      context.publish(id, network, .diagnostic(note), arms: ready.info.experimentArms)
      context.publish(id, network, .expired, arms: ready.info.experimentArms)
    }
    guard autoReload else { return }
    let withdrawals = state.withLock { state in
      state.lifecycle.consecutiveWithdrawals += 1
      return state.lifecycle.consecutiveWithdrawals
    }
    if withdrawals == 1 {
      beginLoad()
    } else {
      scheduleRetry(after: Self.retryDelay(afterFailures: withdrawals - 1))
    }
  }

  /// The wait before retrying after `failures` consecutive failed loads: 2^min(6, n) seconds,
  /// so 2, 4, 8, … and at most 64 s.
  static func retryDelay(afterFailures failures: Int) -> Duration {
    .seconds(1 << min(6, max(1, failures)))
  }

  /// The expiry timer fired: the ads past their expiry leave the queue (each with its `expired`),
  /// the timer is armed for the next one, and the queue refills.
  func expire() {
    let now = context.scheduler.now
    let expired = state.withLock { state -> [ReadyAd] in
      let expired = state.lifecycle.expire(now: now)
      if !state.lifecycle.queue.isEmpty { state.armExpiry(now: now) }
      return expired
    }
    guard !expired.isEmpty else { return }
    for ad in expired {
      ad.loaded.ad.discard()
      context.publish(id, ad.info.network, .expired, arms: ad.info.experimentArms)
    }
    if autoReload { beginLoad() }
  }
}

/// Hands a zone's withdrawals to the zone, held weakly: an SDK may keep a sink after the zone
/// is gone.
final class ZoneWithdrawals: AdapterWithdrawalReceiver {
  private struct Target {
    weak var zone: ZoneController?
  }

  private let target = Locked(Target())

  func attach(_ zone: ZoneController) { target.withLock { $0.zone = zone } }

  func withdrawn(_ reason: AdapterWithdrawal, loadID: Int, entry: Int) {
    target.withLock { $0.zone }?.withdraw(loadID: loadID, entry: entry, reason: reason)
  }
}
