import MediationKit
import MediationKitTesting
import Testing

/// One scripted adapter signal, `offset` after the show call.
struct SignalStep: Equatable, CustomStringConvertible {
  var offset: Duration
  var signal: AdapterSignal

  var description: String {
    let name: String
    switch signal {
    case .displayed: name = "displayed"
    case .clicked: name = "clicked"
    case .revenuePaid: name = "revenue"
    case .rewarded(let payload): name = payload == nil ? "rewarded" : "rewarded(payload)"
    case .dismissed: name = "dismissed"
    case .showFailed(let error): name = "showFailed(\(error.kind.rawValue))"
    }
    return "\(Int(offset.seconds * 1000))ms \(name)"
  }
}

/// Random signal sequences and the outcome the reward contract demands for each.
///
/// Offsets are whole multiples of 10 ms while the display timeout and the grace windows end on
/// an odd 5 ms, so no signal ever ties with a timer and the expected outcome is unambiguous.
enum SignalSequences {
  static let displayTimeout = Duration.milliseconds(10_005)
  /// Grace windows in seconds, as a zone configures them (0: a reward-less dismissal is final at once).
  static let graceWindows: [Double] = [0, 1.005, 5.005, 30.005]
  static let revenue = AdapterSignal.ImpressionRevenue(usd: 0.02, precision: .exact)
  /// The core's estimate in these tests: a 10 USD eCPM line item.
  static let estimate = AdapterSignal.ImpressionRevenue(usd: 0.01, precision: .publisherDefined)
  static let payload = AdapterSignal.NetworkReward(type: "gems", amount: 3)
  static let failures: [AdapterError] = [
    AdapterError(.internalError, message: "boom"),
    AdapterError(.anotherAdShowing, vendorCode: -23, message: "busy"),
    AdapterError(.expired, message: "stale"), AdapterError(.notReady, message: "not ready"),
  ]

  static func randomSignal(_ random: inout SeededRandom) -> AdapterSignal {
    switch random.next() % 8 {
    case 0: .displayed
    case 1: .clicked
    case 2: .revenuePaid(revenue)
    case 3: .rewarded(nil)
    case 4: .rewarded(payload)
    case 5, 6: .dismissed
    default: .showFailed(failures[Int(random.next() % UInt64(failures.count))])
    }
  }

  /// A whole number of 10 ms steps in `0..<upperMilliseconds`.
  static func offset(_ random: inout SeededRandom, below upperMilliseconds: Int64) -> Duration {
    .milliseconds(Int64(random.next() % UInt64(upperMilliseconds / 10)) * 10)
  }

  /// A seeded sequence: either plausible (display, reward around the dismissal, duplicates, late
  /// ones beyond the grace window and the late-signal window) or entirely random.
  static func generate(_ random: inout SeededRandom, grace: Double) -> [SignalStep] {
    var steps: [SignalStep] = []
    if random.chance(0.35) {
      let count = Int(random.next() % 12)
      for _ in 0..<count {
        steps.append(SignalStep(offset: offset(&random, below: 40_000), signal: randomSignal(&random)))
      }
      return steps
    }
    let display = offset(&random, below: 12_000)
    if !random.chance(0.1) { steps.append(SignalStep(offset: display, signal: .displayed)) }
    let dismissal = display + offset(&random, below: 30_000)
    if random.chance(0.5) { steps.append(SignalStep(offset: dismissal, signal: .revenuePaid(revenue))) }
    if random.chance(0.3) { steps.append(SignalStep(offset: display + .milliseconds(10), signal: .clicked)) }
    let graceMilliseconds = Int64(grace * 1000)
    let rewardAt: Duration? =
      switch random.next() % 5 {
      case 0: nil
      case 1: dismissal + offset(&random, below: max(graceMilliseconds, 10))  // inside the window
      case 2: dismissal + .milliseconds(graceMilliseconds + 10) + offset(&random, below: 90_000)  // too late
      default: display + offset(&random, below: max((dismissal - display).milliseconds, 10))  // on screen
      }
    if let rewardAt {
      steps.append(SignalStep(offset: rewardAt, signal: .rewarded(random.chance(0.5) ? payload : nil)))
    }
    steps.append(
      SignalStep(offset: dismissal, signal: random.chance(0.85) ? .dismissed : randomSignal(&random)))
    for _ in 0..<Int(random.next() % 4) {  // duplicates and stragglers, up to 90 s late
      steps.append(SignalStep(offset: offset(&random, below: 90_000), signal: randomSignal(&random)))
    }
    // Shuffle the script: same-offset steps then play in a random order.
    for index in steps.indices.reversed() where index > 0 {
      steps.swapAt(index, Int(random.next() % UInt64(index + 1)))
    }
    return steps
  }

