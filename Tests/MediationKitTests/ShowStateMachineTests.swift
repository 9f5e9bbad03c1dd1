import Foundation
import MediationKit
import MediationKitTesting
import Testing

@Suite("ShowStateMachine")
struct ShowStateMachineTests {
  typealias Input = ShowStateMachine.Input
  typealias Event = ShowStateMachine.Event

  static let reward = AdapterSignal.NetworkReward(type: "coins", amount: 10)
  static let revenue = AdapterSignal.ImpressionRevenue(usd: 0.01, precision: .exact)
  static let failure = AdapterError(.internalError, message: "boom")

  /// Runs `inputs` and returns the emitted events (timers are inputs here, not actions).
  static func events(_ inputs: [Input], grace: Duration = .seconds(5)) -> [Event] {
    var machine = ShowStateMachine(graceWindow: grace)
    return inputs.flatMap { machine.handle($0) }.compactMap {
      if case .emit(let event) = $0 { return event }
      return nil
    }
  }

  static func names(_ events: [Event]) -> [String] {
    events.map { event in
      switch event {
      case .shown: "shown"
      case .clicked: "clicked"
      case .revenuePaid: "revenue"
      case .rewarded: "rewarded"
      case .closed: "closed"
      case .skipped: "skipped"
      case .showFailed: "showFailed"
      case .diagnostic(let d): "diag:\(d.kind.rawValue)"
      }
    }
  }

  @Test func happyPath() {
    let events = Self.events([
      .signal(.displayed), .signal(.clicked), .signal(.revenuePaid(Self.revenue)),
      .signal(.rewarded(Self.reward)),
      .signal(.dismissed),
    ])
    #expect(Self.names(events) == ["shown", "clicked", "revenue", "rewarded", "closed"])
    #expect(events[3] == .rewarded(Self.reward))
  }

  @Test func dismissWithoutRewardWaitsForGraceThenSkips() {
    var machine = ShowStateMachine(graceWindow: .seconds(5))
    _ = machine.handle(.signal(.displayed))
    #expect(machine.handle(.signal(.dismissed)) == [.startGraceTimer(.seconds(5))])
    #expect(machine.phase == .awaitingLateReward)
    #expect(machine.handle(.graceWindowEnded) == [.emit(.skipped)])
    #expect(machine.isFinished)
  }

