/// Showing: frequency caps, the one show on screen with its ``ShowStateMachine``, and the
/// late-signal window that keeps an ended show's ad until the network's late callbacks are in.
extension ZoneController {
  /// See ``RewardedAd/acknowledge(_:)->()``.
  func acknowledge(_ reward: Reward) {
    context.acknowledgeReward(transactionID: reward.transactionID, zoneIDs: [id])
  }

  /// See ``RewardedAd/acknowledge(_:)->Bool``.
  func acknowledge(_ reward: Reward) async throws(MediationError) -> Bool {
    try await context.acknowledgeReward(transactionID: reward.transactionID)
  }

  /// Shows the best-priced unexpired ad of the queue (``AdQueue/best(now:)``); see
  /// ``RewardedAd/show(from:customData:)`` for the rules. One show at a time: the ad is taken out
  /// of the queue in the same lock round that claims the screen, so two shows never share an ad.
  func show(from presenter: any AdPresenting, customData: String?) throws(MediationError) {
    let now = context.scheduler.now
    let (setup, removal) = setups.withLock { ($0.current, $0.removal) }
    if let removal {
      var error = MediationError.unknownZone(id, known: context.zoneIDs())
      error.message = "\(removal); " + error.message
      throw error
    }
    let caps = setup.zone.caps
    // One lock round: the checks, taking the ad and starting its session, so nothing can slip in
    // between (a withdrawal or expiry finds the ad on screen, not ready and not gone).
    let (ready, showID) = try state.withLock { state throws(MediationError) -> (ReadyAd, Int) in
      let ready = try state.lifecycle.queue.showable(zoneID: id, now: now, loading: state.lifecycle.isLoading)
      if let caps {
        state.showTimes.removeAll { $0 <= now - .seconds(86_400) }
        if let wait = FrequencyCapCheck.wait(caps: caps, showTimes: state.showTimes, now: now) {
          throw MediationError(
            .capped,
            "zone '\(id)': \(wait.reason); next show allowed in \(MessageFormat.duration(wait.duration))",
            retryAfter: wait.duration)
        }
      }
      guard context.fullScreen.acquire(id) else {
        let other = context.fullScreen.current ?? "?"
        throw MediationError(.anotherAdShowing, "zone '\(id)': another ad is showing (zone '\(other)')")
      }
      state.lifecycle.queue.take(ready, leaving: .shown)
      state.armExpiry(now: now)
      state.lifecycle.consecutiveWithdrawals = 0
      if caps != nil { state.showTimes.append(now) }
      state.lastShowID += 1
      state.session = ShowSession(
        id: state.lastShowID, ready: ready,
        machine: ShowStateMachine(graceWindow: setup.rewardGrace, revenue: ready.revenue), setup: setup)
      state.timers?.display.arm(after: context.options.displayTimeout)
      state.timers?.showDuration.arm(after: context.options.maxShowDuration)
      return (ready, state.lastShowID)
    }
    let scheduler = context.scheduler
    // Weak: the SDK may keep the sink after the ad is discarded.
    let sink = AdapterSignalSink(show: AdapterShowID(zoneID: id, number: showID)) { [weak self] signal in
      guard let self else { return }
      // `Scheduler.runOnExecutor` inlined: its escaping closure would allocate on every signal.
      if scheduler.isCurrentExecutor {
        receive(.signal(signal), show: showID)
      } else {
        scheduler.execute { [self] in receive(.signal(signal), show: showID) }
      }
    }
    ready.loaded.ad.show(
      AdapterShowRequest(zoneID: id, customData: customData, userID: context.userID), from: presenter,
      signals: sink)
  }

