/// Runs one zone: its ``ZoneMachine`` under one lock, and the machine's effects performed outside
/// it. Every input is one lock round (`state.withLock { $0.machine.handle(input, now:) }`, and,
/// when the zone records, its ``ZoneRecording`` in the same round); no adapter, observer or app
/// code runs while the lock is held.
///
/// Public methods may be called from any thread (see the ConcurrencyModel article). Adapter
/// answers and signals hop onto the scheduler's executor before they reach the machine, and
/// every event is published from the executor, so a zone's events come out in order.
final class ZoneController: Sendable {
  /// The zone's id, which never changes.
  let id: String
  let context: EngineContext
  private let state: Locked<State>

  /// What the lock guards: the zone's machine, and its flight recording when it records.
  private struct State {
    var machine: ZoneMachine
    var recording: ZoneRecording?
  }

  init(zone: ZoneConfig, in config: MediationConfig, context: EngineContext) {
    self.id = zone.id
    self.context = context
    let (adapters, infos) = context.adaptersAndInfos
    let setup = ZoneSetup(
      zone: zone, in: config, userID: context.userID, adapters: adapters, infos: infos,
      seed: context.options.seed)
    let options = context.options
    let timings = ZoneMachine.Timings(
      displayTimeout: options.displayTimeout, maxShowDuration: options.maxShowDuration,
      lateSignalWindow: options.lateSignalWindow)
    self.state = Locked(State(machine: ZoneMachine(setup: setup, timings: timings)))
  }

  // MARK: Reading, from any thread

  var isReady: Bool { readyAd != nil }

  /// The details of the ad a show would take now, if one is ready.
  var readyAd: AdInfo? {
    let now = context.scheduler.now
    return state.withLock { $0.machine.readyAd(now: now) }
  }

  var isLoading: Bool { state.withLock { $0.machine.isLoading } }

  /// The zone's ready ads, oldest first, whether a load is under way, and its current setup's
  /// configuration version and experiment arms, read in one lock round (for an inspector).
  var snapshot:
    (readyAds: [AdInfo], isLoading: Bool, configurationVersion: String?, experimentArms: [String: String])
  {
    state.withLock {
      (
        $0.machine.queue.ads.map(\.info), $0.machine.isLoading, $0.machine.setup.version,
        $0.machine.setup.experimentArms
      )
    }
  }

  /// Starts recording with `limits` (from the zone's next rest on), or stops and drops the
  /// recording (`nil`); a recorder already running keeps what it holds.
  func record(_ limits: MediatorOptions.FlightRecorder?) {
    state.withLock { state in
      guard let limits else { return state.recording = nil }
      if state.recording == nil { state.recording = ZoneRecording(limits: limits) }
    }
  }

  /// What the zone's flight recorder holds now; `nil` when it does not record.
  var recording: FlightRecording.Zone? {
    state.withLock { $0.recording }.map { FlightRecording.Zone(id: id, $0) }
  }

  // MARK: Inputs

  /// Starts a load on the executor; see ``RewardedAd/load()`` for the rules.
  func load() {
    context.scheduler.execute { [self] in handle(loadInput(requested: true)) }
  }

  /// Shows the best ready ad from `presenter`, on the calling thread; see
  /// ``RewardedAd/show(from:customData:)`` for the rules.
  func show(from presenter: any AdPresenting, customData: String?) throws(MediationError) {
    let effects = transition(.show(customData: customData, screen: context.takeScreen(for: id)))
    var refusal: ZoneEffect.ShowRefusal?
    for effect in effects {
      switch effect {
      case .refuseShow(let reason): refusal = reason
      case .present(let ready): present(ready, from: presenter, customData: customData)
      default: perform([effect])
      }
    }
    switch refusal {
    case nil: return
    case .error(let error): throw error
    case .removed(let reason):
      var error = MediationError.unknownZone(id, known: context.zoneIDs())
      error.message = "\(reason); " + error.message
      throw error
    }
  }

  /// Un-readies load `loadID`'s ad at once, on the caller's thread, so that ``isReady`` and
  /// ``show(from:customData:)`` never see it again; publishes on the executor.
  func withdraw(loadID: Int, entry: Int, reason: AdapterWithdrawal) {
    handle(.withdrawn(RequestID(load: loadID, entry: entry), reason), performingOnExecutor: true)
  }

  /// Swaps in the setup `zone` and `config` make (``Mediator/apply(_:)``, a network registered or
  /// unregistered); `change`, when given, is published as a `configurationApplied` diagnostic.
  func reconfigure(_ zone: ZoneConfig, in config: MediationConfig, change: String?) {
    let (adapters, infos) = context.adaptersAndInfos
    let setup = ZoneSetup(
      zone: zone, in: config, userID: context.userID, adapters: adapters, infos: infos,
      seed: context.options.seed)
    handle(.apply(.configuration(setup, note: change)), performingOnExecutor: true)
  }

  /// Resolves the zone's arms again for the user now set (``Mediator/setUserID(_:)``), from the
  /// configured zone of the current setup. Like an apply, the load in flight finishes on its own
  /// plan; unlike one, nothing is withdrawn or cancelled: a ready ad from the previous arm stays
  /// showable (``ZoneSetup/withdrawalReason(of:adapter:)`` knows every arm's line items).
  func userChanged(in config: MediationConfig) {
    let previous = state.withLock { $0.machine.setup }
    let userID = context.userID
    guard !previous.base.experiments.isEmpty, previous.userID != userID else { return }
    let setup = ZoneSetup(
      zone: previous.base, in: config, userID: userID, adapters: previous.networkAdapters,
      infos: previous.networkInfos, seed: context.options.seed)
    handle(.apply(.user(setup)))
  }

