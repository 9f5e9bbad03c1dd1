/// The ready ad going away: withdrawn by its network (at any time, on any thread) or expired.
extension ZoneController {
  /// The sink load `loadID`'s request to `entry` hands the adapter for its ad.
  func withdrawalSink(loadID: Int, entry: Int) -> AdapterWithdrawalSink {
    AdapterWithdrawalSink(receiver: withdrawals, loadID: loadID, entry: entry)
  }

  /// Un-readies load `loadID`'s ad at once, on the caller's thread, so that ``isReady`` and
  /// ``show(from:customData:)`` never see it again; publishes on the executor.
  func withdraw(loadID: Int, entry: Int, reason: AdapterWithdrawal) {
    enum Found { case ready(ReadyAd), shown(ReadyAd), pending, gone }
    let found = state.withLock { state -> Found in
      switch state.lifecycle.withdraw(loadID: loadID, entry: entry, reason: reason) {
      case .ready(let ready):
        state.timers?.expiry.disarm()
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
      context.scheduler.runOnExecutor { [self] in publishWithdrawal(of: ready, reason: reason) }
    case .shown(let ready):
      let note = Diagnostic(
        .adWithdrawn, "the network withdrew the ad after its show started (\(reason)); the show is unchanged")
      context.scheduler.runOnExecutor { [self] in
        context.publish(id, ready.info.network, .diagnostic(note))
      }
    case .pending, .gone:
      break
    }
  }

  /// Discards a withdrawn ad, says why, publishes `expired` and, with auto-reload, loads again:
  /// at once after the first withdrawal since the last show, then with the retry backoff, so an
  /// SDK that withdraws every ad it fills does not make the zone load in a loop.
  func publishWithdrawal(of ready: ReadyAd, reason: AdapterWithdrawal) {
    ready.loaded.ad.discard()
    let network = ready.info.network
    let note = Diagnostic(
      .adWithdrawn,
      reason.kind == .configurationChanged
        ? "the ready ad was withdrawn (\(reason)); discarded"
        : "the network withdrew the ready ad (\(reason)); discarded")
    context.publish(id, network, .diagnostic(note))
    context.publish(id, network, .expired)
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

  func expire() {
    let expired = state.withLock { $0.lifecycle.expire() }
    guard let expired else { return }
    expired.loaded.ad.discard()
    context.publish(id, expired.info.network, .expired)
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
