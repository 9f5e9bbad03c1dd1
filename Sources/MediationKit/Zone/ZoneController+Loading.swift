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

  /// What ``beginLoad(cancellingRetry:)`` found.
  private enum LoadStart { case alreadyLoading, alreadyReady(AdInfo), start(Int, [LoadAction]) }

  /// Starts a load unless one is under way or an unexpired ad is ready. One lock round while the
  /// cached network availability is current (the usual case); two when it must be recomputed,
  /// which asks the registry and the start gate outside the zone's lock.
  func beginLoad(cancellingRetry: Bool = false) {
    let now = context.scheduler.now
    let version = context.adapterStatusVersion
    var retry: Cancellable?
    let current = state.withLock { state -> LoadStart? in
      if cancellingRetry { retry = state.retryTimer.take() }
      guard state.unavailable.version == version else { return nil }
      return startIfIdle(&state, now: now)
    }
    retry?.cancel()
    let start: LoadStart
    if let current {
      start = current
    } else {
      let unavailable = context.unavailableNetworks(for: zone.lineItems)
      let started = context.starts.started(plan.entries.map(\.item.network))
      start = state.withLock { state -> LoadStart in
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

  private func startIfIdle(_ state: inout State, now: Duration) -> LoadStart {
    if state.auction != nil { return .alreadyLoading }
    if let ready = state.slot.ready, ready.expiresAt > now { return .alreadyReady(ready.info) }
    state.loadID += 1
    state.loadStartedAt = now
    var auction = planner.init(
      plan: planForNextLoad(), budget: budget, unavailable: state.unavailable.networks, now: now)
    let actions = auction.start(now: now)
    state.auction = auction
    return .start(state.loadID, actions)
  }

  /// The request every network call of one load shares: zone, reward, auction id and privacy.
  private func baseRequest() -> AdapterLoadRequest {
    AdapterLoadRequest(
      zoneID: zone.id, placementID: "", ecpm: 0,
      reward: NetworkReward(type: zone.reward.type, amount: Double(zone.reward.amount)),
      auctionID: context.nextAuctionID(), privacy: context.privacy)
  }

  /// Mutates the auction of load `loadID` under the lock; a stale load does nothing.
  private func withAuction(
    _ loadID: Int, request: AdapterLoadRequest,
    _ body: (inout any LoadPlanner, Duration) -> [LoadAction]
  ) {
    let now = context.scheduler.now
    let actions = state.withLock { state -> [LoadAction] in
      // Take the auction out so mutating it does not copy its arrays.
      guard state.loadID == loadID, var auction = state.auction.take() else { return [] }
      let actions = body(&auction, now)
      if !auction.isFinished { state.auction = auction }
      return actions
    }
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
        state.withLock { $0.auctionTimer = timer }
      case .cancelBids(let entries):
        let handles = state.withLock { state in entries.compactMap { state.inFlight.remove($0) }
        }
        handles.forEach { $0.cancel() }
      case .load(let entry, let bid, let timeout):
        startLoad(
          entry, item: plan.entries[entry].item, bid: bid, timeout: timeout, loadID: loadID, request: request)
      case .cancel(let entry):
        state.withLock { state in
          state.stopLoadTimer(entry: entry)
          return state.inFlight.remove(entry)
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
      if kind == .load { state.withLock { $0.stopLoadTimer(entry: entry) } }
      withAuction(loadID, request: request) { auction, now in
        auction.notStarted(entry: entry, reason: reason, now: now)
      }
    case .wait(let handle):
      let current = state.withLock { state -> Bool in
        guard state.loadID == loadID else { return false }
        state.inFlight.insert(handle, for: entry)
        state.auction?.awaitingStart(entry: entry)
        return true
      }
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
      guard state.loadID == loadID, state.inFlight.remove(entry) != nil else { return false }
      if refusal == nil {
        state.auction?.startCompleted(entry: entry)
      } else if kind == .load {
        state.stopLoadTimer(entry: entry)
      }
      return true
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
        state.withLock { state in if state.loadID == loadID { _ = state.inFlight.remove(entry) } }
        withAuction(loadID, request: request) { auction, now in
          auction.bidAnswered(entry: entry, result: result, now: now)
        }
      }
    }
    state.withLock { $0.inFlight.insert(handle, for: entry) }
  }

  private func startLoad(
    _ entry: Int, item: LineItem, bid: AdapterBid?, timeout: Duration, loadID: Int,
    request: AdapterLoadRequest
  ) {
    guard adapters[entry] != nil else { return }
    let request = request.for(item, bid: bid, withdrawals: withdrawalSink(loadID: loadID, entry: entry))
    state.withLock { state in
      state.attempt = LoadAttempt(loadID: loadID, entry: entry, request: request)
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
    state.withLock { $0.inFlight.insert(handle, for: entry) }
  }

  func loadAttemptTimedOut() {
    guard let attempt = state.withLock({ $0.attempt.take() }) else { return }
    withAuction(attempt.loadID, request: attempt.request) { auction, now in
      auction.timedOut(entry: attempt.entry, now: now)
    }
  }

  private func answer(
    _ result: Result<AdapterLoadedAd, AdapterError>, entry: Int, loadID: Int, request: AdapterLoadRequest
  ) {
    switch result {
    case .success(let loaded):
      enum Answer { case twice, stale, actions([LoadAction]) }
      let now = context.scheduler.now
      // One lock round for the duplicate check, the request's bookkeeping and the auction.
      let answer = state.withLock { state -> Answer in
        if state.acceptedAd === loaded.ad { return .twice }
        // The request answered: stop its timer. Only for this load — a stale answer's entry
        // number may belong to the load running now.
        guard state.loadID == loadID else { return .stale }
        _ = state.inFlight.remove(entry)
        state.stopLoadTimer(entry: entry)
        // Take the auction out so mutating it does not copy its arrays.
        guard var auction = state.auction.take() else { return .stale }
        let actions = auction.loaded(entry: entry, ad: loaded, now: now)
        if !auction.isFinished { state.auction = auction }
        return .actions(actions)
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
      case .actions(let actions):
        perform(actions, loadID: loadID, request: request)
      }
    case .failure(let error):
      withAuction(loadID, request: request) { auction, now in
        auction.failed(entry: entry, error: error, now: now)
      }
    }
  }

  /// Ends load `loadID`: its open requests and timers go, and the zone has its ready ad or
  /// counts a failure. One lock round for both.
  private func finish(_ outcome: LoadOutcome, loadID: Int) {
    learn(from: outcome)
    let now = context.scheduler.now
    /// Ends the load's requests and timers under the lock; returns the handles to cancel after it.
    func endRequests(_ state: inout State) -> [Cancellable] {
      defer { state.inFlight.removeAll() }
      if state.attempt.take() != nil { state.timers?.load.disarm() }
      var handles = state.inFlight.handles
      if let timer = state.auctionTimer.take() { handles.append(timer) }
      return handles
    }
    switch outcome {
    case .failed(let error, let responses):
      var error = error
      error.waterfall = responses
      let (leftovers, retryDelay) = state.withLock { state -> ([Cancellable], Duration?) in
        let leftovers = endRequests(&state)
        state.consecutiveFailures += 1
        return (leftovers, zone.autoReload ? Self.retryDelay(afterFailures: state.consecutiveFailures) : nil)
      }
      for handle in leftovers { handle.cancel() }
      context.publish(zone.id, nil, .failed(error))
      if let retryDelay { scheduleRetry(after: retryDelay) }
    case .filled(let entry, let loaded, let price, let precision, let responses):
      let item = plan.entries[entry].item
      var lifetime = adExpiry
      if let own = loaded.lifetime { lifetime = min(lifetime, own) }
      let (leftovers, info, ready, withdrawal) = state.withLock {
        state -> ([Cancellable], AdInfo, ReadyAd, AdapterWithdrawal?) in
        let leftovers = endRequests(&state)
        let info = AdInfo(
          zoneID: zone.id, network: item.network, placementID: item.placementId, ecpm: price,
          responses: responses,
          latency: now - state.loadStartedAt, precision: precision, strategy: zone.strategy)
        let ready = ReadyAd(
          info: info, loaded: loaded, expiresAt: now + lifetime,
          networkReportsRevenue: reportsRevenue[entry], loadID: loadID)
        state.consecutiveFailures = 0
        state.acceptedAd = loaded.ad
        // Withdrawn before its fill was handled: never ready, though the app hears `ready`
        // and then `expired`, as for any ad that goes away.
        if let early = state.earlyWithdrawal.take(), early.loadID == loadID, early.entry == entry {
          state.slot = .empty(.withdrawn(early.reason))
          return (leftovers, info, ready, early.reason)
        }
        state.timers?.expiry.arm(after: lifetime)
        state.slot = .ready(ready)
        return (leftovers, info, ready, nil)
      }
      for handle in leftovers { handle.cancel() }
      context.publish(zone.id, item.network, .ready(info))
      if let withdrawal { publishWithdrawal(of: ready, reason: withdrawal) }
    }
  }

  /// Loads again after `delay`, unless a load starts before.
  func scheduleRetry(after delay: Duration) {
    let timer = context.scheduler.schedule(after: delay) { [self] in
      state.withLock { _ = $0.retryTimer.take() }
      beginLoad()
    }
    state.withLock { $0.retryTimer = timer }
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