  /// How a show must end.
  enum Outcome: String { case open, closed, skipped, showFailed }

  /// The outcome the contract demands, from first principles (not from the state machine):
  /// the ad is displayed by its first signal unless that is a show failure or comes after the
  /// display timeout; the first dismissal (or failure after display) ends it, at once after a
  /// reward, else when the grace window closes; a reward before then is granted exactly once.
  static func expected(_ steps: [SignalStep], grace: Duration) -> (outcome: Outcome, granted: Bool) {
    let ordered = sorted(steps)
    guard let first = ordered.first, first.offset < displayTimeout else { return (.showFailed, false) }
    if case .showFailed = first.signal { return (.showFailed, false) }
    var rewarded = false
    var dismissedAt: Duration?
    for step in ordered {
      if let dismissedAt {
        if step.offset >= dismissedAt + grace { return (.skipped, false) }
        if case .rewarded = step.signal { return (.closed, true) }
        continue
      }
      switch step.signal {
      case .rewarded: rewarded = true
      case .dismissed, .showFailed:
        if rewarded { return (.closed, true) }
        if grace <= .zero { return (.skipped, false) }
        dismissedAt = step.offset
      default: break
      }
    }
    return dismissedAt == nil ? (.open, rewarded) : (.skipped, false)
  }

  /// The steps in playing order: by offset, script order within one offset.
  static func sorted(_ steps: [SignalStep]) -> [SignalStep] {
    steps.enumerated().sorted { ($0.element.offset, $0.offset) < ($1.element.offset, $1.offset) }.map(
      \.element)
  }

  /// Simpler versions of a step for the shrinker: a plain reward, an earlier offset.
  static func simpler(_ step: SignalStep) -> [SignalStep] {
    var candidates: [SignalStep] = []
    if case .rewarded(.some) = step.signal {
      candidates.append(SignalStep(offset: step.offset, signal: .rewarded(nil)))
    }
    if case .showFailed(let error) = step.signal, error != failures[0] {
      candidates.append(SignalStep(offset: step.offset, signal: .showFailed(failures[0])))
    }
    let tenths = step.offset.milliseconds / 10
    if tenths > 0 {
      candidates.append(SignalStep(offset: .milliseconds(tenths / 2 * 10), signal: step.signal))
    }
    return candidates
  }
}

/// The reward contract's invariants over one show's app events, from the show call on.
enum ShowInvariants {
  /// The first broken invariant of a show still in progress (or over), if any.
  /// - Parameter gateHeld: Whether the full-screen gate is held now, when known.
  static func check(_ events: [RewardedAdEvent], gateHeld: Bool?) -> String? {
    do {
      try RewardContract.verify(events, requireFinished: false)
    } catch {
      return "contract: \(error)"
    }
    let rewards = events.filter { if case .rewarded = $0 { true } else { false } }.count
    if rewards > 1 { return "\(rewards) rewarded events in one show" }
    let revenues = events.filter { if case .revenuePaid = $0 { true } else { false } }.count
    if revenues > 1 {
      return "\(Invariant.oneRevenuePerImpression): \(revenues) revenue_paid in one impression"
    }
    let terminals = events.indices.filter { events[$0].isTerminal }
    if terminals.count > 1 { return "\(terminals.count) terminal events in one show" }
    if let terminal = terminals.first {
      for event in events[(terminal + 1)...] {
        if case .diagnostic = event { continue }
        return "\(event.name) after the terminal event"
      }
    }
    if let gateHeld, gateHeld != terminals.isEmpty {
      return gateHeld ? "full-screen gate still held after the terminal event" : "gate released mid-show"
    }
    return nil
  }

