/// Loading: one load at a time, planned by the zone's ``LoadPlanner``; the network requests it
/// asks for, each admitted only once its network has started; the fill that makes the ready ad;
/// and the retry backoff after a failed load.
extension ZoneMachine {
  /// A load is asked for: starts one on the current setup unless one is under way or the queue
  /// holds `queueDepth` unexpired ads (then the ad a show would take is `ready` again). In a zone
  /// removed from the configuration nothing loads: a load the app `requested` fails with
  /// `unknownZone`, a reload of the zone's own is dropped. A load the app asks for cancels the
  /// pending retry, and so does any load that starts: the zone has at most one retry pending,
  /// and a load under way is what it would have started.
  mutating func startLoad(
    requested: Bool, networks: NetworkAvailability, privacy: PrivacySettings, now: Duration,
    _ out: inout [ZoneEffect]
  ) {
    if requested { disarm(.retry, &out) }
    if let removal {
      if requested {
        out.append(
          .failRemoved(
            prefix: "\(removal); its ads cannot load or show until a configuration brings it back; "))
      }
      return
    }
    guard load == nil else { return }
    if queue.unexpiredCount(now: now) >= max(1, setup.queueDepth), let best = queue.best(now: now) {
      out.append(.publish(.ready(best.info), network: best.info.network, arms: nil))
      return
    }
    disarm(.retry, &out)
    lastLoadID += 1
    lastLoadSetup = setup
    var plan = learned?.nextLoad(in: setup.plan) ?? setup.plan
    // A network keeps one ad per placement: a placement whose ad is queued is not asked again.
    if setup.queueDepth > 1, queue.unexpiredCount(now: now) > 0 {
      let queued = queuedPlacements(now: now)
      plan = plan.switchingOff(as: .skipped) { item in
        queued.contains(PlacementKey(network: item.network, placementID: item.placementId))
          ? "an ad of this placement is already in the zone's queue" : nil
      }
    }
    let planner = setup.planner.init(
      plan: plan, budget: setup.budget, unavailable: networks.unavailable(for: setup.zone.lineItems), now: now
    )
    let reward = setup.zone.reward
    let request = AdapterLoadRequest(
      zoneID: id, placementID: "", ecpm: 0,
      reward: AdapterSignal.NetworkReward(type: reward.type, amount: Double(reward.amount)), privacy: privacy)
    load = Load(
      id: lastLoadID, startedAt: now, planner: planner, request: request, setup: setup,
      learningEpoch: learningEpoch)
    out.append(.startAuction(load: lastLoadID))
  }

  /// Load `id` has its auction id: `loading` is published and its first requests go out.
  mutating func auctionStarted(load id: Int, auctionID: UInt64, now: Duration, _ out: inout [ZoneEffect]) {
    guard load?.id == id, !load!.auctionStarted else { return }
    load!.auctionStarted = true
    load!.request.auctionID = auctionID
    out.append(.publish(.loading, network: nil, arms: load!.setup.experimentArms))
    let actions = load!.planner.start(now: now)
    perform(actions, now: now, &out)
  }

  /// Gives load `id`'s planner an input and performs what it decides; nothing for a load no
  /// longer under way, or whose planner has already decided.
  mutating func plan(
    _ id: Int, now: Duration, _ out: inout [ZoneEffect], _ body: (inout any LoadPlanner) -> [LoadAction]
  ) {
    guard load?.id == id, !load!.planner.isFinished else { return }
    let actions = body(&load!.planner)
    perform(actions, now: now, &out)
  }

  /// Turns a planner's actions into effects.
  private mutating func perform(_ actions: [LoadAction], now: Duration, _ out: inout [ZoneEffect]) {
    for action in actions {
      switch action {
      case .requestBid(let entry):
        send(.bid, entry: entry, bid: nil, &out)
      case .startAuctionTimer(let duration):
        arm(.auction, after: duration, &out)
      case .cancelBids(let entries):
        for entry in entries { close(entry, &out) }
      case .load(let entry, let bid, let timeout):
        guard let current = load, current.setup.adapters[entry] != nil else { continue }
        load!.attempt = entry
        arm(.load, after: timeout, &out)
        send(.load, entry: entry, bid: bid, &out)
      case .cancel(let entry):
        stopAttempt(entry, &out)
        close(entry, &out)
      case .discard(let loaded, let diagnostic):
        out.append(.discard(loaded.ad))
        out.append(.publish(.diagnostic(diagnostic), network: nil, arms: lastLoadSetup.experimentArms))
      case .finish(let outcome):
        finish(outcome, now: now, &out)
      }
    }
  }

