/// Runs one zone: its loads (one auction at a time), its one ready ad, expiry, preload and retry,
/// frequency caps, and its shows.
///
/// Public methods may be called from any thread. Every event is published from a scheduler
/// action, so a zone's events come out in order on the scheduler's executor.
final class ZoneController: Sendable {
  /// A loaded ad waiting to be shown. A class: it travels from the zone's state to the show
  /// session and its callbacks, and passing a reference is cheaper than copying the ad's info.
  final class ReadyAd: Sendable {
    let info: AdInfo
    let loaded: AdapterLoadedAd
    let expiresAt: Duration
    /// How the impression's one revenue is chosen: the network's figure, else the core's
    /// estimate from the winning price.
    let revenue: ShowStateMachine.RevenueRule
    /// The load that made it, which its ``AdapterWithdrawalSink`` names.
    let loadID: Int

    init(info: AdInfo, loaded: AdapterLoadedAd, expiresAt: Duration, networkReportsRevenue: Bool, loadID: Int)
    {
      self.info = info
      self.loaded = loaded
      self.expiresAt = expiresAt
      self.revenue = ShowStateMachine.RevenueRule(
        estimate: ImpressionRevenue(usd: info.ecpm / 1000, precision: info.precision),
        networkReportsRevenue: networkReportsRevenue)
      self.loadID = loadID
    }
  }

  /// Why the zone has no ad, for the error `show` throws.
  private enum LastAd {
    case none, shown, expired
    /// The network withdrew it before it was shown.
    case withdrawn(AdapterWithdrawal)
  }

  /// The zone's deadlines, made once and armed again for every load, fill and show, so that none
  /// of them allocates per cycle and a disarmed one leaves nothing queued.
  private struct Timers {
    /// The load attempt's timeout (one attempt at a time: ``LoadAttempt``).
    let load: any SchedulerTimer
    /// The ready ad's expiry.
    let expiry: any SchedulerTimer
    /// The show's display timeout, maximum duration and reward grace window (one show at a time).
    let display: any SchedulerTimer
    let showDuration: any SchedulerTimer
    let grace: any SchedulerTimer
    /// The end of the late-signal window of the oldest ended show (``Lingering``).
    let linger: any SchedulerTimer
  }

  /// The load attempt the load timer is armed for.
  private struct LoadAttempt {
    let loadID: Int
    let entry: Int
    let request: AdapterLoadRequest
  }

  /// An ended show kept for its late-signal window, which turns late signals into diagnostics:
  /// when the window ends, its ad is discarded and the show forgotten.
  private struct Lingering {
    let until: Duration
    var session: ShowSession
  }

  private struct State {
    var loadID = 0
    var auction: (any LoadPlanner)?
    var loadStartedAt: Duration = .zero
    /// Open network requests of the current load (bids and loads), by auction entry.
    var inFlight = InFlightRequests()
    /// The networks loads cannot ask, and the adapter-status version it was computed at.
    var unavailable: (version: Int, networks: [NetworkID: LoadPlan.Unavailable]) = (-1, [:])
    /// For each plan entry, whether its network had started at that version: a start never
    /// reverts, so `true` lets a request skip the start gate and its lock.
    var started: [Bool] = []
    var auctionTimer: Cancellable?
    var ready: ReadyAd?
    var lastAd = LastAd.none
    /// Consecutive failed loads, for the retry backoff; reset by a fill.
    var consecutiveFailures = 0
    var retryTimer: Cancellable?
    /// Times of recent shows (at most a day's worth), for frequency caps.
    var showTimes: [Duration] = []
    /// The show on screen; then in `lingering` for the late-signal window.
    var session: ShowSession?
    /// The id of the zone's latest show (``ShowSession/id``).
    var lastShowID = 0
    /// Ended shows in their late-signal window, oldest first.
    var lingering: [Lingering] = []
    /// Set once, at the end of `init`.
    var timers: Timers?
    /// The load attempt whose timeout `timers.load` is armed for.
    var attempt: LoadAttempt?
    /// The ad the last load filled with, to recognise an SDK reporting the same load twice. Held
    /// (not just its identifier, which a new ad could reuse) until the next fill.
    var acceptedAd: (any AdapterAd)?
    /// A withdrawal that reached the core before the load it names was handled: applied when
    /// that load fills, so the ad is never reported ready.
    var earlyWithdrawal: (loadID: Int, entry: Int, reason: AdapterWithdrawal)?
    /// Ads withdrawn in a row without a show in between, for the reload backoff.
    var consecutiveWithdrawals = 0