  /// The invariants plus the demanded outcome, once every signal and timer has played.
  /// - Parameter networkSentRevenue: Whether the network sent a revenue figure at all (if not, the
  ///   one `revenue_paid` of a displayed show must be the core's estimate).
  static func checkFinal(
    _ events: [RewardedAdEvent], expected: (outcome: SignalSequences.Outcome, granted: Bool), gateHeld: Bool?,
    networkSentRevenue: Bool
  ) -> String? {
    if let violation = check(events, gateHeld: gateHeld) { return violation }
    let terminal = events.first(where: \.isTerminal)
    let outcome: SignalSequences.Outcome =
      switch terminal {
      case .closed: .closed
      case .skipped: .skipped
      case .showFailed: .showFailed
      default: .open
      }
    if outcome != expected.outcome {
      return "ended \(outcome.rawValue), expected \(expected.outcome.rawValue)"
    }
    let granted = events.contains { if case .rewarded = $0 { true } else { false } }
    if outcome != .open && granted != expected.granted {
      return expected.granted
        ? "reward reported before the dismissal was final but not granted" : "granted a reward"
    }
    let revenue = events.compactMap { if case .revenuePaid(let revenue) = $0 { revenue.usd } else { nil } }
    switch outcome {
    case .closed, .skipped:
      if revenue.count != 1 {
        return "\(Invariant.oneRevenuePerImpression): \(revenue.count) revenue_paid for a shown impression"
      }
      if !networkSentRevenue && revenue != [SignalSequences.estimate.usd] {
        return
          "\(Invariant.oneRevenuePerImpression): the network sent no figure, yet \(revenue) is not the estimate"
      }
    case .showFailed where !revenue.isEmpty:
      return "\(Invariant.oneRevenuePerImpression): revenue_paid for an impression never shown"
    default: break
    }
    return nil
  }
}

@Suite("Property tests")
struct PropertyTests {
  static let machineRuns = 6_000
  static let facadeRuns = 1_500

  /// What a sequence exercises: its outcome, and for rewards whether they came on screen,
  /// inside the grace window, or too late.
  static func kind(_ steps: [SignalStep], grace graceSeconds: Double) -> String {
    let grace = Duration.seconds(graceSeconds)
    let expected = SignalSequences.expected(steps, grace: grace)
    let ordered = SignalSequences.sorted(steps)
    guard expected.outcome != .showFailed,
      let dismissal = ordered.firstIndex(where: { $0.signal == .dismissed })
    else { return expected.outcome.rawValue }
    let lateReward = ordered[(dismissal + 1)...].contains {
      if case .rewarded = $0.signal { true } else { false }
    }
    switch (expected.outcome, lateReward) {
    case (.closed, true)
    where !ordered[..<dismissal].contains { if case .rewarded = $0.signal { true } else { false } }:
      return "granted in grace window"
    case (.skipped, true): return "reward too late"
    default: return expected.outcome.rawValue
    }
  }

