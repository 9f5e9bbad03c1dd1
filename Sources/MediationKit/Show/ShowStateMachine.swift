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
public struct ShowStateMachine: Sendable, Equatable {
  /// Where the show is.
  public enum Phase: Sendable, Equatable {
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
  public enum Input: Sendable, Equatable {
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
  public enum Event: Sendable, Equatable {
    case shown
    case clicked
    case revenuePaid(ImpressionRevenue)
    case rewarded(NetworkReward?)
    case closed
    case skipped
    case showFailed(MediationError)
    case diagnostic(Diagnostic)
  }

  /// What the owner of the machine must do.
  public enum Action: Sendable, Equatable {
    /// Deliver an event to the app.
    case emit(Event)
    /// Start the grace-window timer; feed ``Input/graceWindowEnded`` when it fires.
    case startGraceTimer(Duration)
    /// Cancel the grace-window timer.
    case cancelGraceTimer
    /// Cancel the display timeout.
    case cancelDisplayTimer
  }

  /// How long a reward-less dismissal is held for a late reward.
  public let graceWindow: Duration
  /// The current phase.
  public private(set) var phase: Phase = .awaitingDisplay
  /// Whether `rewarded` was emitted.
  public private(set) var didReward = false
  private var didReportRevenue = false

  /// Creates a machine for one show.
  /// - Parameter graceWindow: How long to wait for a reward after a reward-less dismissal.
  public init(graceWindow: Duration) {
    self.graceWindow = graceWindow
  }

  /// Whether the show is over.
  public var isFinished: Bool { phase == .finished }

  /// Feeds one input and returns the actions to perform, in order.
  public mutating func handle(_ input: Input) -> [Action] {
    switch (phase, input) {
    case (.finished, .signal(let signal)):
      return [.emit(.diagnostic(afterTerminal(signal)))]
    case (.finished, _):
      return []

    case (.displayed, .showTimeoutEnded):
      return dismiss(
        note: Diagnostic(
          .endedByCore, "no dismissal reported within the maximum show duration; ended by the core"))
    case (_, .showTimeoutEnded):
      return []

    case (.awaitingDisplay, .displayTimeoutEnded):
      phase = .finished
      return [
        .emit(.showFailed(MediationError(.displayTimeout, "the network never reported the ad on screen")))
      ]
    case (_, .displayTimeoutEnded):
      return []

    case (.awaitingDisplay, .signal(.displayed)):
      phase = .displayed
      return [.cancelDisplayTimer, .emit(.shown)]
    case (.awaitingDisplay, .signal(.showFailed(let error))):
      phase = .finished
      return [.cancelDisplayTimer, .emit(.showFailed(Self.showError(error)))]
    case (.awaitingDisplay, .signal(let signal)):
      phase = .displayed
      let implied = Diagnostic(
        .impliedDisplay, "\(Self.name(of: signal)) arrived before the display; shown implied")
      return [.cancelDisplayTimer, .emit(.shown), .emit(.diagnostic(implied))] + handle(input)
    case (.awaitingDisplay, .graceWindowEnded):
      return []

    case (.displayed, .signal(let signal)), (.awaitingLateReward, .signal(let signal)):
      return handleOnScreen(signal)

    case (.awaitingLateReward, .graceWindowEnded):
      phase = .finished
      return [.emit(.skipped)]
    case (.displayed, .graceWindowEnded):
      return []
    }
  }

  private mutating func handleOnScreen(_ signal: AdapterSignal) -> [Action] {
    switch signal {
    case .displayed:
      return [.emit(.diagnostic(Diagnostic(.duplicateSignal, "displayed reported twice")))]
    case .clicked:
      return [.emit(.clicked)]
    case .revenuePaid(let revenue):
      if didReportRevenue {
        return [.emit(.diagnostic(Diagnostic(.duplicateSignal, "revenue reported twice; kept the first")))]
      }
      didReportRevenue = true
      return [.emit(.revenuePaid(revenue))]
    case .rewarded(let payload):
      if didReward {
        return [.emit(.diagnostic(Diagnostic(.duplicateReward, "reward reported again; granted once")))]
      }
      didReward = true
      if phase == .awaitingLateReward {
        phase = .finished
        return [.cancelGraceTimer, .emit(.rewarded(payload)), .emit(.closed)]
      }
      return [.emit(.rewarded(payload))]
    case .dismissed:
      return dismiss(note: nil)
    case .showFailed(let error):
      return dismiss(
        note: Diagnostic(.outOfOrderSignal, "show failed after display (\(error)); treated as dismissal"))
    }
  }

  private mutating func dismiss(note: Diagnostic?) -> [Action] {
    let prefix: [Action] = note.map { [.emit(.diagnostic($0))] } ?? []
    if phase == .awaitingLateReward {
      return prefix + [.emit(.diagnostic(Diagnostic(.duplicateSignal, "dismissed reported twice")))]
    }
    if didReward {
      phase = .finished
      return prefix + [.emit(.closed)]
    }
    if graceWindow <= .zero {
      phase = .finished
      return prefix + [.emit(.skipped)]
    }
    phase = .awaitingLateReward
    return prefix + [.startGraceTimer(graceWindow)]
  }

  private func afterTerminal(_ signal: AdapterSignal) -> Diagnostic {
    if case .rewarded = signal {
      return didReward
        ? Diagnostic(.duplicateReward, "reward reported again after close; granted once")
        : Diagnostic(.lateReward, "reward arrived after the dismissal was final; not granted")
    }
    return Diagnostic(.signalAfterTerminal, "\(Self.name(of: signal)) after the show ended; ignored")
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