    /// Disarms the load timer if it is armed for `entry`'s attempt (an answer for an attempt that
    /// already ended leaves the current attempt's timer alone).
    mutating func stopLoadTimer(entry: Int) {
      guard attempt?.entry == entry else { return }
      attempt = nil
      timers?.load.disarm()
    }
  }

  let zone: ZoneConfig
  private let planner: any LoadPlanner.Type
  private let plan: LoadPlan
  /// Each plan entry's adapter (`nil` when its network is not registered), looked up once.
  private let adapters: [(any RewardedAdapter)?]
  /// For each plan entry, whether its network reports impression revenue itself.
  private let reportsRevenue: [Bool]
  private let context: EngineContext
  /// The zone's timeouts as durations, converted from the configured seconds once.
  private let budget: LoadBudget
  private let adExpiry: Duration
  private let rewardGrace: Duration
  private let state = Locked(State())
  /// Where this zone's loads' withdrawal sinks deliver (one object per zone, not a closure per load).
  private let withdrawals = ZoneWithdrawals()

  init(zone: ZoneConfig, context: EngineContext) {
    self.zone = zone
    self.budget = LoadBudget(loadTimeout: zone.loadTimeout, auctionTimeout: zone.auctionTimeout)
    self.adExpiry = zone.adExpiry
    self.rewardGrace = zone.rewardGrace
    let planner = LoadPlanners.planner(for: zone)
    self.planner = planner
    let plan = planner.plan(for: zone)
    self.plan = plan
    self.adapters = plan.entries.map { context.adapters[$0.item.network] }
    self.reportsRevenue = adapters.map { $0?.info.capabilities.contains(.impressionRevenue) ?? false }
    self.context = context
    let scheduler = context.scheduler
    let timers = Timers(
      load: scheduler.makeTimer { [weak self] in self?.loadAttemptTimedOut() },
      expiry: scheduler.makeTimer { [weak self] in self?.expire() },
      display: scheduler.makeTimer { [weak self] in self?.receive(.displayTimeoutEnded, show: nil) },
      showDuration: scheduler.makeTimer { [weak self] in self?.receive(.showTimeoutEnded, show: nil) },
      grace: scheduler.makeTimer { [weak self] in self?.receive(.graceWindowEnded, show: nil) },
      linger: scheduler.makeTimer { [weak self] in self?.endLateSignalWindows() })
    state.withLock { $0.timers = timers }
    withdrawals.attach(self)
  }

  var isReady: Bool {
    let now = context.scheduler.now
    return state.withLock { state in state.ready.map { $0.expiresAt > now } ?? false }
  }

  var isLoading: Bool { state.withLock { $0.auction != nil } }

  // MARK: Loading

  /// Starts a load on the scheduler; see ``RewardedAd/load()`` for the rules.
  func load() {
    // `runOnExecutor`, spelled out: on the executor (an app reacting to an event) the load starts
    // at once without allocating a closure for it.
    if context.scheduler.isCurrentExecutor {
      startRequestedLoad()
    } else {
      context.scheduler.execute { [self] in startRequestedLoad() }
    }
  }

  private func startRequestedLoad() {
    state.withLock { $0.retryTimer.take() }?.cancel()
    beginLoad()
  }