  /// The generator reaches every outcome, often enough to matter.
  static func expectCoverage(_ outcomes: [String: Int], runs: Int) {
    for kind in ["open", "closed", "skipped", "showFailed", "granted in grace window", "reward too late"] {
      #expect(
        outcomes[kind, default: 0] >= runs / 50, "only \(outcomes[kind, default: 0]) × \(kind) in \(outcomes)"
      )
    }
  }

  // MARK: The state machine directly

  static func appEvent(_ event: ShowStateMachine.Event) -> RewardedAdEvent {
    switch event {
    case .shown:
      .shown(AdInfo(zoneID: "z", network: "n", placementID: "p", ecpm: 1, responses: [], latency: .zero))
    case .clicked: .clicked
    case .revenuePaid(let r):
      .revenuePaid(
        RewardedAdEvent.Revenue(
          network: "n", zoneID: "z", placementID: "p", usd: r.usd, precision: r.precision))
    case .rewarded: .rewarded(Reward(type: "coins", amount: 1, transactionID: "t", network: "n"))
    case .closed: .closed
    case .skipped: .skipped
    case .showFailed(let error): .showFailed(error)
    case .diagnostic(let diagnostic): .diagnostic(diagnostic)
    }
  }

  /// Plays `steps` through a bare ``ShowStateMachine``, running its timers as its actions ask,
  /// and returns the first broken invariant, checked after every input.
  static func machineViolation(_ steps: [SignalStep], graceSeconds: Double, reportsRevenue: Bool) -> String? {
    let grace = Duration.seconds(graceSeconds)
    var machine = ShowStateMachine(
      graceWindow: grace,
      revenue: .init(estimate: SignalSequences.estimate, networkReportsRevenue: reportsRevenue))
    var displayTimer: Duration? = SignalSequences.displayTimeout
    var graceTimer: Duration?
    var events: [RewardedAdEvent] = []
    func feed(_ input: ShowStateMachine.Input, at now: Duration) -> String? {
      let wasFinished = machine.isFinished
      for action in machine.handle(input) {
        switch action {
        case .emit(let event): events.append(appEvent(event))
        case .startGraceTimer(let duration):
          if graceTimer != nil { return "grace timer started twice" }
          if wasFinished { return "grace timer started after the terminal event" }
          graceTimer = now + duration
        case .cancelGraceTimer: graceTimer = nil
        case .cancelDisplayTimer: displayTimer = nil
        }
      }
      if machine.isFinished != events.contains(where: \.isTerminal) {
        return "machine finished=\(machine.isFinished) disagrees with its events"
      }
      return ShowInvariants.check(events, gateHeld: nil)
    }
    /// Fires the timers due before `time`, earliest first.
    func fireTimers(before time: Duration?) -> String? {
      while true {
        let due = [
          displayTimer.map { ($0, ShowStateMachine.Input.displayTimeoutEnded) },
          graceTimer.map { ($0, .graceWindowEnded) },
        ]
        .compactMap { $0 }.filter { time == nil || $0.0 < time! }.min { $0.0 < $1.0 }
        guard let (at, input) = due else { return nil }
        if input == .displayTimeoutEnded { displayTimer = nil } else { graceTimer = nil }
        if let violation = feed(input, at: at) { return violation }
      }
    }
    for step in SignalSequences.sorted(steps) {
      if let violation = fireTimers(before: step.offset) ?? feed(.signal(step.signal), at: step.offset) {
        return violation
      }
    }
    if let violation = fireTimers(before: nil) { return violation }
    return ShowInvariants.checkFinal(
      events, expected: SignalSequences.expected(steps, grace: grace), gateHeld: nil,
      networkSentRevenue: steps.contains { if case .revenuePaid = $0.signal { true } else { false } })
  }

  @Test func stateMachineKeepsTheContractOnRandomSequences() {
    var outcomes: [String: Int] = [:]
    for run in 0..<Self.machineRuns {
      let seed = 0x5EED_0000 + UInt64(run)
      var random = SeededRandom(seed: seed)
      let grace = SignalSequences.graceWindows[Int(random.next() % 4)]
      let steps = SignalSequences.generate(&random, grace: grace)
      let reportsRevenue = random.chance(0.5)
      outcomes[Self.kind(steps, grace: grace), default: 0] += 1
      let fails = { (candidate: [SignalStep]) -> String? in
        Self.machineViolation(candidate, graceSeconds: grace, reportsRevenue: reportsRevenue)
      }
      guard let violation = fails(steps) else { continue }
      let minimal = Shrink.sequence(steps, simpler: SignalSequences.simpler) { fails($0) != nil }
      let report = """
        ShowStateMachine: seed \(seed), grace \(grace) s, network reports revenue: \(reportsRevenue): \(violation)
        shortest failing sequence: \(minimal) → \(fails(minimal) ?? "?")
        """
      print(report)
      Issue.record(Comment(rawValue: report))
      return
    }
    Self.expectCoverage(outcomes, runs: Self.machineRuns)
  }

  // MARK: The whole facade

  /// Loads and shows one ad whose network plays `steps`, checking the invariants and the
  /// full-screen gate after every step and at the end, then proves the next load and show work.
  /// With `autoECPM` the zone learns its eCPMs, and a dearer line item that never fills comes
  /// first until the zone has learned so.
  static func facadeViolation(
    _ steps: [SignalStep], graceSeconds: Double, reportsRevenue: Bool, seed: UInt64, autoECPM: Bool = false
  ) throws -> String? {
    let script = ScriptedAdapter.ShowScript(steps.map { ($0.offset, $0.signal) })
    var zone = zone([item("net", "p", ecpm: 10)], grace: graceSeconds)
    if autoECPM {
      zone.autoECPM = true
      zone.lineItems.append(item("net", "never-fills", ecpm: 20))
    }
    let harness = try Harness(
      zones: [zone],
      options: MediatorOptions(displayTimeout: SignalSequences.displayTimeout, seed: seed)
    ) { scheduler in
      [
        ScriptedAdapter(
          id: "net", scheduler: scheduler, loads: ["p": [.fill(after: .seconds(1))]], show: script,
          capabilities: reportsRevenue ? [.rewarded, .impressionRevenue] : [.rewarded])
      ]
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle(.seconds(2))
    guard ad.isReady else { return "the load did not fill" }
    let before = harness.recorder.events(zone: "z").count
    try ad.show(from: HeadlessPresenter())
    let start = harness.scheduler.now
    func showEvents() -> [RewardedAdEvent] { Array(harness.recorder.events(zone: "z")[before...]) }
    let times = Set(steps.map(\.offset) + [SignalSequences.displayTimeout]).sorted()
    for time in times {
      harness.scheduler.advance(by: start + time - harness.scheduler.now)
      if let violation = ShowInvariants.check(showEvents(), gateHeld: harness.mediator.isAnyAdShowing) {
        return "at \(Int(time.seconds * 1000))ms: \(violation)"
      }
    }
    harness.scheduler.advance(by: .seconds(120))  // past every grace window and the late-signal window
    let expected = SignalSequences.expected(steps, grace: .seconds(graceSeconds))
    if let violation = ShowInvariants.checkFinal(
      showEvents(), expected: expected, gateHeld: harness.mediator.isAnyAdShowing,
      networkSentRevenue: steps.contains { if case .revenuePaid = $0.signal { true } else { false } })
    {
      return violation
    }
    guard expected.outcome != .open else { return nil }  // still on screen: no next show to try
    harness.adapters["net"]!.setShowScript(.completes)
    let next = harness.recorder.events(zone: "z").count
    ad.load()
    harness.settle(.seconds(2))
    guard ad.isReady else { return "the next load did not fill" }
    try ad.show(from: HeadlessPresenter())
    harness.scheduler.advance(by: .seconds(120))
    let names = harness.recorder.names(zone: "z")[next...].filter {
      $0 != "diagnostic" && $0 != "revenue_paid"
    }
    if Array(names) != ["loading", "ready", "shown", "rewarded", "closed"] || harness.mediator.isAnyAdShowing
    {
      return "the next load and show did not complete: \(Array(names))"
    }
    return nil
  }

  @Test(arguments: [false, true])
  func facadeKeepsTheContractOnRandomScripts(autoECPM: Bool) throws {
    var outcomes: [String: Int] = [:]
    for run in 0..<Self.facadeRuns {
      let seed = 0xFACADE_0000 + UInt64(run)
      var random = SeededRandom(seed: seed)
      let grace = SignalSequences.graceWindows[Int(random.next() % 4)]
      let reportsRevenue = random.chance(0.5)
      let steps = SignalSequences.generate(&random, grace: grace)
      outcomes[Self.kind(steps, grace: grace), default: 0] += 1
      let fails = { (candidate: [SignalStep]) throws -> String? in
        try Self.facadeViolation(
          candidate, graceSeconds: grace, reportsRevenue: reportsRevenue, seed: seed, autoECPM: autoECPM)
      }
      guard let violation = try fails(steps) else { continue }
      let minimal = try Shrink.sequence(steps, simpler: SignalSequences.simpler) { try fails($0) != nil }
      let report = """
        RewardedAd.show: seed \(seed), grace \(grace) s, network reports revenue: \(reportsRevenue), autoECPM: \(autoECPM): \(violation)
        shortest failing sequence: \(minimal) → \(try fails(minimal) ?? "?")
        """
      print(report)
      Issue.record(Comment(rawValue: report))
      return
    }
    Self.expectCoverage(outcomes, runs: Self.facadeRuns)
  }

  /// The oracle itself, on hand-written cases, so a wrong expectation cannot hide a bug.
  @Test func expectedOutcomesFollowTheContract() {
    typealias S = SignalStep
    let grace = Duration.seconds(5.005)
    func expect(_ steps: [S], _ outcome: SignalSequences.Outcome, _ granted: Bool, grace: Duration = grace) {
      let result = SignalSequences.expected(steps, grace: grace)
      #expect(result.outcome == outcome && result.granted == granted, "\(steps)")
    }
    expect([], .showFailed, false)
    expect([S(offset: .seconds(11), signal: .displayed)], .showFailed, false)
    expect([S(offset: .zero, signal: .showFailed(SignalSequences.failures[0]))], .showFailed, false)
    expect([S(offset: .zero, signal: .displayed)], .open, false)
    expect(
      [S(offset: .zero, signal: .displayed), S(offset: .seconds(1), signal: .dismissed)], .skipped, false)
    expect(
      [S(offset: .seconds(2), signal: .rewarded(nil)), S(offset: .seconds(1), signal: .dismissed)], .closed,
      true)
    expect(
      [S(offset: .seconds(7), signal: .rewarded(nil)), S(offset: .seconds(1), signal: .dismissed)], .skipped,
      false)
    expect(
      [S(offset: .seconds(2), signal: .rewarded(nil)), S(offset: .seconds(1), signal: .dismissed)], .skipped,
      false,
      grace: .zero)
    expect(
      [S(offset: .seconds(1), signal: .rewarded(nil)), S(offset: .seconds(1), signal: .dismissed)], .closed,
      true)
  }
}
