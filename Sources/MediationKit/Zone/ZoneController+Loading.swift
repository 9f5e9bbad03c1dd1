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
    beginLoad(cancellingRetry: true, requested: true)
  }

  /// Starts a load unless one is under way or the queue holds `queueDepth` unexpired ads, on the
  /// zone's current
  /// setup, which the load keeps to its end. One lock round while the cached network availability
  /// is current (the usual case); two when it must be recomputed, which asks the registry and the
  /// start gate outside the zone's lock. In a zone removed from the configuration nothing loads:
  /// a load the app `requested` fails with `unknownZone`, a reload of the zone's own is dropped.
  func beginLoad(cancellingRetry: Bool = false, requested: Bool = false) {
    let now = context.scheduler.now
    let version = context.adapterStatusVersion
    let (setup, removal) = setups.withLock { ($0.current, $0.removal) }
    var retry: Cancellable?
    var current = state.withLock { state -> ZoneLifecycle.Start? in
      if cancellingRetry { retry = state.lifecycle.retryTimer.take() }
      if let removal { return .refused(removal) }
      guard state.unavailable.version == version, state.availabilityOf === setup else { return nil }
      return startIfIdle(&state, setup: setup, now: now)
    }
    retry?.cancel()
    let start: ZoneLifecycle.Start
    if let cached = current.take() {  // moved out, not copied
      start = cached
    } else {
      let unavailable = context.unavailableNetworks(for: setup.zone.lineItems)
      let started = context.starts.started(setup.plan.entries.map(\.item.network))
      start = state.withLock { state -> ZoneLifecycle.Start in
        // Cached only for a load that starts now: a load in flight keeps its own plan's figures.
        if state.lifecycle.isLoading { return .alreadyLoading }
        state.unavailable = (version, unavailable)
        state.started = started
        state.availabilityOf = setup
        return startIfIdle(&state, setup: setup, now: now)
      }
    }
    switch start {
    case .alreadyLoading:
      return
    case .refused(let removal):
      guard requested else { return }
      let known = context.zoneIDs()
      var error = MediationError.unknownZone(id, known: known)
      error.message =
        "\(removal); its ads cannot load or show until a configuration brings it back; " + error.message
      context.publish(id, nil, .failed(error))
    case .alreadyReady(let info):
      context.publish(id, info.network, .ready(info))
    case .start(let loadID, let actions, let request):
      context.publish(id, nil, .loading, arms: setup.experimentArms)
      perform(actions, loadID: loadID, request: request, setup: setup)
    }
  }

  /// The load-start input, on `setup` (noted as the load's, which it keeps to its end); the
  /// learned eCPMs' order (``planForNextLoad(_:)``) is read here.
  private func startIfIdle(_ state: inout State, setup: ZoneSetup, now: Duration) -> ZoneLifecycle.Start {
    let unavailable = state.unavailable.networks
    let queue = state.lifecycle.queue
    return state.lifecycle.begin(now: now, depth: setup.queueDepth) {
      setups.withLock { $0.load = setup }
      var plan = planForNextLoad(setup)
      // A network keeps one ad per placement: a placement whose ad is queued is not asked again.
      if setup.queueDepth > 1, queue.unexpiredCount(now: now) > 0 {
        let queued = Set(
          queue.ads.lazy.filter { $0.expiresAt > now }.map {
            PlacementKey(network: $0.info.network, placementID: $0.info.placementID)
          })
        plan = plan.switchingOff(as: .skipped) { item in
          queued.contains(PlacementKey(network: item.network, placementID: item.placementId))
            ? "an ad of this placement is already in the zone's queue" : nil
        }
      }
      let planner = setup.planner.init(plan: plan, budget: setup.budget, unavailable: unavailable, now: now)
      return (planner, baseRequest(setup.zone))
    }
  }

  /// The request every network call of one load shares: zone, reward, auction id and privacy.
  private func baseRequest(_ zone: ZoneConfig) -> AdapterLoadRequest {
    AdapterLoadRequest(
      zoneID: id, placementID: "", ecpm: 0,
      reward: NetworkReward(type: zone.reward.type, amount: Double(zone.reward.amount)),
      auctionID: context.nextAuctionID(), privacy: context.privacy)
  }

  /// Gives load `loadID`'s planner an input in one lock round and performs what it decides; a
  /// stale load does nothing.
  func withAuction(
    _ loadID: Int, request: AdapterLoadRequest,
    _ body: (inout any LoadPlanner, Duration) -> [LoadAction]
  ) {
    let now = context.scheduler.now
    let actions = state.withLock { $0.lifecycle.plan(loadID, now: now, body) }
    perform(actions, loadID: loadID, request: request)
  }

  /// Performs a planner's actions for load `loadID`, on `setup`, the load's own (read once here
  /// when not given).
  func perform(_ actions: [LoadAction], loadID: Int, request: AdapterLoadRequest, setup: ZoneSetup? = nil) {
    if actions.isEmpty { return }
    let setup = setup ?? setups.withLock { $0.load }
    for action in actions {
      switch action {
      case .requestBid(let entry):
        requestBid(entry, setup: setup, loadID: loadID, request: request)
      case .startAuctionTimer(let duration):
        state.withLock { state in
          if state.lifecycle.auctionTimerStarted(loadID: loadID) {
            state.timers?.auction.arm(after: duration)
          }
        }
      case .cancelBids(let entries):
        let handles = state.withLock { state in
          entries.compactMap { state.lifecycle.closed(entry: $0, loadID: loadID) }
        }
        handles.forEach { $0.cancel() }
      case .load(let entry, let bid, let timeout):
        startLoad(entry, setup: setup, bid: bid, timeout: timeout, loadID: loadID, request: request)
      case .cancel(let entry):
        state.withLock { state in
          if state.lifecycle.stopAttempt(entry: entry, loadID: loadID) { state.timers?.load.disarm() }
          return state.lifecycle.closed(entry: entry, loadID: loadID)
        }?.cancel()
      case .discard(let loaded, let diagnostic):
        loaded.ad.discard()
        context.publish(id, nil, .diagnostic(diagnostic), arms: setup.experimentArms)
      case .finish(let outcome):
        finish(outcome, loadID: loadID)
      }
    }
  }

  /// A network request that may have to wait for its network's start.
  private enum RequestKind { case bid, load }

  private func requestBid(_ entry: Int, setup: ZoneSetup, loadID: Int, request: AdapterLoadRequest) {
    guard let adapter = setup.adapters[entry] else { return }
    let item = setup.plan.entries[entry].item
    let request = request.for(item)
    if admitted(.bid, entry: entry, network: item.network, loadID: loadID, request: request) {
      sendBid(entry, adapter: adapter, loadID: loadID, request: request)
    }
  }

  /// Whether `entry`'s bid or load may go to its network now. No request reaches an adapter whose
  /// start has not completed: while the start is under way the request waits (its timeout keeps
  /// running, so the wait counts against it) and is sent or skipped when the start ends; when the
  /// network did not start, the auction is told at once and moves on.
  private func admitted(
    _ kind: RequestKind, entry: Int, network: NetworkID, loadID: Int, request: AdapterLoadRequest
  ) -> Bool {
    if state.withLock({ $0.started.indices.contains(entry) && $0.started[entry] }) { return true }
    let admission = context.starts.admit(network) {
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
    guard let adapter = setups.withLock({ $0.load }).adapters[entry] else { return }
    switch kind {
    case .bid: sendBid(entry, adapter: adapter, loadID: loadID, request: request)
    case .load: sendLoad(entry, adapter: adapter, loadID: loadID, request: request)
    }
  }

  private func sendBid(_ entry: Int, adapter: any RewardedAdapter, loadID: Int, request: AdapterLoadRequest) {
    let scheduler = context.scheduler
    let handle = adapter.bid(request) { [weak self] result in
      guard let self else { return }
      // `Scheduler.runOnExecutor` inlined: its escaping closure would allocate on every answer.
      if scheduler.isCurrentExecutor {
        bidAnswered(result, entry: entry, loadID: loadID, request: request)
      } else {
        scheduler.execute { [self] in bidAnswered(result, entry: entry, loadID: loadID, request: request) }
      }
    }
    if !state.withLock({ $0.lifecycle.opened(handle, entry: entry, loadID: loadID) }) { handle.cancel() }
  }

  private func bidAnswered(
    _ result: Result<AdapterBid, AdapterError>, entry: Int, loadID: Int, request: AdapterLoadRequest
  ) {
    _ = state.withLock { $0.lifecycle.closed(entry: entry, loadID: loadID) }
    withAuction(loadID, request: request) { auction, now in
      auction.bidAnswered(entry: entry, result: result, now: now)
    }
  }

  private func startLoad(
    _ entry: Int, setup: ZoneSetup, bid: AdapterBid?, timeout: Duration, loadID: Int,
    request: AdapterLoadRequest
  ) {
    guard let adapter = setup.adapters[entry] else { return }
    let item = setup.plan.entries[entry].item
    let request = request.for(item, bid: bid, withdrawals: withdrawalSink(loadID: loadID, entry: entry))
    state.withLock { state in
      state.lifecycle.attempting(LoadAttempt(loadID: loadID, entry: entry, request: request))
      state.timers?.load.arm(after: timeout)
    }
    if admitted(.load, entry: entry, network: item.network, loadID: loadID, request: request) {
      sendLoad(entry, adapter: adapter, loadID: loadID, request: request)
    }
  }

  private func sendLoad(_ entry: Int, adapter: any RewardedAdapter, loadID: Int, request: AdapterLoadRequest)
  {
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

  func auctionTimedOut() {
    guard let (loadID, request) = state.withLock({ $0.lifecycle.auctionTimerFired() }) else { return }
    withAuction(loadID, request: request) { auction, now in auction.auctionTimedOut(now: now) }
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
        context.publish(id, nil, .diagnostic(note))
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

  /// Ends load `loadID`: its open requests and timers go, and the fill joins the zone's queue or
  /// a failure is counted. One lock round for both. A fill that leaves room in the queue starts
  /// the next load when the zone reloads on its own (and no retry's backoff is pending).
  private func finish(_ outcome: LoadOutcome, loadID: Int) {
    let (setup, depth) = setups.withLock { ($0.load, $0.current.queueDepth) }
    learn(from: outcome, in: setup)
    let now = context.scheduler.now
    var fill: Fill?
    var responses: [NetworkResponse] = []
    var failure: MediationError?
    switch outcome {
    case .failed(let error, let answers):
      failure = error
      failure?.waterfall = answers
    case .filled(let entry, let loaded, let price, let precision, let answers):
      fill = Fill(entry: entry, loaded: loaded, price: price, precision: precision)
      responses = answers
    }
    var lifetime = setup.adExpiry
    if let own = fill?.loaded.lifetime { lifetime = min(lifetime, own) }
    let ended = state.withLock { state -> ZoneLifecycle.Finish? in
      let ended = state.lifecycle.finish(loadID, filledEntry: fill?.entry, depth: depth, now: now) {
        startedAt -> ReadyAd? in
        guard let fill else { return nil }
        let item = setup.plan.entries[fill.entry].item
        let info = AdInfo(
          zoneID: id, network: item.network, placementID: item.placementId, ecpm: fill.price,
          responses: responses, latency: now - startedAt, precision: fill.precision,
          strategy: setup.zone.strategy, experimentArms: setup.experimentArms)
        return ReadyAd(
          info: info, loaded: fill.loaded, expiresAt: now + lifetime,
          networkReportsRevenue: setup.reportsRevenue[fill.entry], loadID: loadID)
      } configurationWithdrawal: { ready in
        // The load ran on its own plan; a configuration applied meanwhile that removed or switched
        // off its line item withdraws the ad. With none applied, the plan that filled still holds it.
        let current = setups.withLock { $0.current }
        guard current !== setup else { return nil }
        return current.withdrawalReason(
          of: (ready.info.network, ready.info.placementID), adapter: setup.networkAdapters[ready.info.network]
        ).map { AdapterWithdrawal(.configurationChanged, message: $0) }
      }
      guard let ended else { return nil }
      if ended.stopLoadTimer { state.timers?.load.disarm() }
      if ended.stopAuctionTimer { state.timers?.auction.disarm() }
      // Withdrawn before its fill was stored: never ready, though the app hears `ready` and
      // then `expired`, as for any ad that goes away.
      if ended.ready != nil, ended.withdrawal == nil { state.armExpiry(now: now) }
      return ended
    }
    guard let end = ended else { return }
    for handle in end.leftovers { handle.cancel() }
    if let ready = end.ready {
      context.publish(id, ready.info.network, .ready(ready.info))
      if let withdrawal = end.withdrawal {
        publishWithdrawals(of: [ready], reason: withdrawal)
      } else if end.refill, autoReload {
        beginLoad()
      }
    } else if let failure {
      context.publish(id, nil, .failed(failure), arms: setup.experimentArms)
      if autoReload, let failures = end.failures {
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
    retargeted(
      placementID: item.placementId, ecpm: item.ecpm, serverCallback: item.serverCallback, bid: bid,
      withdrawals: withdrawals)
  }
}
