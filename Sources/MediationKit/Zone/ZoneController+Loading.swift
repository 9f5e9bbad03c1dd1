/// Loading: one load at a time, driven by the zone's ``LoadPlanner``; the network requests it asks
/// for, each admitted only once its network has started; the fill that makes the ready ad; and the
/// retry backoff after a failed load.
extension ZoneController {
  /// Starts a load on the scheduler; see ``RewardedAd/load()`` for the rules.
  func load() {
    // `Scheduler.runOnExecutor` inlined: its escaping closure would allocate on every load.
    if context.scheduler.isCurrentExecutor {
      startRequestedLoad()
    } else {
      context.scheduler.execute { [self] in startRequestedLoad() }
    }
  }

  private func startRequestedLoad() {
    beginLoad(cancellingRetry: true)
  }

  /// Starts a load unless one is under way or an unexpired ad is ready. One lock round while the
  /// cached network availability is current (the usual case); two when it must be recomputed,
  /// which asks the registry and the start gate outside the zone's lock.
  func beginLoad(cancellingRetry: Bool = false) {
    let now = context.scheduler.now
    let version = context.adapterStatusVersion
    var retry: Cancellable?
    let current = state.withLock { state -> ZoneLifecycle.Start? in
      if cancellingRetry { retry = state.lifecycle.retryTimer.take() }
      guard state.unavailable.version == version else { return nil }
      return startIfIdle(&state, now: now)
    }
    retry?.cancel()
    let start: ZoneLifecycle.Start
    if let current {
      start = current
    } else {
      let unavailable = context.unavailableNetworks(for: zone.lineItems)
      let started = context.starts.started(plan.entries.map(\.item.network))
      start = state.withLock { state -> ZoneLifecycle.Start in
        state.unavailable = (version, unavailable)
        state.started = started
        return startIfIdle(&state, now: now)
      }
    }
    switch start {
    case .alreadyLoading:
      return
    case .alreadyReady(let info):
      context.publish(zone.id, info.network, .ready(info))
    case .start(let loadID, let actions):
      context.publish(zone.id, nil, .loading)
      perform(actions, loadID: loadID, request: baseRequest())
    }
  }

  /// The load-start input; the learned eCPMs' order (``planForNextLoad()``) is read here.
  private func startIfIdle(_ state: inout State, now: Duration) -> ZoneLifecycle.Start {
    let unavailable = state.unavailable.networks
    return state.lifecycle.begin(now: now) {
      planner.init(plan: planForNextLoad(), budget: budget, unavailable: unavailable, now: now)
    }
  }

  /// The request every network call of one load shares: zone, reward, auction id and privacy.
  private func baseRequest() -> AdapterLoadRequest {
    AdapterLoadRequest(
      zoneID: zone.id, placementID: "", ecpm: 0,
      reward: NetworkReward(type: zone.reward.type, amount: Double(zone.reward.amount)),
      auctionID: context.nextAuctionID(), privacy: context.privacy)
  }

  /// Gives load `loadID`'s planner an input in one lock round and performs what it decides; a
  /// stale load does nothing.
  private func withAuction(
    _ loadID: Int, request: AdapterLoadRequest,
    _ body: (inout any LoadPlanner, Duration) -> [LoadAction]
  ) {
    let now = context.scheduler.now
    let actions = state.withLock { $0.lifecycle.plan(loadID, now: now, body) }
    perform(actions, loadID: loadID, request: request)
  }

  func perform(_ actions: [LoadAction], loadID: Int, request: AdapterLoadRequest) {
    for action in actions {
      switch action {
      case .requestBid(let entry):
        requestBid(entry, item: plan.entries[entry].item, loadID: loadID, request: request)
      case .startAuctionTimer(let duration):
        let timer = context.scheduler.schedule(after: duration) { [self] in
          withAuction(loadID, request: request) { auction, now in auction.auctionTimedOut(now: now) }
        }
        if !state.withLock({ $0.lifecycle.auctionTimerStarted(timer, loadID: loadID) }) { timer.cancel() }
      case .cancelBids(let entries):
        let handles = state.withLock { state in
          entries.compactMap { state.lifecycle.closed(entry: $0, loadID: loadID) }
        }
        handles.forEach { $0.cancel() }
      case .load(let entry, let bid, let timeout):
        startLoad(
          entry, item: plan.entries[entry].item, bid: bid, timeout: timeout, loadID: loadID, request: request)
      case .cancel(let entry):
        state.withLock { state in
          if state.lifecycle.stopAttempt(entry: entry, loadID: loadID) { state.timers?.load.disarm() }
          return state.lifecycle.closed(entry: entry, loadID: loadID)
        }?.cancel()
      case .discard(let loaded, let diagnostic):
        loaded.ad.discard()
        context.publish(zone.id, nil, .diagnostic(diagnostic))
      case .finish(let outcome):
        finish(outcome, loadID: loadID)
      }
    }
  }