  private func beginLoad() {
    enum Start { case alreadyLoading, alreadyReady(AdInfo), start(Int, [LoadAction]) }
    let now = context.scheduler.now
    let version = context.adapterStatusVersion
    let cached = state.withLock { $0.unavailable.version == version ? $0.unavailable.networks : nil }
    let unavailable = cached ?? context.unavailableNetworks(for: zone.lineItems)
    let started = cached == nil ? context.starts.started(plan.entries.map(\.item.network)) : nil
    let start = state.withLock { state -> Start in
      state.unavailable = (version, unavailable)
      if let started { state.started = started }
      if state.auction != nil { return .alreadyLoading }
      if let ready = state.ready, ready.expiresAt > now { return .alreadyReady(ready.info) }
      state.loadID += 1
      state.loadStartedAt = now
      var auction = planner.init(plan: plan, budget: budget, unavailable: unavailable, now: now)
      let actions = auction.start(now: now)
      state.auction = auction
      return .start(state.loadID, actions)
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

  private func perform(_ actions: [LoadAction], loadID: Int, request: AdapterLoadRequest) {
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
      // `runOnExecutor`, spelled out: an SDK answering from a scheduled action is handled at once,
      // without a closure holding the result and the request.
      if scheduler.isCurrentExecutor {
        answer(result, entry: entry, loadID: loadID, request: request)
      } else {
        scheduler.execute { [self] in answer(result, entry: entry, loadID: loadID, request: request) }
      }
    }
    state.withLock { $0.inFlight.insert(handle, for: entry) }
  }

  private func loadAttemptTimedOut() {
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

  private func finish(_ outcome: LoadOutcome, loadID: Int) {
    let now = context.scheduler.now
    let leftovers = state.withLock { state -> [Cancellable] in
      defer { state.inFlight.removeAll() }
      if state.attempt.take() != nil { state.timers?.load.disarm() }
      var handles = state.inFlight.handles
      if let timer = state.auctionTimer.take() { handles.append(timer) }
      return handles
    }
    for handle in leftovers { handle.cancel() }
    switch outcome {
    case .failed(let error, let responses):
      var error = error
      error.waterfall = responses
      let retryDelay = state.withLock { state -> Duration? in
        state.consecutiveFailures += 1
        return zone.autoReload ? Self.retryDelay(afterFailures: state.consecutiveFailures) : nil
      }
      context.publish(zone.id, nil, .failed(error))
      if let retryDelay { scheduleRetry(after: retryDelay) }
    case .filled(let entry, let loaded, let price, let precision, let responses):
      let item = plan.entries[entry].item
      var lifetime = adExpiry
      if let own = loaded.lifetime { lifetime = min(lifetime, own) }
      let (info, ready, withdrawal) = state.withLock { state -> (AdInfo, ReadyAd, AdapterWithdrawal?) in
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
          state.lastAd = .withdrawn(early.reason)
          return (info, ready, early.reason)
        }
        state.timers?.expiry.arm(after: lifetime)
        state.ready = ready
        state.lastAd = .none
        return (info, ready, nil)
      }
      context.publish(zone.id, item.network, .ready(info))
      if let withdrawal { publishWithdrawal(of: ready, reason: withdrawal) }
    }
  }

  /// Loads again after `delay`, unless a load starts before.
  private func scheduleRetry(after delay: Duration) {
    let timer = context.scheduler.schedule(after: delay) { [self] in
      state.withLock { _ = $0.retryTimer.take() }
      beginLoad()
    }
    state.withLock { $0.retryTimer = timer }
  }

  // MARK: Withdrawn ads

  /// The sink load `loadID`'s request to `entry` hands the adapter for its ad.
  private func withdrawalSink(loadID: Int, entry: Int) -> AdapterWithdrawalSink {
    AdapterWithdrawalSink(receiver: withdrawals, loadID: loadID, entry: entry)
  }

  /// Un-readies load `loadID`'s ad at once, on the caller's thread, so that ``isReady`` and
  /// ``show(from:customData:)`` never see it again; publishes on the executor.
  fileprivate func withdraw(loadID: Int, entry: Int, reason: AdapterWithdrawal) {
    enum Found { case ready(ReadyAd), shown(ReadyAd), pending, gone }
    let found = state.withLock { state -> Found in
      if let ready = state.ready, ready.loadID == loadID {
        state.ready = nil
        state.timers?.expiry.disarm()
        state.lastAd = .withdrawn(reason)
        return .ready(ready)
      }
      if let session = state.session, session.ready.loadID == loadID { return .shown(session.ready) }
      if let ended = state.lingering.first(where: { $0.session.ready.loadID == loadID }) {
        return .shown(ended.session.ready)
      }
      // The load has not filled yet as far as the core knows (its completion is still hopping
      // onto the executor): remember it for the fill.
      if state.loadID == loadID, state.auction != nil {
        state.earlyWithdrawal = (loadID, entry, reason)
        return .pending
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
        context.publish(zone.id, ready.info.network, .diagnostic(note))
      }
    case .pending, .gone:
      break
    }
  }

  /// Discards a withdrawn ad, says why, publishes `expired` and, with auto-reload, loads again:
  /// at once after the first withdrawal since the last show, then with the retry backoff, so an
  /// SDK that withdraws every ad it fills does not make the zone load in a loop.
  private func publishWithdrawal(of ready: ReadyAd, reason: AdapterWithdrawal) {
    ready.loaded.ad.discard()
    let network = ready.info.network
    let note = Diagnostic(.adWithdrawn, "the network withdrew the ready ad (\(reason)); discarded")
    context.publish(zone.id, network, .diagnostic(note))
    context.publish(zone.id, network, .expired)
    guard zone.autoReload else { return }
    let withdrawals = state.withLock { state in
      state.consecutiveWithdrawals += 1
      return state.consecutiveWithdrawals
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

  private func expire() {
    let expired = state.withLock { state -> ReadyAd? in
      guard let ready = state.ready else { return nil }
      state.ready = nil
      state.lastAd = .expired
      return ready
    }
    guard let expired else { return }
    expired.loaded.ad.discard()
    context.publish(zone.id, expired.info.network, .expired)
    if zone.autoReload { beginLoad() }
  }

  // MARK: Showing

  /// See ``RewardedAd/acknowledge(_:)->()``.
  func acknowledge(_ reward: Reward) {
    context.acknowledgeReward(transactionID: reward.transactionID, zoneIDs: [zone.id])
  }

  /// See ``RewardedAd/acknowledge(_:)->Bool``.
  func acknowledge(_ reward: Reward) async throws(MediationError) -> Bool {
    try await context.acknowledgeReward(transactionID: reward.transactionID)
  }

  /// Shows the ready ad; see ``RewardedAd/show(from:customData:)`` for the rules.
  func show(from presenter: any AdPresenting, customData: String?) throws(MediationError) {
    let now = context.scheduler.now
    let ready = try state.withLock { state throws(MediationError) -> ReadyAd in
      guard let ready = state.ready else {
        switch state.lastAd {
        case .shown:
          throw MediationError(.alreadyUsed, "zone '\(zone.id)': its ad was already shown; load a new one")
        case .expired: throw MediationError(.expired, "zone '\(zone.id)': its ad expired before it was shown")
        case .withdrawn(let reason):
          throw MediationError(
            .expired,
            "zone '\(zone.id)': the network withdrew its ad before it was shown (\(reason)); load a new one")
        case .none:
          let detail = state.auction != nil ? "still loading" : "no ad loaded"
          throw MediationError(.notReady, "zone '\(zone.id)': \(detail)")
        }
      }
      if ready.expiresAt <= now {
        throw MediationError(.expired, "zone '\(zone.id)': its ad expired before it was shown")
      }
      if let caps = zone.caps {
        state.showTimes.removeAll { $0 <= now - .seconds(86_400) }
        if let wait = FrequencyCapCheck.wait(caps: caps, showTimes: state.showTimes, now: now) {
          throw MediationError(
            .capped,
            "zone '\(zone.id)': \(wait.reason); next show allowed in \(MessageFormat.duration(wait.duration))",
            retryAfter: wait.duration)
        }
      }
      guard context.fullScreen.acquire(zone.id) else {
        let other = context.fullScreen.current ?? "?"
        throw MediationError(.anotherAdShowing, "zone '\(zone.id)': another ad is showing (zone '\(other)')")
      }
      state.ready = nil
      state.timers?.expiry.disarm()
      state.lastAd = .shown
      state.consecutiveWithdrawals = 0
      if zone.caps != nil { state.showTimes.append(now) }
      return ready
    }
    let showID = state.withLock { state -> Int in
      state.lastShowID += 1
      state.session = ShowSession(
        id: state.lastShowID, ready: ready,
        machine: ShowStateMachine(graceWindow: rewardGrace, revenue: ready.revenue))
      state.timers?.display.arm(after: context.options.displayTimeout)
      state.timers?.showDuration.arm(after: context.options.maxShowDuration)
      return state.lastShowID
    }
    let scheduler = context.scheduler
    // Weak: the SDK may keep the sink after the ad is discarded.
    let sink = AdapterSignalSink(show: AdapterShowID(zoneID: zone.id, number: showID)) { [weak self] signal in
      guard let self else { return }
      // `runOnExecutor`, spelled out: a signal sent from a scheduled action (the usual case) is
      // handled at once, without allocating a closure for it.
      if scheduler.isCurrentExecutor {
        receive(.signal(signal), show: showID)
      } else {
        scheduler.execute { [self] in receive(.signal(signal), show: showID) }
      }
    }
    ready.loaded.ad.show(
      AdapterShowRequest(zoneID: zone.id, customData: customData, userID: context.userID), from: presenter,
      signals: sink)
  }

  /// Feeds `input` to show `showID` (the show on screen when `nil`, for its timers) and performs
  /// what its machine asks; a show past its late-signal window ignores it.
  private func receive(_ input: ShowStateMachine.Input, show showID: Int?) {
    var actions: [ShowStateMachine.Action] = []
    let handled = state.withLock { state -> (session: ShowSession, ended: Bool)? in
      if var session = state.session, showID == nil || session.id == showID {
        // Taken out while it changes, so the machine is not copied.
        state.session = nil
        let wasFinished = session.machine.isFinished
        session.machine.handle(input, into: &actions)
        // Ended by this input (a later one, delivered while the show's end is being published,
        // only adds diagnostics).
        let ended = !wasFinished && session.machine.isFinished
        state.session = session
        return (session, ended)
      }
      guard let showID, let index = state.lingering.firstIndex(where: { $0.session.id == showID }) else {
        return nil
      }
      state.lingering[index].session.machine.handle(input, into: &actions)
      return (state.lingering[index].session, false)
    }
    guard let (session, ended) = handled else { return }
    for action in actions {
      switch action {
      case .emit(let event):
        context.publish(event, of: session.ready, zone: zone)
      case .startGraceTimer(let duration):
        state.withLock { $0.timers?.grace.arm(after: duration) }
      case .cancelGraceTimer:
        state.withLock { $0.timers?.grace.disarm() }
      case .cancelDisplayTimer:
        state.withLock { $0.timers?.display.disarm() }
      }
    }
    if ended { showEnded(session) }
  }

  /// Frees the screen and preloads; the ad itself is discarded only after the late-signal window,
  /// so a network's late callbacks (a reward after the final dismissal) still reach the show and
  /// are reported as diagnostics.
  private func showEnded(_ session: ShowSession) {
    let window = context.options.lateSignalWindow
    let until = context.scheduler.now + window
    // The zone's state first, the screen after: a show started on another thread as soon as the
    // screen is free must find this one gone, not lose its own session and timers to it.
    state.withLock { state in
      guard let timers = state.timers else { return }
      if state.session?.id == session.id {
        timers.grace.disarm()
        timers.display.disarm()
        timers.showDuration.disarm()
        state.session = nil
      }
      state.lingering.append(Lingering(until: until, session: session))
      if state.lingering.count == 1 { timers.linger.arm(after: window) }
    }
    context.fullScreen.release(zone.id)
    if zone.autoReload { beginLoad() }
  }

  /// Discards the ads of the ended shows whose late-signal window is over and forgets them;
  /// then waits for the next one.
  private func endLateSignalWindows() {
    let now = context.scheduler.now
    // The timer is armed for the oldest window only, so that one is over: even when the clock
    // stands a fraction short of its end (a scheduler counting whole nanoseconds), as re-arming
    // for that fraction would fire at once, again and again.
    var timerWindow = true
    // One show at a time (windows rarely end together), so no list of them is built.
    while let ended = state.withLock({ state -> ReadyAd? in
      if let first = state.lingering.first, timerWindow || first.until <= now {
        timerWindow = false
        return state.lingering.removeFirst().session.ready
      }
      if let next = state.lingering.first { state.timers?.linger.arm(after: next.until - now) }
      return nil
    }) {
      ended.loaded.ad.discard()
    }
  }
}

/// Hands a zone's withdrawals to the zone, held weakly: an SDK may keep a sink after the zone
/// is gone.
private final class ZoneWithdrawals: AdapterWithdrawalReceiver {
  private struct Target {
    weak var zone: ZoneController?
  }

  private let target = Locked(Target())

  func attach(_ zone: ZoneController) { target.withLock { $0.zone = zone } }

  func withdrawn(_ reason: AdapterWithdrawal, loadID: Int, entry: Int) {
    target.withLock { $0.zone }?.withdraw(loadID: loadID, entry: entry, reason: reason)
  }
}

/// Frequency caps and pacing, as a pure function of the recent show times.
enum FrequencyCapCheck {
  struct Wait: Equatable {
    var duration: Duration
    var reason: String
  }

  /// How long until a show is allowed, and why; `nil` when it is allowed now.
  ///
  /// - Parameters:
  ///   - caps: The zone's caps.
  ///   - showTimes: Times of earlier shows, oldest first.
  ///   - now: The current time.
  static func wait(caps: FrequencyCaps, showTimes: [Duration], now: Duration) -> Wait? {
    var waits: [Wait] = []
    if let interval = caps.minIntervalSeconds, let last = showTimes.last, now - last < .seconds(interval) {
      waits.append(
        Wait(
          duration: last + .seconds(interval) - now,
          reason: "at least \(MessageFormat.duration(.seconds(interval))) between shows"))
    }
    for (limit, window, name) in [
      (caps.maxPerHour, Duration.seconds(3600), "hour"), (caps.maxPerDay, .seconds(86_400), "day"),
    ] {
      guard let limit else { continue }
      let inWindow = showTimes.filter { $0 > now - window }
      if inWindow.count >= limit {
        // The show that must leave the window for one more to fit.
        let leaving = inWindow[inWindow.count - limit]
        waits.append(Wait(duration: leaving + window - now, reason: "at most \(limit) shows per \(name)"))
      }
    }
    return waits.max { $0.duration < $1.duration }
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

/// The open network requests of one load, by auction entry: a handful at most, so a small array.
struct InFlightRequests {
  private struct Request {
    let entry: Int
    let handle: Cancellable
  }

  private var requests: [Request] = []

  /// Every open request's handle.
  var handles: [Cancellable] { requests.map(\.handle) }

  mutating func insert(_ handle: Cancellable, for entry: Int) {
    requests.removeAll { $0.entry == entry }
    requests.append(Request(entry: entry, handle: handle))
  }

  /// Removes `entry`'s request and returns its handle.
  mutating func remove(_ entry: Int) -> Cancellable? {
    guard let index = requests.firstIndex(where: { $0.entry == entry }) else { return nil }
    return requests.remove(at: index).handle
  }

  /// Forgets every request, keeping the storage for the next load.
  mutating func removeAll() { requests.removeAll(keepingCapacity: true) }
}