  /// Sends `entry`'s bid or load (after checking its network's start).
  private mutating func send(
    _ kind: ZoneEffect.Request.Kind, entry: Int, bid: AdapterBid?, admit: Bool = true,
    _ out: inout [ZoneEffect]
  ) {
    guard let current = load, let adapter = current.setup.adapters[entry] else { return }
    let item = current.setup.plan.entries[entry].item
    let request = current.request.retargeted(
      placementID: item.placementId, ecpm: item.ecpm, serverCallback: item.serverCallback, bid: bid,
      sink: .ignored)
    load!.open.removeAll { $0.entry == entry }
    load!.open.append(Open(entry: entry, kind: kind, bid: bid))
    out.append(
      .send(
        ZoneEffect.Request(
          id: RequestID(load: current.id, entry: entry), kind: kind, network: item.network, adapter: adapter,
          request: request, admit: admit)))
  }

  /// Forgets `entry`'s open request and cancels it.
  private mutating func close(_ entry: Int, _ out: inout [ZoneEffect]) {
    guard let index = load?.open.firstIndex(where: { $0.entry == entry }) else { return }
    if let handle = load!.open.remove(at: index).handle { out.append(.cancel(handle)) }
  }

  /// Ends `entry`'s attempt if the load timer is armed for it (an answer for an attempt that
  /// already ended leaves the current one alone).
  private mutating func stopAttempt(_ entry: Int, _ out: inout [ZoneEffect]) {
    guard load?.attempt == entry else { return }
    load!.attempt = nil
    disarm(.load, &out)
  }

  /// The adapter (or the start gate) returned `request`'s handle; a request no longer open is
  /// cancelled at once.
  mutating func opened(_ request: RequestID, _ handle: Cancellable, waiting: Bool, _ out: inout [ZoneEffect])
  {
    guard load?.id == request.load, let index = load!.open.firstIndex(where: { $0.entry == request.entry })
    else {
      out.append(.cancel(handle))
      return
    }
    load!.open[index].handle = handle
    load!.open[index].waitingForStart = waiting
    if waiting { load!.planner.awaitingStart(entry: request.entry) }
  }

  /// The start `request` waited for ended: it goes out now, or is skipped with `refusal`. A
  /// request whose wait already ended (its timeout, or its load) is left alone.
  mutating func startEnded(_ request: RequestID, refusal: String?, now: Duration, _ out: inout [ZoneEffect]) {
    guard load?.id == request.load,
      let index = load!.open.firstIndex(where: { $0.entry == request.entry && $0.waitingForStart })
    else { return }
    let waiting = load!.open.remove(at: index)
    if let refusal {
      if waiting.kind == .load { stopAttempt(request.entry, &out) }
      plan(request.load, now: now, &out) { $0.notStarted(entry: request.entry, reason: refusal, now: now) }
      return
    }
    load!.planner.startCompleted(entry: request.entry)
    send(waiting.kind, entry: request.entry, bid: waiting.bid, admit: false, &out)
  }

  /// `request`'s network did not start: the planner moves on.
  mutating func notStarted(_ request: RequestID, reason: String, now: Duration, _ out: inout [ZoneEffect]) {
    guard load?.id == request.load, let index = load!.open.firstIndex(where: { $0.entry == request.entry })
    else { return }
    let refused = load!.open.remove(at: index)
    if refused.kind == .load { stopAttempt(request.entry, &out) }
    plan(request.load, now: now, &out) { $0.notStarted(entry: request.entry, reason: reason, now: now) }
  }

  mutating func bidAnswered(
    _ request: RequestID, _ result: Result<AdapterBid, AdapterError>, now: Duration, _ out: inout [ZoneEffect]
  ) {
    if load?.id == request.load { load!.open.removeAll { $0.entry == request.entry } }
    plan(request.load, now: now, &out) { $0.bidAnswered(entry: request.entry, result: result, now: now) }
  }

