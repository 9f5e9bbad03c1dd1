import Synchronization

/// Drives one show: feeds adapter signals and timers into a ``ShowStateMachine`` on the
/// scheduler and publishes what it emits.
final class ShowSession: Sendable {
  private struct State {
    var machine: ShowStateMachine
    var graceTimer: Cancellable?
  }

  private let ready: ZoneController.ReadyAd
  private let zone: ZoneConfig
  private let context: EngineContext
  private let onFinish: @Sendable (ShowSession) -> Void
  private let estimateRevenue: Bool
  /// The zone's display-timeout and show-duration timers, armed for this show; their actions
  /// feed ``ShowStateMachine/Input/displayTimeoutEnded`` and ``ShowStateMachine/Input/showTimeoutEnded``
  /// to the zone's current show.
  private let displayTimer: any SchedulerTimer
  private let showTimer: any SchedulerTimer
  private let state: Locked<State>

  /// - Parameters:
  ///   - graceWindow: The zone's reward grace window (``ZoneConfig/rewardGraceSeconds``).
  ///   - estimateRevenue: Whether the core reports the impression's revenue from the winning
  ///     price, for networks that do not report it themselves.
  init(
    ready: ZoneController.ReadyAd, zone: ZoneConfig, graceWindow: Duration, context: EngineContext,
    estimateRevenue: Bool, displayTimer: any SchedulerTimer, showTimer: any SchedulerTimer,
    onFinish: @escaping @Sendable (ShowSession) -> Void
  ) {
    self.displayTimer = displayTimer
    self.showTimer = showTimer
    self.ready = ready
    self.zone = zone
    self.context = context
    self.estimateRevenue = estimateRevenue
    self.onFinish = onFinish
    self.state = Locked(State(machine: ShowStateMachine(graceWindow: graceWindow)))
  }

  /// Starts the display timeout and asks the adapter to show.
  func begin(from presenter: any AdPresenting, customData: String?) {
    displayTimer.arm(after: context.options.displayTimeout)
    showTimer.arm(after: context.options.maxShowDuration)
    let scheduler = context.scheduler
    // Weak: the SDK may keep the sink after the ad is discarded; the zone keeps the session alive
    // for the show and the late-signal window after it.
    let sink = AdapterSignalSink { [weak self] signal in
      guard let self else { return }
      // `runOnExecutor`, spelled out: a signal sent from a scheduled action (the usual case) is
      // handled at once, without allocating a closure for it.
      if scheduler.isCurrentExecutor {
        receive(.signal(signal))
      } else {
        scheduler.execute { [self] in receive(.signal(signal)) }
      }
    }
    ready.loaded.ad.show(
      AdapterShowRequest(zoneID: zone.id, customData: customData, userID: context.userID), from: presenter,
      signals: sink)
  }

  /// Feeds `input` to the machine and performs what it asks.
  func receive(_ input: ShowStateMachine.Input) {
    let (actions, finished) = state.withLock { state in
      let wasFinished = state.machine.isFinished
      let actions = state.machine.handle(input)
      return (actions, !wasFinished && state.machine.isFinished)
    }
    // For networks that do not report revenue, the core reports the impression's revenue from
    // the winning price, right after the first `shown` (published here rather than inserted into
    // the machine's action list, which would reallocate it).
    var revenueDue = estimateRevenue
    for action in actions {
      switch action {
      case .emit(let event):
        publish(event)
        if revenueDue, case .shown = event {
          revenueDue = false
          publish(
            .revenuePaid(ImpressionRevenue(usd: ready.info.ecpm / 1000, precision: ready.info.precision)))
        }
      case .startGraceTimer(let duration):
        let timer = context.scheduler.schedule(after: duration) { [self] in receive(.graceWindowEnded) }
        state.withLock { $0.graceTimer = timer }
      case .cancelGraceTimer:
        state.withLock { $0.graceTimer.take() }?.cancel()
      case .cancelDisplayTimer:
        displayTimer.disarm()
      }
    }
    if finished {
      state.withLock { $0.graceTimer.take() }?.cancel()
      displayTimer.disarm()
      showTimer.disarm()
      onFinish(self)
    }
  }

  private func publish(_ event: ShowStateMachine.Event) {
    let network = ready.info.network
    let appEvent: RewardedAdEvent
    switch event {
    case .shown: appEvent = .shown(ready.info)
    case .clicked: appEvent = .clicked
    case .revenuePaid(let revenue):
      appEvent = .revenuePaid(
        AdRevenue(
          network: network, zoneID: zone.id, placementID: ready.info.placementID, usd: revenue.usd,
          precision: revenue.precision))
    case .rewarded(let payload):
      let reward = Reward(
        type: zone.reward.type, amount: zone.reward.amount, transactionID: context.nextTransactionID(),
        network: network, networkReward: payload)
      context.publishReward(reward, zoneID: zone.id)
      return
    case .closed: appEvent = .closed
    case .skipped: appEvent = .skipped
    case .showFailed(let error): appEvent = .showFailed(error)
    case .diagnostic(let diagnostic): appEvent = .diagnostic(diagnostic)
    }
    context.publish(zone.id, network, appEvent)
  }
}