  /// Takes the zone out of the configuration, for `reason`, until a configuration brings it back.
  func retire(reason: String) {
    handle(.apply(.removed(reason: reason)), performingOnExecutor: true)
  }

  /// See ``RewardedAd/acknowledge(_:)->()``.
  func acknowledge(_ reward: Reward) {
    context.acknowledgeReward(transactionID: reward.transactionID, zoneIDs: [id])
  }

  /// See ``RewardedAd/acknowledge(_:)->Bool``.
  func acknowledge(_ reward: Reward) async throws(MediationError) -> Bool {
    try await context.acknowledgeReward(transactionID: reward.transactionID)
  }

  // MARK: The one lock round, and the effects after it

  /// One input, one lock round; then its effects, here or (for an input from any thread whose
  /// effects publish) on the executor.
  private func handle(_ input: ZoneInput, performingOnExecutor: Bool = false) {
    let effects = transition(input)
    guard !effects.isEmpty else { return }
    if performingOnExecutor {
      context.scheduler.execute { [self] in perform(effects) }
    } else {
      perform(effects)
    }
  }

  private func transition(_ input: ZoneInput) -> [ZoneEffect] {
    let now = context.scheduler.now
    return state.withLock { state in
      guard state.recording != nil else { return state.machine.handle(input, now: now) }
      let record = state.recording!.willHandle(input, by: state.machine)
      let effects = state.machine.handle(input, now: now)
      state.recording!.didHandle(record, now: now, effects: effects, atRest: state.machine.isAtRest)
      return effects
    }
  }

  /// What a load asks of the engine when it starts: the networks' start-up and the privacy
  /// signals, read now.
  private func loadInput(requested: Bool) -> ZoneInput {
    let (networks, privacy) = context.loadConditions
    return .load(requested: requested, networks: networks, privacy: privacy)
  }

  private func perform(_ effects: [ZoneEffect]) {
    for effect in effects {
      switch effect {
      case .startAuction(let load):
        handle(.auctionStarted(load: load, auctionID: context.nextAuctionID()))
      case .send(let request):
        send(request)
      case .cancel(let handle):
        handle.cancel()
      case .arm(let timer, let delay):
        let scheduled = context.scheduler.schedule(after: delay) { [weak self] in
          self?.handle(.timerFired(timer))
        }
        handle(.timerArmed(timer, Handle(scheduled)))
      case .publish(let event, let network, let arms):
        context.publish(id, network, event, arms: arms)
      case .publishShow(let event, let ready, let zone):
        context.publish(event, of: ready, zone: zone)
      case .recordReward(let payload, let ready, let zone):
        context.publish(.rewarded(payload), of: ready, zone: zone)
      case .failRemoved(let prefix):
        var error = MediationError.unknownZone(id, known: context.zoneIDs())
        error.message = prefix + error.message
        context.publish(id, nil, .failed(error))
      case .discard(let ad):
        ad.discard()
      case .releaseScreen:
        context.releaseScreen(from: id)
      case .reload:
        handle(loadInput(requested: false))
      case .present, .refuseShow:
        // Only a show asks for these, and ``show(from:customData:)`` performs them itself.
        break
      }
    }
  }

  /// Sends a bid or load request, once its network has started: a request to a network still
  /// starting waits for it (its timeout keeps running), one to a network that did not start is
  /// skipped at once.
  private func send(_ request: ZoneEffect.Request) {
    let id = request.id
    if request.admit {
      let admission = context.admit(request.network) {
        { [weak self] refusal in self?.handle(.startEnded(id, refusal: refusal)) }
      }
      switch admission {
      case .proceed: break
      case .refuse(let reason): return handle(.notStarted(id, reason: reason))
      case .wait(let wait): return handle(.awaitingStart(id, Handle(wait)))
      }
    }
    let scheduler = context.scheduler
    let sent: Cancellable
    switch request.kind {
    case .bid:
      sent = request.adapter.bid(request.request) { [weak self] result in
        guard let self else { return }
        scheduler.execute { self.handle(.bidAnswered(id, result)) }
      }
    case .load:
      var load = request.request
      load.sink = sink(ofAd: id)
      sent = request.adapter.load(load) { [weak self] result in
        guard let self else { return }
        scheduler.execute {
          switch result {
          case .success(let loaded): self.handle(.loaded(id, LoadedAd(loaded)))
          case .failure(let error): self.handle(.loadFailed(id, error))
          }
        }
      }
    }
    handle(.sent(id, Handle(sent)))
  }

  /// Puts `ready` on screen; its show is given the sink its load was.
  private func present(_ ready: ReadyAd, from presenter: any AdPresenting, customData: String?) {
    ready.loaded.ad.show(
      AdapterShowRequest(zoneID: id, customData: customData, userID: context.userID), from: presenter,
      signals: sink(ofAd: ready.request))
  }

  /// The one sink of the ad request `id` loads, named by its load: a withdrawal un-readies the ad
  /// on the caller's thread, signals hop onto the executor. Made again for the show, the same.
  private func sink(ofAd id: RequestID) -> AdapterSignal.Sink {
    let scheduler = context.scheduler
    // Weak: an SDK may keep the sink after the ad is discarded and the zone is gone.
    return AdapterSignal.Sink(
      show: AdapterSignal.Sink.ShowID(zoneID: self.id, number: id.load),
      signals: { [weak self] signal in
        guard let self else { return }
        scheduler.execute { self.handle(.signal(ad: id.load, signal)) }
      },
      withdrawals: { [weak self] reason in
        self?.withdraw(loadID: id.load, entry: id.entry, reason: reason)
      })
  }
}