  /// `request` filled with `loaded`: the planner decides, a fill for a load no longer under way is
  /// discarded, and the same ad reported twice is kept (the zone already has it).
  mutating func loaded(
    _ request: RequestID, _ loaded: AdapterLoadedAd, now: Duration, _ out: inout [ZoneEffect]
  ) {
    if acceptedAd === loaded.ad {
      let note = RewardedAdEvent.Diagnostic(
        .duplicateSignal, "the network reported the same load twice; ignored")
      out.append(.publish(.diagnostic(note), network: nil, arms: nil))
      return
    }
    guard load?.id == request.load, !load!.planner.isFinished else {
      out.append(.discard(loaded.ad))
      let note = RewardedAdEvent.Diagnostic(.lateLoad, "an ad arrived after its load ended; discarded")
      out.append(.publish(.diagnostic(note), network: nil, arms: lastLoadSetup.experimentArms))
      return
    }
    load!.open.removeAll { $0.entry == request.entry }
    stopAttempt(request.entry, &out)
    plan(request.load, now: now, &out) { $0.loaded(entry: request.entry, ad: loaded, now: now) }
  }

  /// Ends the load under way: its open requests and timers go, and a fill joins the queue (or is
  /// withdrawn at once, see below) or a failure is counted. A fill that leaves room in the queue
  /// starts the next load when the zone reloads on its own and no retry's backoff is pending.
  ///
  /// A fill the network withdrew before it was stored is never ready (the app hears `ready` and
  /// then `expired`, as for any ad that goes away); so is one whose line item a configuration
  /// applied during the load removed or switched off.
  private mutating func finish(_ outcome: LoadOutcome, now: Duration, _ out: inout [ZoneEffect]) {
    guard let ended = load else { return }
    load = nil
    learn(from: outcome, epoch: ended.learningEpoch)
    disarm(.load, &out)
    disarm(.auction, &out)
    let leftovers = ended.open.compactMap(\.handle)
    switch outcome {
    case .failed(var error, let answers):
      consecutiveFailures += 1
      error.waterfall = answers
      for handle in leftovers { out.append(.cancel(handle)) }
      out.append(.publish(.failed(error), network: nil, arms: ended.setup.experimentArms))
      if autoReload { arm(.retry, after: Self.retryDelay(afterFailures: consecutiveFailures), &out) }
    case .filled(let entry, let loaded, let price, let precision, let answers):
      let setup = ended.setup
      let item = setup.plan.entries[entry].item
      let info = AdInfo(
        zoneID: id, network: item.network, placementID: item.placementId, ecpm: price, responses: answers,
        latency: now - ended.startedAt, precision: precision, strategy: setup.zone.strategy,
        experimentArms: setup.experimentArms, auctionID: ended.request.auctionID)
      var lifetime = setup.adExpiry
      if let own = loaded.lifetime { lifetime = min(lifetime, own) }
      let ready = ReadyAd(
        info: info, loaded: loaded, expiresAt: now + lifetime,
        networkReportsRevenue: setup.reportsRevenue[entry],
        request: RequestID(load: ended.id, entry: entry))
      consecutiveFailures = 0
      acceptedAd = loaded.ad
      var withdrawal: AdapterWithdrawal?
      if let early = ended.earlyWithdrawal, early.entry == entry {
        withdrawal = early.reason
      } else if self.setup !== setup {
        withdrawal = self.setup.withdrawalReason(
          of: (item.network, item.placementId), adapter: setup.networkAdapters[item.network]
        ).map { AdapterWithdrawal(.configurationChanged, message: $0) }
      }
      var refill = false
      if let withdrawal {
        queue.lost(.withdrawn(withdrawal))
      } else {
        queue.append(ready)
        refill = !isArmed(.retry) && queue.unexpiredCount(now: now) < self.setup.queueDepth
        rearmExpiry(now: now, &out)
      }
      for handle in leftovers { out.append(.cancel(handle)) }
      out.append(.publish(.ready(info), network: info.network, arms: nil))
      if let withdrawal {
        publishWithdrawals([(ready, withdrawal)], &out)
      } else if refill, autoReload {
        out.append(.reload)
      }
    }
  }

  /// The placements of the queued ads a show at `now` could still use.
  private func queuedPlacements(now: Duration) -> Set<PlacementKey> {
    Set(
      queue.ads.lazy.filter { $0.expiresAt > now }.map {
        PlacementKey(network: $0.info.network, placementID: $0.info.placementID)
      })
  }
}