  /// A network request that may have to wait for its network's start.
  private enum RequestKind { case bid, load }

  private func requestBid(_ entry: Int, item: LineItem, loadID: Int, request: AdapterLoadRequest) {
    guard adapters[entry] != nil else { return }
    let request = request.for(item)
    if admitted(.bid, entry: entry, loadID: loadID, request: request) {
      sendBid(entry, loadID: loadID, request: request)
    }
  }

  /// Whether `entry`'s bid or load may go to its network now. No request reaches an adapter whose
  /// start has not completed: while the start is under way the request waits (its timeout keeps
  /// running, so the wait counts against it) and is sent or skipped when the start ends; when the
  /// network did not start, the auction is told at once and moves on.
  private func admitted(_ kind: RequestKind, entry: Int, loadID: Int, request: AdapterLoadRequest) -> Bool {
    if state.withLock({ $0.started.indices.contains(entry) && $0.started[entry] }) { return true }
    let admission = context.starts.admit(plan.entries[entry].item.network) {
      { [weak self] refusal in
        self?.startEnded(refusal, kind, entry: entry, loadID: loadID, request: request)
      }
    }
    switch admission {
    case .proceed:
      return true
    case .refuse(let reason):
      if kind == .load {
        state.withLock { state in
          if state.lifecycle.stopAttempt(entry: entry, loadID: loadID) { state.timers?.load.disarm() }
        }
      }
      withAuction(loadID, request: request) { auction, now in
        auction.notStarted(entry: entry, reason: reason, now: now)
      }
    case .wait(let handle):
      let current = state.withLock { $0.lifecycle.awaitingStart(handle, entry: entry, loadID: loadID) }
      if !current { handle.cancel() }
    }
    return false
  }

  /// The start `entry`'s request waited for ended: send the request, or skip it with `refusal`.
  /// A request whose wait already ended (its timeout, or its load) is left alone.
  private func startEnded(
    _ refusal: String?, _ kind: RequestKind, entry: Int, loadID: Int, request: AdapterLoadRequest
  ) {
    let waiting = state.withLock { state -> Bool in
      let ended = state.lifecycle.startEnded(
        entry: entry, loadID: loadID, refused: refusal != nil, isLoad: kind == .load)
      if ended.stopLoadTimer { state.timers?.load.disarm() }
      return ended.waiting
    }
    guard waiting else { return }
    if let refusal {
      withAuction(loadID, request: request) { auction, now in
        auction.notStarted(entry: entry, reason: refusal, now: now)
      }
      return
    }
    switch kind {
    case .bid: sendBid(entry, loadID: loadID, request: request)
    case .load: sendLoad(entry, loadID: loadID, request: request)
    }
  }

  private func sendBid(_ entry: Int, loadID: Int, request: AdapterLoadRequest) {
    guard let adapter = adapters[entry] else { return }
    let scheduler = context.scheduler
    let handle = adapter.bid(request) { [weak self] result in
      guard let self else { return }
      scheduler.runOnExecutor { [self] in
        _ = state.withLock { $0.lifecycle.closed(entry: entry, loadID: loadID) }
        withAuction(loadID, request: request) { auction, now in
          auction.bidAnswered(entry: entry, result: result, now: now)
        }
      }
    }
    if !state.withLock({ $0.lifecycle.opened(handle, entry: entry, loadID: loadID) }) { handle.cancel() }
  }

  private func startLoad(
    _ entry: Int, item: LineItem, bid: AdapterBid?, timeout: Duration, loadID: Int,
    request: AdapterLoadRequest
  ) {
    guard adapters[entry] != nil else { return }
    let request = request.for(item, bid: bid, withdrawals: withdrawalSink(loadID: loadID, entry: entry))
    state.withLock { state in
      state.lifecycle.attempting(LoadAttempt(loadID: loadID, entry: entry, request: request))
      state.timers?.load.arm(after: timeout)
    }
    if admitted(.load, entry: entry, loadID: loadID, request: request) {
      sendLoad(entry, loadID: loadID, request: request)
    }
  }

  private func sendLoad(_ entry: Int, loadID: Int, request: AdapterLoadRequest) {
    guard let adapter = adapters[entry] else { return }
    let scheduler = context.scheduler
    let handle = adapter.load(request) { [weak self] result in
      guard let self else { return }
      // `Scheduler.runOnExecutor` inlined: its escaping closure would allocate on every answer.
      if scheduler.isCurrentExecutor {
        answer(result, entry: entry, loadID: loadID, request: request)
      } else {
        scheduler.execute { [self] in answer(result, entry: entry, loadID: loadID, request: request) }
      }
    }
    if !state.withLock({ $0.lifecycle.opened(handle, entry: entry, loadID: loadID) }) { handle.cancel() }
  }

