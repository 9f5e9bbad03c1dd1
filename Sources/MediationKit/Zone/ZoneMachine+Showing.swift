/// Showing: frequency caps, the one show on screen with its ``ShowStateMachine``, and the
/// late-signal window that keeps an ended show's ad until the network's late callbacks are in.
extension ZoneMachine {
  /// Shows the best-priced unexpired ad of the queue (``AdQueue/best(now:)``). The checks, in
  /// order: the zone is in the configuration, an ad is ready, the caps allow a show, the screen is
  /// free. The ad leaves the queue in the same input that starts its session, so two shows never
  /// share an ad, and a withdrawal or expiry after it finds the ad on screen.
  mutating func show(customData: String?, screen: Screen, now: Duration, _ out: inout [ZoneEffect]) {
    func refuse(_ refusal: ZoneEffect.ShowRefusal) {
      if screen == .acquired { out.append(.releaseScreen) }
      out.append(.refuseShow(refusal))
    }
    if let removal { return refuse(.removed(removal)) }
    let ready: ReadyAd
    do {
      ready = try queue.showable(zoneID: id, now: now, loading: load != nil)
    } catch {
      return refuse(.error(error))
    }
    let caps = setup.zone.caps
    if let caps {
      showTimes.removeAll { $0 <= now - .seconds(86_400) }
      if let wait = FrequencyCapCheck.wait(caps: caps, showTimes: showTimes, now: now) {
        return refuse(
          .error(
            MediationError(
              .capped,
              "zone '\(id)': \(wait.reason); next show allowed in \(MessageFormat.duration(wait.duration))",
              retryAfter: wait.duration)))
      }
    }
    if case .taken(let other) = screen {
      return refuse(
        .error(
          MediationError(.anotherAdShowing, "zone '\(id)': another ad is showing (zone '\(other ?? "?")')")))
    }
    queue.take(ready, leaving: .shown)
    rearmExpiry(now: now, &out)
    consecutiveWithdrawals = 0
    consecutiveFailures = 0
    if caps != nil { showTimes.append(now) }
    lastShowID += 1
    session = ShowSession(
      id: lastShowID, ready: ready,
      machine: ShowStateMachine(graceWindow: setup.rewardGrace, revenue: ready.revenue), setup: setup,
      learningEpoch: learningEpoch)
    arm(.display, after: timings.displayTimeout, &out)
    arm(.showDuration, after: timings.maxShowDuration, &out)
    out.append(.present(ready))
  }

  /// Feeds `input` to show `show` (the show on screen when `nil`, for its timers); a show past
  /// its late-signal window ignores it.
  mutating func showInput(
    _ input: ShowStateMachine.Input, show: Int?, now: Duration, _ out: inout [ZoneEffect]
  ) {
    var actions: [ShowStateMachine.Action] = []
    if let current = session?.id, show == nil || current == show {
      let wasFinished = session!.machine.isFinished
      session!.machine.handle(input, into: &actions)
      applyShowTimers(actions, &out)
      emit(actions, of: session!, &out)
      // Ended by this input (a later one only adds diagnostics).
      if !wasFinished && session!.machine.isFinished { showEnded(now: now, &out) }
      return
    }
    guard let show, let index = lingering.firstIndex(where: { $0.session.id == show }) else { return }
    lingering[index].session.machine.handle(input, into: &actions)
    applyShowTimers(actions, &out)
    emit(actions, of: lingering[index].session, &out)
  }

  /// The show of the ad load `load` made: on screen, or in its late-signal window.
  func showID(ofAd load: Int) -> Int? {
    if let session, session.ready.loadID == load { return session.id }
    return lingering.first { $0.session.ready.loadID == load }?.session.id
  }

  /// Arms and disarms the show timers `actions` ask for.
  private mutating func applyShowTimers(_ actions: [ShowStateMachine.Action], _ out: inout [ZoneEffect]) {
    for action in actions {
      switch action {
      case .emit: break
      case .startGraceTimer(let duration): arm(.grace, after: duration, &out)
      case .cancelGraceTimer: disarm(.grace, &out)
      case .cancelDisplayTimer: disarm(.display, &out)
      }
    }
  }

  /// The events `actions` carry, as effects; a paid revenue also teaches the learned eCPMs.
  private mutating func emit(
    _ actions: [ShowStateMachine.Action], of session: ShowSession, _ out: inout [ZoneEffect]
  ) {
    for action in actions {
      guard case .emit(let event) = action else { continue }
      switch event {
      case .rewarded(let payload):
        out.append(.recordReward(payload, session.ready, zone: session.setup.zone))
      case .revenuePaid(let revenue):
        learn(paid: revenue, of: session.ready, epoch: session.learningEpoch)
        out.append(.publishShow(event, session.ready, zone: session.setup.zone))
      default:
        out.append(.publishShow(event, session.ready, zone: session.setup.zone))
      }
    }
  }

  /// The show on screen ended: its timers go, it waits out its late-signal window (so a network's
  /// late callbacks still reach it, as diagnostics), the screen is freed and the queue refills.
  private mutating func showEnded(now: Duration, _ out: inout [ZoneEffect]) {
    guard let ended = session else { return }
    disarm(.grace, &out)
    disarm(.display, &out)
    disarm(.showDuration, &out)
    session = nil
    let window = timings.lateSignalWindow
    lingering.append(Lingering(until: now + window, session: ended))
    if lingering.count == 1 { arm(.linger, after: window, &out) }
    out.append(.releaseScreen)
    if autoReload { out.append(.reload) }
  }

  /// Discards the ads of the ended shows whose late-signal window is over; then waits for the
  /// next one. The timer is armed for the oldest window only, so that one is over even when the
  /// clock stands a fraction short of its end (a scheduler counting whole nanoseconds): re-arming
  /// for that fraction would fire at once, again and again.
  mutating func endLateSignalWindows(now: Duration, _ out: inout [ZoneEffect]) {
    var timerWindow = true
    while !lingering.isEmpty {
      guard timerWindow || lingering[0].until <= now else {
        arm(.linger, after: lingering[0].until - now, &out)
        return
      }
      timerWindow = false
      out.append(.discard(lingering.removeFirst().session.ready.loaded.ad))
    }
  }
}
