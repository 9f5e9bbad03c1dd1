/// The per-show state machine: turns an adapter's signals, in whatever order and number they
/// come, into app events that keep the reward contract.
///
/// A pure value type: feed it inputs, perform the actions it returns. The rules:
/// - The first `displayed` emits `shown`; a click, revenue, reward or dismissal before it implies
///   the display (emits `shown` first, with an `impliedDisplay` diagnostic).
/// - The first `rewarded` emits `rewarded`; later ones are `duplicateReward` diagnostics.
/// - `dismissed` after the reward emits `closed`. Without a reward it starts the grace window:
///   a reward inside it emits `rewarded` then `closed`; when it ends, `skipped` — and a reward
///   after that is a `lateReward` diagnostic, never a grant. A zero window skips at once.
/// - `showFailed` before display emits `showFailed`; after display it counts as a dismissal.
/// - No display within the display timeout emits `showFailed(displayTimeout)`.
/// - A displayed show with no dismissal within the maximum show duration is ended as dismissed.
/// - After the terminal event (`closed`, `skipped`, `showFailed`) only diagnostics come out.
/// - A displayed show reports its revenue exactly once (``RevenueRule``): the network's first
///   figure if it comes in time, else the core's estimate; a later figure is a diagnostic.
package struct ShowStateMachine: Sendable, Equatable {
  /// Where the show is.
  package enum Phase: Sendable, Equatable {
    /// Show requested; waiting for the network to display the ad.
    case awaitingDisplay
    /// On screen.
    case displayed
    /// Dismissed without a reward; holding the dismissal for the grace window.
    case awaitingLateReward
    /// Over: the terminal event was emitted.
    case finished
  }

  /// Something that happened to the show.
  package enum Input: Sendable, Equatable {
    /// An adapter signal.
    case signal(AdapterSignal)
    /// The grace window after a reward-less dismissal ended.
    case graceWindowEnded
    /// The display timeout passed.
    case displayTimeoutEnded
    /// The show stayed open longer than the maximum show duration.
    case showTimeoutEnded
  }

  /// An app-facing event of one show, before the core attaches zone details.
  package enum Event: Sendable, Equatable {
    case shown
    case clicked
    case revenuePaid(AdapterSignal.ImpressionRevenue)
    case rewarded(AdapterSignal.NetworkReward?)
    case closed
    case skipped
    case showFailed(MediationError)
    case diagnostic(RewardedAdEvent.Diagnostic)
  }

  /// What the owner of the machine must do.
  package enum Action: Sendable, Equatable {
    /// Deliver an event to the app.
    case emit(Event)
    /// Start the grace-window timer; feed ``Input/graceWindowEnded`` when it fires.
    case startGraceTimer(Duration)
    /// Cancel the grace-window timer.
    case cancelGraceTimer
    /// Cancel the display timeout.
    case cancelDisplayTimer
  }

  /// How the show's one `revenuePaid` is chosen: the network's figure or the core's estimate,
  /// decided per impression.
  ///
  /// The core holds its estimate instead of publishing it at display, so that a network figure
  /// arriving a little later can take its place:
  /// - the network's first ``AdapterSignal/revenuePaid(_:)`` before the revenue was published is
  ///   published, and the estimate is dropped;
  /// - otherwise the estimate is published just before the first event that follows `shown`
  ///   (a click, the reward or the terminal event) — or, when the network declares
  ///   ``AdapterInfo/Capability/impressionRevenue``, just before the terminal event only, since its
  ///   figure is expected (and missing it is reported with a diagnostic);
  /// - a network figure after the revenue was published is a `duplicateSignal` diagnostic.
  package struct RevenueRule: Sendable, Equatable {
    /// The core's estimate for the impression (the winning price / 1000); `nil`: the core has
    /// none, so only the network's figure is published.
    package var estimate: AdapterSignal.ImpressionRevenue?
    /// The network declares ``AdapterInfo/Capability/impressionRevenue``: hold the estimate until the
    /// terminal event.
    package var networkReportsRevenue: Bool

    package init(estimate: AdapterSignal.ImpressionRevenue?, networkReportsRevenue: Bool) {
      self.estimate = estimate
      self.networkReportsRevenue = networkReportsRevenue
    }

    /// Only the network's figures, no estimate.
    package static let networkOnly = RevenueRule(estimate: nil, networkReportsRevenue: true)
  }

  /// How long a reward-less dismissal is held for a late reward.
  package let graceWindow: Duration
  /// How the show's revenue is chosen.
  package let revenueRule: RevenueRule
  /// The current phase.
  package private(set) var phase: Phase = .awaitingDisplay
  /// Whether `rewarded` was emitted.
  package private(set) var didReward = false
  /// Whether the show's `revenuePaid` was emitted (the network's figure or the estimate).
  package private(set) var didReportRevenue = false

  /// Creates a machine for one show.
  /// - Parameters:
  ///   - graceWindow: How long to wait for a reward after a reward-less dismissal.
  ///   - revenue: How the show's one `revenuePaid` is chosen.
  package init(graceWindow: Duration, revenue: RevenueRule = .networkOnly) {
    self.graceWindow = graceWindow
    self.revenueRule = revenue
  }

  /// A machine for a show that is over, as a flight recording's checkpoint restores one: it only
  /// turns late signals into diagnostics, which depend on whether it rewarded.
  static func ended(graceWindow: Duration, revenue: RevenueRule, didReward: Bool, didReportRevenue: Bool)
    -> ShowStateMachine
  {
    var machine = ShowStateMachine(graceWindow: graceWindow, revenue: revenue)
    machine.phase = .finished
    machine.didReward = didReward
    machine.didReportRevenue = didReportRevenue
    return machine
  }

  /// Whether the show is over.
  package var isFinished: Bool { phase == .finished }

  /// Feeds one input and returns the actions to perform, in order.
  package mutating func handle(_ input: Input) -> [Action] {
    var actions: [Action] = []
    handle(input, into: &actions)
    return actions
  }

  /// Feeds one input and appends the actions to perform, in order, to `actions` (one array per
  /// input, whatever the rules combine).
  mutating func handle(_ input: Input, into actions: inout [Action]) {
    switch (phase, input) {
    case (.finished, .signal(let signal)):
      actions.append(.emit(.diagnostic(afterTerminal(signal))))
    case (.finished, _):
      break

    case (.displayed, .showTimeoutEnded):
      dismiss(
        note: RewardedAdEvent.Diagnostic(
          .endedByCore, "no dismissal reported within the maximum show duration; ended by the core"),
        into: &actions)
    case (_, .showTimeoutEnded):
      break

    case (.awaitingDisplay, .displayTimeoutEnded):
      phase = .finished
      actions.append(
        .emit(.showFailed(MediationError(.displayTimeout, "the network never reported the ad on screen"))))
    case (_, .displayTimeoutEnded):
      break

    case (.awaitingDisplay, .signal(.displayed)):
      phase = .displayed
      actions.append(.cancelDisplayTimer)
      actions.append(.emit(.shown))
    case (.awaitingDisplay, .signal(.showFailed(let error))):
      phase = .finished
      actions.append(.cancelDisplayTimer)
      actions.append(.emit(.showFailed(Self.showError(error))))
    case (.awaitingDisplay, .signal(let signal)):
      phase = .displayed
      let implied = RewardedAdEvent.Diagnostic(
        .impliedDisplay, "\(Self.name(of: signal)) arrived before the display; shown implied")
      actions.append(.cancelDisplayTimer)
      actions.append(.emit(.shown))
      actions.append(.emit(.diagnostic(implied)))
      handle(input, into: &actions)
    case (.awaitingDisplay, .graceWindowEnded):
      break

    case (.displayed, .signal(let signal)), (.awaitingLateReward, .signal(let signal)):
      handleOnScreen(signal, into: &actions)

    case (.awaitingLateReward, .graceWindowEnded):
      phase = .finished
      releaseEstimate(terminal: true, into: &actions)
      actions.append(.emit(.skipped))
    case (.displayed, .graceWindowEnded):
      break
    }
  }

  private mutating func handleOnScreen(_ signal: AdapterSignal, into actions: inout [Action]) {
    switch signal {
    case .displayed:
      actions.append(
        .emit(.diagnostic(RewardedAdEvent.Diagnostic(.duplicateSignal, "displayed reported twice"))))
    case .clicked:
      releaseEstimate(terminal: false, into: &actions)
      actions.append(.emit(.clicked))
    case .revenuePaid(let revenue):
      if didReportRevenue {
        actions.append(
          .emit(
            .diagnostic(
              RewardedAdEvent.Diagnostic(
                .duplicateSignal,
                "revenue reported after the impression's revenue was published; kept the first"))))
        return
      }
      didReportRevenue = true
      actions.append(.emit(.revenuePaid(revenue)))
    case .rewarded(let payload):
      if didReward {
        actions.append(
          .emit(
            .diagnostic(RewardedAdEvent.Diagnostic(.duplicateReward, "reward reported again; granted once"))))
        return
      }
      didReward = true
      releaseEstimate(terminal: false, into: &actions)
      if phase == .awaitingLateReward {
        phase = .finished
        actions.append(.cancelGraceTimer)
        actions.append(.emit(.rewarded(payload)))
        releaseEstimate(terminal: true, into: &actions)
        actions.append(.emit(.closed))
        return
      }
      actions.append(.emit(.rewarded(payload)))
    case .dismissed:
      dismiss(note: nil, into: &actions)
    case .showFailed(let error):
      dismiss(
        note: RewardedAdEvent.Diagnostic(
          .outOfOrderSignal,
          "show failed after display (\(MessageFormat.excerpt("\(error)"))); treated as dismissal"),
        into: &actions)
    }
  }

  private mutating func dismiss(note: RewardedAdEvent.Diagnostic?, into actions: inout [Action]) {
    if let note { actions.append(.emit(.diagnostic(note))) }
    if phase == .awaitingLateReward {
      actions.append(
        .emit(.diagnostic(RewardedAdEvent.Diagnostic(.duplicateSignal, "dismissed reported twice"))))
      return
    }
    if didReward {
      phase = .finished
      releaseEstimate(terminal: true, into: &actions)
      actions.append(.emit(.closed))
      return
    }
    if graceWindow <= .zero {
      phase = .finished
      releaseEstimate(terminal: true, into: &actions)
      actions.append(.emit(.skipped))
      return
    }
    phase = .awaitingLateReward
    actions.append(.startGraceTimer(graceWindow))
  }

  /// Publishes the held estimate, before an event after `shown` (`terminal`: the show's terminal
  /// event), when ``RevenueRule`` says it is due: before any such event, or — for a network that reports revenue itself — before the terminal
  /// event only.
  private mutating func releaseEstimate(terminal: Bool, into actions: inout [Action]) {
    guard !didReportRevenue, let estimate = revenueRule.estimate else { return }
    guard terminal || !revenueRule.networkReportsRevenue else { return }
    didReportRevenue = true
    if revenueRule.networkReportsRevenue {
      actions.append(
        .emit(
          .diagnostic(
            RewardedAdEvent.Diagnostic(
              .missingRevenue,
              "the network declares impression revenue but reported none for this impression; published the core's estimate"
            ))))
    }
    actions.append(.emit(.revenuePaid(estimate)))
  }

  private func afterTerminal(_ signal: AdapterSignal) -> RewardedAdEvent.Diagnostic {
    if case .rewarded = signal {
      return didReward
        ? RewardedAdEvent.Diagnostic(.duplicateReward, "reward reported again after close; granted once")
        : RewardedAdEvent.Diagnostic(.lateReward, "reward arrived after the dismissal was final; not granted")
    }
    return RewardedAdEvent.Diagnostic(
      .signalAfterTerminal, "\(Self.name(of: signal)) after the show ended; ignored")
  }

  private static func showError(_ error: AdapterError) -> MediationError {
    switch error.kind {
    case .anotherAdShowing: MediationError(.anotherAdShowing, "network refused: \(error)")
    case .expired: MediationError(.expired, "network refused: \(error)")
    case .notReady: MediationError(.notReady, "network refused: \(error)")
    default: MediationError(.showFailed, "\(error)")
    }
  }

  static func name(of signal: AdapterSignal) -> String {
    switch signal {
    case .displayed: "displayed"
    case .clicked: "clicked"
    case .revenuePaid: "revenue"
    case .rewarded: "rewarded"
    case .dismissed: "dismissed"
    case .showFailed: "show failed"
    }
  }
}