  @Test func rewardInsideGraceWindowYieldsRewardedThenClosed() {
    var machine = ShowStateMachine(graceWindow: .seconds(5))
    _ = machine.handle(.signal(.displayed))
    _ = machine.handle(.signal(.dismissed))
    #expect(
      machine.handle(.signal(.rewarded(nil))) == [.cancelGraceTimer, .emit(.rewarded(nil)), .emit(.closed)])
    #expect(machine.handle(.graceWindowEnded) == [])
  }

  @Test func rewardAfterGraceWindowIsADiagnosticNotAGrant() {
    let events = Self.events([
      .signal(.displayed), .signal(.dismissed), .graceWindowEnded, .signal(.rewarded(nil)),
    ])
    #expect(Self.names(events) == ["shown", "skipped", "diag:late_reward"])
  }

  @Test func zeroGraceWindowSkipsAtOnce() {
    let events = Self.events([.signal(.displayed), .signal(.dismissed)], grace: .zero)
    #expect(Self.names(events) == ["shown", "skipped"])
  }

  @Test func doubleRewardIsGrantedOnce() {
    let events = Self.events([
      .signal(.displayed), .signal(.rewarded(nil)), .signal(.rewarded(nil)), .signal(.dismissed),
      .signal(.rewarded(nil)),
    ])
    #expect(
      Self.names(events) == ["shown", "rewarded", "diag:duplicate_reward", "closed", "diag:duplicate_reward"])
  }

  @Test func showFailureBeforeDisplayIsTerminal() {
    let events = Self.events([
      .signal(.showFailed(Self.failure)), .signal(.displayed), .signal(.rewarded(nil)),
    ])
    #expect(Self.names(events) == ["showFailed", "diag:signal_after_terminal", "diag:late_reward"])
  }

  @Test func showFailureCodesMapToMediationErrors() {
    let another = Self.events([
      .signal(.showFailed(AdapterError(.anotherAdShowing, vendorCode: -23, message: "x")))
    ])
    guard case .showFailed(let error) = another.first else {
      Issue.record("expected showFailed")
      return
    }
    #expect(error.code == .anotherAdShowing)
  }

  @Test func showFailureAfterDisplayCountsAsDismissal() {
    let events = Self.events([
      .signal(.displayed), .signal(.rewarded(nil)), .signal(.showFailed(Self.failure)),
    ])
    #expect(Self.names(events) == ["shown", "rewarded", "diag:out_of_order_signal", "closed"])
  }

  @Test func displayTimeoutFailsTheShow() {
    let events = Self.events([.displayTimeoutEnded, .signal(.displayed)])
    #expect(Self.names(events) == ["showFailed", "diag:signal_after_terminal"])
    if case .showFailed(let error) = events[0] { #expect(error.code == .displayTimeout) }
  }

  @Test func aShowWithoutDismissalIsEndedAfterTheMaximumDuration() {
    let rewarded = Self.events([.signal(.displayed), .signal(.rewarded(nil)), .showTimeoutEnded])
    #expect(Self.names(rewarded) == ["shown", "rewarded", "diag:ended_by_core", "closed"])
    let unrewarded = Self.events([.signal(.displayed), .showTimeoutEnded, .graceWindowEnded])
    #expect(Self.names(unrewarded) == ["shown", "diag:ended_by_core", "skipped"])
    #expect(Self.names(Self.events([.showTimeoutEnded])) == [])
  }

  @Test func displayTimeoutAfterDisplayIsIgnored() {
    let events = Self.events([
      .signal(.displayed), .displayTimeoutEnded, .signal(.dismissed), .graceWindowEnded,
    ])
    #expect(Self.names(events) == ["shown", "skipped"])
  }

  @Test func signalsBeforeDisplayImplyIt() {
    let events = Self.events([.signal(.rewarded(nil)), .signal(.dismissed)])
    #expect(Self.names(events) == ["shown", "diag:implied_display", "rewarded", "closed"])
  }

  @Test func duplicateRevenueIsReportedOnce() {
    let events = Self.events([
      .signal(.displayed), .signal(.revenuePaid(Self.revenue)), .signal(.revenuePaid(Self.revenue)),
    ])
    #expect(Self.names(events) == ["shown", "revenue", "diag:duplicate_signal"])
  }

  // MARK: One revenue per impression

  static let estimate = AdapterSignal.ImpressionRevenue(usd: 0.012, precision: .publisherDefined)

  /// Runs `inputs` on a machine holding the core's estimate and returns the emitted events.
  static func events(_ inputs: [Input], networkReportsRevenue: Bool) -> [Event] {
    var machine = ShowStateMachine(
      graceWindow: .seconds(5),
      revenue: .init(estimate: Self.estimate, networkReportsRevenue: networkReportsRevenue))
    return inputs.flatMap { machine.handle($0) }.compactMap {
      if case .emit(let event) = $0 { return event }
      return nil
    }
  }

  @Test func theEstimateIsPublishedBeforeTheShowsNextEvent() {
    let rewarded = Self.events(
      [.signal(.displayed), .signal(.rewarded(nil)), .signal(.dismissed)], networkReportsRevenue: false)
    #expect(Self.names(rewarded) == ["shown", "revenue", "rewarded", "closed"])
    #expect(rewarded[1] == .revenuePaid(Self.estimate))
    let clicked = Self.events([.signal(.displayed), .signal(.clicked)], networkReportsRevenue: false)
    #expect(Self.names(clicked) == ["shown", "revenue", "clicked"])
    let skipped = Self.events(
      [.signal(.displayed), .signal(.dismissed), .graceWindowEnded], networkReportsRevenue: false)
    #expect(Self.names(skipped) == ["shown", "revenue", "skipped"])
  }

  @Test func theNetworksFigureBeforeThenReplacesTheEstimate() {
    for declared in [false, true] {
      let events = Self.events(
        [
          .signal(.displayed), .signal(.revenuePaid(Self.revenue)), .signal(.rewarded(nil)),
          .signal(.dismissed),
        ], networkReportsRevenue: declared)
      #expect(Self.names(events) == ["shown", "revenue", "rewarded", "closed"])
      #expect(events[1] == .revenuePaid(Self.revenue))
    }
  }

  @Test func aFigureAfterThePublishedEstimateIsADiagnostic() {
    let events = Self.events(
      [
        .signal(.displayed), .signal(.rewarded(nil)), .signal(.revenuePaid(Self.revenue)),
        .signal(.dismissed),
      ],
      networkReportsRevenue: false)
    #expect(Self.names(events) == ["shown", "revenue", "rewarded", "diag:duplicate_signal", "closed"])
    #expect(events[1] == .revenuePaid(Self.estimate))
  }

  @Test func aDeclaringNetworkIsWaitedForUntilTheTerminalEvent() {
    let reported = Self.events(
      [
        .signal(.displayed), .signal(.rewarded(nil)), .signal(.revenuePaid(Self.revenue)),
        .signal(.dismissed),
      ],
      networkReportsRevenue: true)
    #expect(Self.names(reported) == ["shown", "rewarded", "revenue", "closed"])
    #expect(reported[2] == .revenuePaid(Self.revenue))
    let missing = Self.events(
      [.signal(.displayed), .signal(.rewarded(nil)), .signal(.dismissed)], networkReportsRevenue: true)
    #expect(Self.names(missing) == ["shown", "rewarded", "diag:missing_revenue", "revenue", "closed"])
    #expect(missing[3] == .revenuePaid(Self.estimate))
    let inGrace = Self.events(
      [.signal(.displayed), .signal(.dismissed), .signal(.rewarded(nil))], networkReportsRevenue: true)
    #expect(Self.names(inGrace) == ["shown", "rewarded", "diag:missing_revenue", "revenue", "closed"])
  }

  @Test func aShowThatNeverDisplaysHasNoRevenue() {
    for declared in [false, true] {
      let timedOut = Self.events([.displayTimeoutEnded], networkReportsRevenue: declared)
      #expect(Self.names(timedOut) == ["showFailed"])
      let failed = Self.events([.signal(.showFailed(Self.failure))], networkReportsRevenue: declared)
      #expect(Self.names(failed) == ["showFailed"])
    }
  }

  @Test func duplicateDismissalDuringGraceIsADiagnostic() {
    let events = Self.events([
      .signal(.displayed), .signal(.dismissed), .signal(.dismissed), .graceWindowEnded,
    ])
    #expect(Self.names(events) == ["shown", "diag:duplicate_signal", "skipped"])
  }

  /// Every sequence of up to six inputs keeps the reward contract, and grants exactly once when
  /// a reward arrived before the dismissal became final.
  @Test(arguments: [false, true]) func everyInputOrderKeepsTheContract(networkReportsRevenue: Bool) throws {
    let alphabet: [Input] = [
      .signal(.displayed), .signal(.clicked), .signal(.revenuePaid(Self.revenue)), .signal(.rewarded(nil)),
      .signal(.dismissed), .signal(.showFailed(Self.failure)), .graceWindowEnded, .displayTimeoutEnded,
      .showTimeoutEnded,
    ]
    var checked = 0
    func visit(_ prefix: [Input], _ machine: ShowStateMachine, _ events: [Event], rewardBeforeFinal: Bool)
      throws
    {
      checked += 1
      let appEvents = events.map(Self.appEvent)
      try RewardContract.verify(appEvents, requireFinished: false)
      let grants = appEvents.filter { if case .rewarded = $0 { true } else { false } }.count
      #expect(grants == (rewardBeforeFinal ? 1 : 0), "inputs: \(prefix)")
      if machine.isFinished {
        #expect(appEvents.filter(\.isTerminal).count == 1, "inputs: \(prefix)")
      }
      guard prefix.count < 6 else { return }
      for input in alphabet {
        var next = machine
        let wasFinished = next.isFinished
        let emitted = next.handle(input).compactMap { action -> Event? in
          if case .emit(let event) = action { return event }
          return nil
        }
        var rewarded = rewardBeforeFinal
        if case .signal(.rewarded) = input, !wasFinished { rewarded = true }
        try visit(prefix + [input], next, events + emitted, rewardBeforeFinal: rewarded)
      }
    }
    let machine = ShowStateMachine(
      graceWindow: .seconds(5),
      revenue: .init(estimate: Self.estimate, networkReportsRevenue: networkReportsRevenue))
    try visit([], machine, [], rewardBeforeFinal: false)
    #expect(checked == (0...6).reduce(0) { $0 + Int(pow(Double(alphabet.count), Double($1))) })
  }

  static func appEvent(_ event: Event) -> RewardedAdEvent {
    let info = AdInfo(zoneID: "z", network: "n", placementID: "p", ecpm: 1, responses: [], latency: .zero)
    switch event {
    case .shown: return .shown(info)
    case .clicked: return .clicked
    case .revenuePaid(let r):
      return .revenuePaid(
        RewardedAdEvent.Revenue(
          network: "n", zoneID: "z", placementID: "p", usd: r.usd, precision: r.precision))
    case .rewarded: return .rewarded(Reward(type: "coins", amount: 1, transactionID: "t", network: "n"))
    case .closed: return .closed
    case .skipped: return .skipped
    case .showFailed(let e): return .showFailed(e)
    case .diagnostic(let d): return .diagnostic(d)
    }
  }
}

