import Synchronization

/// Runs one zone: its loads (a waterfall at a time), its one ready ad, expiry, and its shows.
///
/// Public methods may be called from any thread. Every event is published from a scheduler
/// action, so a zone's events come out in order on the scheduler's executor.
final class ZoneController: Sendable {
  /// A loaded ad waiting to be shown.
  struct ReadyAd: Sendable {
    let id: Int
    let info: AdInfo
    let loaded: AdapterLoadedAd
    let expiresAt: Duration
  }

  /// Why the zone has no ad, for the error `show` throws.
  private enum LastAd { case none, shown, expired }

  private struct State {
    var loadID = 0
    var auction: WaterfallAuction?
    var loadStartedAt: Duration = .zero
    var inFlight: [Int: Cancellable] = [:]
    var ready: ReadyAd?
    var expiryTimer: Cancellable?
    var showing = false
    var lastAd = LastAd.none
  }

  let zone: ZoneConfig
  private let context: EngineContext
  private let state = Mutex(State())

  init(zone: ZoneConfig, context: EngineContext) {
    self.zone = zone
    self.context = context
  }

  var isReady: Bool {
    let now = context.scheduler.now
    return state.withLock { state in state.ready.map { $0.expiresAt > now } ?? false }
  }

  var isLoading: Bool { state.withLock { $0.auction != nil } }

  // MARK: Loading

  /// Starts a load on the scheduler; see ``RewardedAd/load()`` for the rules.
  func load() {
    context.scheduler.execute { [self] in beginLoad() }
  }

  private func beginLoad() {
    enum Start { case alreadyLoading, alreadyReady(AdInfo), start(Int, [WaterfallAuction.Action]) }
    let now = context.scheduler.now
    let unavailable = context.unavailableNetworks(for: zone.lineItems)
    let start = state.withLock { state -> Start in
      if state.auction != nil { return .alreadyLoading }
      if let ready = state.ready, ready.expiresAt > now { return .alreadyReady(ready.info) }
      state.loadID += 1
      state.loadStartedAt = now
      var auction = WaterfallAuction(
        lineItems: zone.lineItems, unavailable: unavailable, budget: zone.loadTimeout, now: now)
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
      perform(actions, loadID: loadID)
    }
  }

  /// Mutates the auction of load `loadID` under the lock; stale loads get `stale` instead.
  private func withAuction(
    _ loadID: Int, stale: [WaterfallAuction.Action] = [],
    _ body: (inout WaterfallAuction, Duration) -> [WaterfallAuction.Action]
  ) {
    let now = context.scheduler.now
    let actions = state.withLock { state -> [WaterfallAuction.Action] in
      guard state.loadID == loadID, var auction = state.auction else { return stale }
      let actions = body(&auction, now)
      state.auction = auction.isFinished ? nil : auction
      return actions
    }
    perform(actions, loadID: loadID)
  }

  private func perform(_ actions: [WaterfallAuction.Action], loadID: Int) {
    for action in actions {
      switch action {
      case .load(let attempt, let item, let timeout):
        startAttempt(attempt, item: item, timeout: timeout, loadID: loadID)
      case .cancel(let attempt):
        state.withLock { $0.inFlight.removeValue(forKey: attempt) }?.cancel()
      case .discard(let loaded, let diagnostic):
        loaded.ad.discard()
        context.publish(zone.id, nil, .diagnostic(diagnostic))
      case .finish(let outcome):
        finish(outcome, loadID: loadID)
      }
    }
  }

  private func startAttempt(_ attempt: Int, item: LineItem, timeout: Duration, loadID: Int) {
    guard let adapter = context.adapters[item.network] else { return }
    let request = AdapterLoadRequest(
      zoneID: zone.id, placementID: item.placementId, ecpm: item.ecpm,
      reward: NetworkReward(type: zone.reward.type, amount: Double(zone.reward.amount)))
    let scheduler = context.scheduler
    let timer = scheduler.schedule(after: timeout) { [self] in
      withAuction(loadID) { auction, now in auction.timedOut(attempt: attempt, now: now) }
    }
    let handle = adapter.load(request) { [self] result in
      scheduler.execute { [self] in answer(result, attempt: attempt, loadID: loadID) }
    }
    state.withLock {
      $0.inFlight[attempt] = Cancellable {
        timer.cancel(); handle.cancel()
      }
    }
  }