  func loadAttemptTimedOut() {
    guard let attempt = state.withLock({ $0.lifecycle.attemptTimedOut() }) else { return }
    withAuction(attempt.loadID, request: attempt.request) { auction, now in
      auction.timedOut(entry: attempt.entry, now: now)
    }
  }

  private func answer(
    _ result: Result<AdapterLoadedAd, AdapterError>, entry: Int, loadID: Int, request: AdapterLoadRequest
  ) {
    switch result {
    case .success(let loaded):
      let now = context.scheduler.now
      // One lock round for the duplicate check, the request's bookkeeping and the planner.
      let answer = state.withLock { state in
        let answer = state.lifecycle.loaded(loadID, entry: entry, loaded, now: now)
        if case .actions(_, stopLoadTimer: true) = answer { state.timers?.load.disarm() }
        return answer
      }
      switch answer {
      case .twice:
        // The SDK reported the load that already filled again: the ad is the zone's, keep it.
        let note = Diagnostic(.duplicateSignal, "the network reported the same load twice; ignored")
        context.publish(zone.id, nil, .diagnostic(note))
      case .stale:
        let late = LoadAction.discard(
          loaded, Diagnostic(.lateLoad, "an ad arrived after its load ended; discarded"))
        perform([late], loadID: loadID, request: request)
      case .actions(let actions, _):
        perform(actions, loadID: loadID, request: request)
      }
    case .failure(let error):
      withAuction(loadID, request: request) { auction, now in
        auction.failed(entry: entry, error: error, now: now)
      }
    }
  }

  /// Ends load `loadID`: its open requests and timers go, and the zone has its ready ad or
  /// counts a failure, in one lock round. The load-outcome hook (learned eCPMs) runs first.
  private func finish(_ outcome: LoadOutcome, loadID: Int) {
    learn(from: outcome)
    let now = context.scheduler.now
    var fill: (entry: Int, loaded: AdapterLoadedAd, price: Double, precision: RevenuePrecision)?
    var responses: [NetworkResponse] = []
    var lifetime = adExpiry
    var failure: MediationError?
    switch outcome {
    case .failed(let error, let answers):
      failure = error
      failure?.waterfall = answers
    case .filled(let entry, let loaded, let price, let precision, let answers):
      if let own = loaded.lifetime { lifetime = min(lifetime, own) }
      fill = (entry, loaded, price, precision)
      responses = answers
    }
    let ended = state.withLock { state -> ZoneLifecycle.Finish? in
      let ended = state.lifecycle.finish(loadID, filledEntry: fill?.entry) { startedAt -> ReadyAd? in
        guard let fill else { return nil }
        let item = plan.entries[fill.entry].item
        let info = AdInfo(
          zoneID: zone.id, network: item.network, placementID: item.placementId, ecpm: fill.price,
          responses: responses, latency: now - startedAt, precision: fill.precision, strategy: zone.strategy)
        return ReadyAd(
          info: info, loaded: fill.loaded, expiresAt: now + lifetime,
          networkReportsRevenue: reportsRevenue[fill.entry], loadID: loadID)
      }
      guard let ended else { return nil }
      if ended.stopLoadTimer { state.timers?.load.disarm() }
      // Withdrawn before its fill was stored: never ready, though the app hears `ready` and
      // then `expired`, as for any ad that goes away.
      if ended.ready != nil, ended.withdrawal == nil { state.timers?.expiry.arm(after: lifetime) }
      return ended
    }
    guard let end = ended else { return }
    for handle in end.leftovers { handle.cancel() }
    if let ready = end.ready {
      context.publish(zone.id, ready.info.network, .ready(ready.info))
      if let withdrawal = end.withdrawal { publishWithdrawal(of: ready, reason: withdrawal) }
    } else if let failure {
      context.publish(zone.id, nil, .failed(failure))
      if zone.autoReload, let failures = end.failures {
        scheduleRetry(after: Self.retryDelay(afterFailures: failures))
      }
    }
  }

  /// Loads again after `delay`, unless a load starts before.
  func scheduleRetry(after delay: Duration) {
    let timer = context.scheduler.schedule(after: delay) { [self] in
      state.withLock { _ = $0.lifecycle.retryTimer.take() }
      beginLoad()
    }
    state.withLock { $0.lifecycle.retryTimer = timer }
  }
}

extension AdapterLoadRequest {
  /// This load's request, aimed at `item` (and its winning `bid`, if any).
  fileprivate func `for`(
    _ item: LineItem, bid: AdapterBid? = nil, withdrawals: AdapterWithdrawalSink = .ignored
  ) -> AdapterLoadRequest {
    var request = self
    request.placementID = item.placementId
    request.ecpm = item.ecpm
    request.bid = bid
    request.serverCallback = item.serverCallback
    request.withdrawals = withdrawals
    return request
  }
}