@Suite("RewardContract names the broken invariant")
struct RewardContractTests {
  static let info = AdInfo(
    zoneID: "z", network: "n", placementID: "p", ecpm: 1, responses: [], latency: .zero)
  static let reward = RewardedAdEvent.rewarded(
    Reward(type: "coins", amount: 1, transactionID: "t", network: "n"))
  static let revenue = RewardedAdEvent.revenuePaid(
    RewardedAdEvent.Revenue(network: "n", zoneID: "z", placementID: "p", usd: 0.01, precision: .exact))

  @Test(arguments: [
    ([RewardedAdEvent.shown(info), reward, reward, .closed], Invariant.atMostOneReward),
    ([.shown(info), .closed], .rewardBeforeClose),
    ([.shown(info), reward, .skipped], .noSkipAfterReward),
    ([.shown(info), revenue, .skipped, reward], .eventsDuringShow),
    ([.shown(info), revenue, reward, revenue, .closed], .oneRevenuePerImpression),
    ([.shown(info), reward, .closed], .oneRevenuePerImpression),
    ([.shown(info), .skipped], .oneRevenuePerImpression),
    ([.shown(info), .shown(info)], .oneTerminalPerShow),
    ([.shown(info)], .oneTerminalPerShow),
  ])
  func violationsAreNamed(events: [RewardedAdEvent], invariant: Invariant) {
    let violation = #expect(throws: RewardContractViolation.self) { try RewardContract.verify(events) }
    #expect(violation?.invariant == invariant)
  }

  @Test func aGoodSequencePasses() throws {
    try RewardContract.verify([
      .loading, .ready(Self.info), .shown(Self.info), .clicked, Self.revenue, Self.reward, .closed,
      .diagnostic(RewardedAdEvent.Diagnostic(.lateReward, "x")),
    ])
  }
}