  private func answer(_ result: Result<AdapterLoadedAd, AdapterError>, attempt: Int, loadID: Int) {
    switch result {
    case .success(let loaded):
      let late = WaterfallAuction.Action.discard(
        loaded, Diagnostic(.lateLoad, "an ad arrived after its load ended; discarded"))
      state.withLock { $0.inFlight.removeValue(forKey: attempt) }?.cancel()
      withAuction(loadID, stale: [late]) { auction, now in
        auction.loaded(attempt: attempt, ad: loaded, now: now)
      }
    case .failure(let error):
      withAuction(loadID) { auction, now in auction.failed(attempt: attempt, error: error, now: now) }
    }
  }

  private func finish(_ outcome: WaterfallAuction.Outcome, loadID: Int) {
    let now = context.scheduler.now
    switch outcome {
    case .failed(let error, let responses):
      var error = error
      error.waterfall = responses
      state.withLock { $0.inFlight.removeAll() }
      context.publish(zone.id, nil, .failed(error))
    case .filled(let item, let loaded, let responses):
      var lifetime = zone.adExpiry
      if let own = loaded.lifetime { lifetime = min(lifetime, own) }
      let info = state.withLock { state -> AdInfo in
        let info = AdInfo(
          zoneID: zone.id, network: item.network, placementID: item.placementId,
          ecpm: loaded.ecpm ?? item.ecpm,
          responses: responses, latency: now - state.loadStartedAt)
        state.inFlight.removeAll()
        state.ready = ReadyAd(id: loadID, info: info, loaded: loaded, expiresAt: now + lifetime)
        state.lastAd = .none
        return info
      }
      let timer = context.scheduler.schedule(after: lifetime) { [self] in expire(adID: loadID) }
      state.withLock { $0.expiryTimer = timer }
      context.publish(zone.id, item.network, .ready(info))
    }
  }

  private func expire(adID: Int) {
    let expired = state.withLock { state -> ReadyAd? in
      guard let ready = state.ready, ready.id == adID else { return nil }
      state.ready = nil
      state.expiryTimer = nil
      state.lastAd = .expired
      return ready
    }
    guard let expired else { return }
    expired.loaded.ad.discard()
    context.publish(zone.id, expired.info.network, .expired)
    if zone.autoReload { beginLoad() }
  }

  // MARK: Showing

  /// Shows the ready ad; see ``RewardedAd/show(from:customData:)`` for the rules.
  func show(from presenter: any AdPresenting, customData: String?) throws(MediationError) {
    let now = context.scheduler.now
    let ready = try state.withLock { state throws(MediationError) -> ReadyAd in
      guard let ready = state.ready else {
        switch state.lastAd {
        case .shown:
          throw MediationError(.alreadyUsed, "zone '\(zone.id)': its ad was already shown; load a new one")
        case .expired: throw MediationError(.expired, "zone '\(zone.id)': its ad expired before it was shown")
        case .none:
          let detail = state.auction != nil ? "still loading" : "no ad loaded"
          throw MediationError(.notReady, "zone '\(zone.id)': \(detail)")
        }
      }
      if ready.expiresAt <= now {
        throw MediationError(.expired, "zone '\(zone.id)': its ad expired before it was shown")
      }
      guard context.fullScreen.acquire(zone.id) else {
        let other = context.fullScreen.current ?? "?"
        throw MediationError(.anotherAdShowing, "zone '\(zone.id)': another ad is showing (zone '\(other)')")
      }
      state.ready = nil
      state.expiryTimer?.cancel()
      state.expiryTimer = nil
      state.showing = true
      state.lastAd = .shown
      return ready
    }
    let session = ShowSession(ready: ready, zone: zone, context: context) { [self] in showEnded(ready) }
    session.begin(from: presenter, customData: customData)
  }

  private func showEnded(_ ready: ReadyAd) {
    state.withLock { $0.showing = false }
    context.fullScreen.release(zone.id)
    ready.loaded.ad.discard()
    if zone.autoReload { beginLoad() }
  }
}