  /// Feeds `input` to show `showID` (the show on screen when `nil`, for its timers) and performs
  /// what its machine asks; a show past its late-signal window ignores it.
  func receive(_ input: ShowStateMachine.Input, show showID: Int?) {
    var actions: [ShowStateMachine.Action] = []
    // Room for the most an input asks for (shown, revenue, reward, closed), allocated once.
    actions.reserveCapacity(4)
    // The session is changed and read in place: copying it out would retain each of its fields.
    let handled = state.withLock { state -> HandledInput? in
      if let current = state.session?.id, showID == nil || current == showID {
        let wasFinished = state.session!.machine.isFinished
        state.session!.machine.handle(input, into: &actions)
        state.apply(timerActionsOf: actions)
        // Ended by this input (a later one, delivered while the show's end is being published,
        // only adds diagnostics).
        let ended = !wasFinished && state.session!.machine.isFinished
        return HandledInput(
          ready: state.session!.ready, setup: state.session!.setup, ended: ended ? state.session : nil)
      }
      guard let showID, let index = state.lingering.firstIndex(where: { $0.session.id == showID }) else {
        return nil
      }
      state.lingering[index].session.machine.handle(input, into: &actions)
      state.apply(timerActionsOf: actions)
      return HandledInput(
        ready: state.lingering[index].session.ready, setup: state.lingering[index].session.setup, ended: nil)
    }
    guard let handled else { return }
    for action in actions {
      guard case .emit(let event) = action else { continue }
      if case .revenuePaid(let revenue) = event { learn(paid: revenue, of: handled.ready, in: handled.setup) }
      context.publish(event, of: handled.ready, zone: handled.setup.zone)
    }
    if let ended = handled.ended { showEnded(ended) }
  }

  /// What a show input leaves to do outside the lock. (A struct, not a tuple: a tuple with
  /// references in it is copied through the runtime.)
  private struct HandledInput {
    let ready: ReadyAd
    let setup: ZoneSetup
    /// The session, when this input ended it.
    let ended: ShowSession?
  }

  /// Frees the screen and preloads (refills the queue); the ad itself is discarded only after the late-signal window,
  /// so a network's late callbacks (a reward after the final dismissal) still reach the show and
  /// are reported as diagnostics.
  private func showEnded(_ session: ShowSession) {
    let window = context.options.lateSignalWindow
    let until = context.scheduler.now + window
    // The zone's state first, the screen after: a show started on another thread as soon as the
    // screen is free must find this one gone, not lose its own session and timers to it.
    state.withLock { state in
      // Not `guard let timers`: that would copy the seven timers out (a retain and release each).
      guard state.timers != nil else { return }
      if state.session?.id == session.id {
        state.timers?.grace.disarm()
        state.timers?.display.disarm()
        state.timers?.showDuration.disarm()
        state.session = nil
      }
      state.lingering.append(Lingering(until: until, session: session))
      if state.lingering.count == 1 { state.timers?.linger.arm(after: window) }
    }
    context.fullScreen.release(id)
    if autoReload { beginLoad() }
  }

  /// Discards the ads of the ended shows whose late-signal window is over and forgets them;
  /// then waits for the next one.
  func endLateSignalWindows() {
    let now = context.scheduler.now
    // The timer is armed for the oldest window only, so that one is over: even when the clock
    // stands a fraction short of its end (a scheduler counting whole nanoseconds), as re-arming
    // for that fraction would fire at once, again and again.
    var timerWindow = true
    // One show at a time (windows rarely end together), so no list of them is built.
    // The oldest window is read in place (`lingering[0]`, not `first`, which copies the show out).
    while let ended = state.withLock({ state -> ReadyAd? in
      guard !state.lingering.isEmpty else { return nil }
      if timerWindow || state.lingering[0].until <= now {
        timerWindow = false
        return state.lingering.removeFirst().session.ready
      }
      state.timers?.linger.arm(after: state.lingering[0].until - now)
      return nil
    }) {
      ended.loaded.ad.discard()
    }
  }
}

extension ZoneController.State {
  /// Arms and disarms the show timers `actions` ask for, in the same lock round as the input
  /// that produced them; the events they carry are published after the lock.
  mutating func apply(timerActionsOf actions: [ShowStateMachine.Action]) {
    for action in actions {
      switch action {
      case .emit: break
      case .startGraceTimer(let duration): timers?.grace.arm(after: duration)
      case .cancelGraceTimer: timers?.grace.disarm()
      case .cancelDisplayTimer: timers?.display.disarm()
      }
    }
  }
}
