import MediationKit

/// The conformance suite for adapter authors: one call runs an adapter through every scenario of
/// the contract — full load-and-show cycles over many seeds through a real ``Mediator`` on virtual
/// time, plus the refusal scenarios, a load asked for while the network starts, and those of
/// availability-based SDKs (back-to-back shows with
/// late callbacks, two zones on one SDK ad, an ad the SDK loses before the show) — and returns a
/// ``Report``: each violated invariant by name, and each scenario that could not run with the
/// reason (``Report/notRun``). It never throws and never fails a test itself, so it works under
/// Swift Testing, XCTest or a command line; assert on the report:
///
/// ```swift
/// @Test func conforms() {
///   let report = AdapterConformance.check(MyNetwork.registration(), placementID: "my-placement")
///   #expect(report.passed, "\(report)")
///   #expect(report.fills > 0)
/// }
/// ```
///
/// An adapter that declares ``AdapterInfo/Capability/globalListener`` or
/// ``AdapterInfo/Capability/availabilityFlag`` must also pass `lateCallbacks:` (a
/// ``LateCallbacks`` hook): without it the report fails with
/// ``Invariant/lateCallbacksChecked``, since where a late reward goes is the bug such adapters have.
public enum AdapterConformance {
  /// What the scenarios did, and every invariant they found broken.
  public struct Report: Sendable, Equatable, CustomStringConvertible {
    public var cycles = 0
    public var fills = 0
    public var rewards = 0
    public var skips = 0
    public var showFailures = 0
    public var diagnostics = 0
    /// Every broken invariant, in the order found.
    public var violations: [Violation] = []
    /// Every scenario besides the cycles, whether it ran, and what it found or why it could not
    /// run: a scenario is never skipped silently.
    public var scenarios: [ScenarioOutcome] = []

    /// Whether no invariant was broken. A scenario that applies to the adapter and could not run
    /// for want of what only the caller can give (the ``LateCallbacks`` hook of an adapter that
    /// declares ``AdapterInfo/Capability/globalListener`` or
    /// ``AdapterInfo/Capability/availabilityFlag``) is a violation
    /// (``Invariant/lateCallbacksChecked``), so the report cannot pass by omission. A scenario the
    /// network itself kept from running (it never filled, a show never displayed) is listed in
    /// ``notRun``; assert ``fills`` to catch a network that never fills.
    public var passed: Bool { violations.isEmpty }

    /// The scenarios that could not run, each with the reason.
    public var notRun: [ScenarioOutcome] { scenarios.filter { !$0.ran } }

    public var description: String {
      let head =
        "\(cycles) cycles, \(fills) fills, \(rewards) rewards, \(skips) skips, \(showFailures) show failures"
      let outcomes = scenarios.map { "  \($0)" }
      let verdict =
        violations.isEmpty
        ? [head + ": conforms"] : [head + ":"] + violations.map { "  - \($0)" }
      return (verdict + outcomes).joined(separator: "\n")
    }
  }

  /// Whether one scenario ran, and what it found or why it could not run.
  public struct ScenarioOutcome: Sendable, Equatable, CustomStringConvertible {
    /// The scenario's name, e.g. "back-to-back shows".
    public var name: String
    /// Whether it ran.
    public var ran: Bool
    /// What it found, or why it could not run.
    public var note: String

    public var description: String { "\(name): \(ran ? "ran" : "NOT RUN") — \(note)" }
  }

  /// A way to make the adapter's SDK deliver, now, a late callback of the show *before* the one
  /// on screen, for the back-to-back scenario: whatever the SDK really sends late — typically the
  /// reward of a show that already closed, as SDKs that reward after the close do; a revenue or a
  /// second close where the SDK sends those. A reward alone is enough.
  ///
  /// The kit fails the report when no delivered callback reached the first show (the hook
  /// delivered nothing, or the adapter dropped it) and when any reached the second show.
  /// Without the hook the check cannot run: for an adapter that declares
  /// ``AdapterInfo/Capability/globalListener`` or ``AdapterInfo/Capability/availabilityFlag`` that
  /// fails the report; for others it is listed in ``Report/notRun``.
  public struct LateCallbacks: Sendable {
    let deliver: @Sendable (any RewardedAdapter) -> Void

    /// - Parameter deliver: Given the adapter the mediator made (unwrapped from a
    ///   ``FaultInjectingAdapter``), makes its SDK deliver at least one late callback of the
    ///   previous show before returning (or from an action it schedules at the current time).
    public init(_ deliver: @escaping @Sendable (_ adapter: any RewardedAdapter) -> Void) {
      self.deliver = deliver
    }
  }

  /// One broken invariant, with the scenario and seed that reproduce it.
  public struct Violation: Error, Sendable, Equatable, CustomStringConvertible {
    public var invariant: Invariant
    public var scenario: String
    public var seed: UInt64
    public var detail: String

    public var description: String { "\(invariant) (\(scenario), seed \(seed)): \(detail)" }
  }

  /// Runs every scenario and reports what it found.
  ///
  /// - Parameters:
  ///   - registration: The adapter under test.
  ///   - placementID: A placement the network can fill.
  ///   - secondPlacementID: Another placement, for the two-zone exclusivity scenario
  ///     (default: `placementID` + "-b").
  ///   - ecpm: The line items' eCPM.
  ///   - seeds: One load-and-show cycle (and a follow-up cycle) per seed.
  ///   - rewardGraceSeconds: The zones' grace window for late rewards.
  ///   - lateCallbacks: How to make the SDK deliver a previous show's late callback, for the
  ///     back-to-back scenario; `nil`: that check cannot run, which fails the report of an adapter
  ///     that declares ``AdapterInfo/Capability/globalListener`` or
  ///     ``AdapterInfo/Capability/availabilityFlag``.
  public static func check(
    _ registration: AdapterRegistry.Registration, placementID: String, secondPlacementID: String? = nil,
    ecpm: Double = 10,
    seeds: ClosedRange<UInt64> = 1...100, rewardGraceSeconds: Double = 5, lateCallbacks: LateCallbacks? = nil
  ) -> Report {
    var report = Report()
    let second = secondPlacementID ?? placementID + "-b"
    let zones = [placementID, second].enumerated().map { index, placement in
      ZoneConfig(
        id: index == 0 ? "conformance" : "conformance-b",
        reward: ZoneConfig.RewardConfig(type: "coins", amount: 10),
        lineItems: [
          ZoneConfig.LineItem(network: registration.info.id, placementId: placement, priority: 0, ecpm: ecpm)
        ],
        rewardGraceSeconds: rewardGraceSeconds, autoReload: false)
    }
    for seed in seeds {
      var run = ScenarioRun(registration: registration, zones: zones, seed: seed, report: report)
      run.cycles()
      report = run.report
    }
    var run = ScenarioRun(registration: registration, zones: zones, seed: seeds.lowerBound, report: report)
    run.refusals(seeds: seeds)
    run.loadsDuringStart()
    run.consentForwarding()
    run.backToBackShows(seeds: seeds, lateCallbacks: lateCallbacks)
    run.twoZonesOneSDKAd(seeds: seeds)
    run.adGoneBeforeShow(seeds: seeds)
    return run.report
  }
}

/// The privacy snapshot the consent scenario sets: refused TCF purpose 1 where GDPR applies, a
/// GPP string for the EU TCF section, and a US Privacy string.
enum ConsentSnapshots {
  /// A TCF v2 core string (CMP 300, vendor list 150, publisher DE) consenting to no purpose.
  static let tcStringWithoutPurposes = "CP1R2oAP1R2oAEsABBENCWEgAAAAAAAAAAYgAAAAAAAA"

  static let restricted = PrivacySettings(
    hasUserConsent: true, doNotSell: true,
    iab: IABConsent(
      tcString: tcStringWithoutPurposes, gdprApplies: true, gppString: "DBABMA~" + tcStringWithoutPurposes,
      gppSectionIDs: [2], usPrivacyString: "1YYN"))
}

/// One scenario's mediator on virtual time, recording violations into a report.
struct ScenarioRun {
  let registration: AdapterRegistry.Registration
  let zones: [ZoneConfig]
  let seed: UInt64
  var report: AdapterConformance.Report

  func makeMediator(
    zones: [ZoneConfig]? = nil, registration: AdapterRegistry.Registration? = nil, seed: UInt64? = nil
  ) -> (VirtualScheduler, Mediator, EventRecorder)? {
    let scheduler = VirtualScheduler()
    guard let registry = try? AdapterRegistry([registration ?? self.registration]),
      let mediator = try? Mediator(
        config: MediationConfig(zones: zones ?? self.zones), registry: registry, scheduler: scheduler,
        options: MediatorOptions(seed: seed ?? self.seed, transactionIDs: .seeded))
    else { return nil }
    return (scheduler, mediator, EventRecorder(mediator))
  }

  mutating func outcome(_ name: String, ran: Bool, _ note: String) {
    report.scenarios.append(AdapterConformance.ScenarioOutcome(name: name, ran: ran, note: note))
  }

  mutating func fail(_ invariant: Invariant, _ scenario: String, _ detail: String) {
    report.violations.append(
      AdapterConformance.Violation(invariant: invariant, scenario: scenario, seed: seed, detail: detail))
  }

  /// A cycle, then another on the same mediator: every per-cycle invariant.
  mutating func cycles() {
    guard let (scheduler, mediator, recorder) = makeMediator(),
      let ad = try? mediator.rewardedAd(zone: zones[0].id)
    else {
      fail(.nextCycleWorks, "cycle", "could not build a mediator for \(registration.info.id)")
      return
    }
    for cycle in 1...2 {
      let scenario = cycle == 1 ? "cycle" : "next cycle"
      let before = recorder.events(zone: ad.zoneID).count
      let started = scheduler.now
      ad.load()
      scheduler.run(until: started + .seconds(zones[0].loadTimeoutSeconds))
      let loadEvents = recorder.events(zone: ad.zoneID).dropFirst(before).filter {
        ["ready", "failed"].contains($0.name)
      }
      if loadEvents.count != 1 {
        fail(
          .loadEndsOnceWithinBudget, scenario, "the load ended \(loadEvents.count) times within its budget")
        return
      }
      if ad.isReady {
        report.fills += 1
        do {
          try ad.show(from: HeadlessPresenter())
        } catch {
          fail(.nextCycleWorks, scenario, "a ready ad refused to show: \(error)")
          return
        }
        scheduler.run(until: scheduler.now + .seconds(600))
        if mediator.isAnyAdShowing { fail(.screenReleased, scenario, "the full-screen slot is still taken") }
        do throws(MediationError) {
          try ad.show(from: HeadlessPresenter())
          fail(.singleUse, scenario, "the shown ad was shown again")
        } catch {
          if error.code != .alreadyUsed {
            fail(.singleUse, scenario, "expected already_used, got \(error.code)")
          }
        }
      }
      let events = Array(recorder.events(zone: ad.zoneID).dropFirst(before))
      do {
        try RewardContract.verify(events)
      } catch {
        fail(error.invariant, scenario, "\(error.rule) in \(events.map(\.name))")
        return
      }
      report.cycles += 1
      for event in events {
        switch event {
        case .rewarded: report.rewards += 1
        case .skipped: report.skips += 1
        case .showFailed: report.showFailures += 1
        case .diagnostic: report.diagnostics += 1
        default: break
        }
      }
    }
  }

  /// Privacy changes reach the SDK at once: after the mediator started, set the consent strings,
  /// clear them and set them again, reading back what the SDK holds after each change, and again
  /// after a load under them.
  mutating func consentForwarding() {
    let scenario = "consent forwarding"
    let adapter = Locked<(any RewardedAdapter)?>(nil)
    var capturing = registration
    capturing.makeAdapter = { [registration] environment in
      let made = registration.makeAdapter(environment)
      adapter.withLock { $0 = made }
      return made
    }
    let scheduler = VirtualScheduler()
    guard let registry = try? AdapterRegistry([capturing]),
      let mediator = try? Mediator(
        config: MediationConfig(zones: zones), registry: registry, scheduler: scheduler,
        options: MediatorOptions(seed: seed, transactionIDs: .seeded)),
      let ad = try? mediator.rewardedAd(zone: zones[0].id)
    else {
      fail(.consentForwarded, scenario, "could not build a mediator for \(registration.info.id)")
      return
    }
    guard let readBack = adapter.withLock({ $0 }) as? any ConsentReadBack else {
      outcome(
        scenario, ran: false,
        "\(Invariant.consentForwarded): \(registration.info.id)'s adapter does not adopt ConsentReadBack, "
          + "so the consent strings its SDK holds cannot be read")
      return
    }
    scheduler.run(until: scheduler.now + MediatorOptions().startTimeout)
    func expect(_ wanted: IABConsent, _ when: String) {
      let held = readBack.consentInSDK
      if held != wanted {
        fail(.consentForwarded, scenario, "\(when): the SDK holds \(held), expected \(wanted)")
      }
    }
    mediator.privacy = ConsentSnapshots.restricted
    expect(ConsentSnapshots.restricted.iab, "right after the privacy change")
    mediator.updatePrivacy { $0.iab = IABConsent() }
    expect(IABConsent(), "right after the consent strings were cleared")
    mediator.privacy = ConsentSnapshots.restricted
    ad.load()
    scheduler.run(until: scheduler.now + .seconds(zones[0].loadTimeoutSeconds))
    expect(ConsentSnapshots.restricted.iab, "after a load under the new signals")
    if ad.isReady, (try? ad.show(from: HeadlessPresenter())) != nil {
      scheduler.run(until: scheduler.now + .seconds(600))
    }
    outcome(scenario, ran: true, "read back what the SDK holds after each privacy change and after a load")
  }

  /// Showing with nothing loaded, and showing while another zone's ad is up.
  mutating func refusals(seeds: ClosedRange<UInt64>) {
    guard let (scheduler, mediator, _) = makeMediator(),
      let first = try? mediator.rewardedAd(zone: zones[0].id),
      let second = try? mediator.rewardedAd(zone: zones[1].id)
    else {
      let why = "could not build a mediator with \(registration.info.id)'s two conformance zones"
      outcome("not ready", ran: false, why)
      outcome("another ad showing", ran: false, why)
      return
    }
    outcome("not ready", ran: true, "asked a zone with nothing loaded to show")
    do throws(MediationError) {
      try first.show(from: HeadlessPresenter())
      fail(.notReadyRefused, "refusals", "an unloaded zone showed an ad")
    } catch {
      if error.code != .notReady {
        fail(.notReadyRefused, "refusals", "expected not_ready, got \(error.code)")
      }
    }
    // Load both zones until both are ready (networks do not fill every time).
    for _ in seeds {
      if !first.isReady { first.load() }
      if !second.isReady { second.load() }
      scheduler.run(until: scheduler.now + .seconds(zones[0].loadTimeoutSeconds))
      if first.isReady && second.isReady { break }
    }
    guard first.isReady && second.isReady else {
      outcome(
        "another ad showing", ran: false,
        "the two zones were never ready together in \(seeds.count) load rounds, so showing one while the other is up could not be tried"
      )
      return
    }
    guard (try? first.show(from: HeadlessPresenter())) != nil else {
      fail(.nextCycleWorks, "refusals", "a ready ad refused to show")
      return
    }
    outcome("another ad showing", ran: true, "showed one zone, then asked the other to show")
    do throws(MediationError) {
      try second.show(from: HeadlessPresenter())
      fail(.anotherAdShowingRefused, "refusals", "a second ad showed while the first was up")
    } catch {
      if error.code != .anotherAdShowing {
        fail(.anotherAdShowingRefused, "refusals", "expected another_ad_showing, got \(error.code)")
      }
    }
    scheduler.run(until: scheduler.now + .seconds(600))
  }
}

// MARK: Scenarios of availability-based and global-listener SDKs

extension ScenarioRun {
  /// Advances `scheduler` by `step` until `done` holds or `limit` passed; whether it holds.
  fileprivate func advance(
    _ scheduler: VirtualScheduler, for limit: Duration, step: Duration = .milliseconds(100),
    until done: () -> Bool
  ) -> Bool {
    let end = scheduler.now + limit
    while scheduler.now < end {
      if done() { return true }
      scheduler.advance(by: step)
    }
    return done()
  }

  /// Loads `ad` until it is ready, at most `rounds` loads.
  fileprivate func loadUntilReady(_ ad: RewardedAd, _ scheduler: VirtualScheduler, rounds: Int) -> Bool {
    for _ in 0..<max(1, rounds) {
      if ad.isReady { return true }
      ad.load()
      if advance(scheduler, for: .seconds(zones[0].loadTimeoutSeconds), until: { ad.isReady }) { return true }
    }
    return ad.isReady
  }

  /// Checks the reward contract on `zone`'s events.
  fileprivate mutating func verifyContract(_ recorder: EventRecorder, zone: String, _ scenario: String) {
    let events = recorder.events(zone: zone)
    do {
      try RewardContract.verify(events)
    } catch {
      fail(error.invariant, scenario, "\(error.rule) in \(events.map(\.name))")
    }
  }

  /// The capabilities that make the late-callback check apply, that the adapter declares.
  var lateCallbackCapabilities: [AdapterInfo.Capability] {
    [.globalListener, .availabilityFlag].filter { registration.info.capabilities.contains($0) }
  }

  /// Whether the adapter's SDK routes callbacks itself, so where late callbacks go must be checked.
  var lateCallbacksApply: Bool { !lateCallbackCapabilities.isEmpty }

  /// A show started right after the previous show's terminal event, while that show's late
  /// callbacks (a reward beyond the grace window, a second dismissal) still arrive: they must reach
  /// the previous show's sink, never the new show's.
  mutating func backToBackShows(seeds: ClosedRange<UInt64>, lateCallbacks: AdapterConformance.LateCallbacks?)
  {
    let name = "back-to-back shows"
    let lateName = "late callbacks across back-to-back shows"
    let probe = SignalProbe()
    guard let (scheduler, mediator, recorder) = makeMediator(registration: probe.wrapping(registration)),
      let ad = try? mediator.rewardedAd(zone: zones[0].id)
    else {
      outcome(name, ran: false, "could not build a mediator for \(registration.info.id)")
      return
    }
    let rounds = min(seeds.count, 20)
    let terminals = { recorder.events(zone: ad.zoneID).filter(\.isTerminal).count }
    let shown = { recorder.names(zone: ad.zoneID).filter { $0 == "shown" }.count }
    guard loadUntilReady(ad, scheduler, rounds: rounds), (try? ad.show(from: HeadlessPresenter())) != nil
    else {
      outcome(name, ran: false, "the network never filled in \(rounds) loads")
      if lateCallbacks != nil { outcome(lateName, ran: false, "the network never filled") }
      return
    }
    guard advance(scheduler, for: .seconds(600), until: { terminals() >= 1 }) else {
      fail(.oneTerminalPerShow, name, "the first show never ended")
      return
    }
    // The next show at once: no time passes unless the zone must load first.
    guard loadUntilReady(ad, scheduler, rounds: rounds), (try? ad.show(from: HeadlessPresenter())) != nil
    else {
      outcome(name, ran: false, "the network never filled a second time in \(rounds) loads")
      if lateCallbacks != nil { outcome(lateName, ran: false, "there was no second show") }
      return
    }
    let displayed =
      advance(scheduler, for: .seconds(60), until: { shown() >= 2 || terminals() >= 2 }) && shown() >= 2
    if let lateCallbacks {
      if displayed {
        checkLateCallbacks(
          lateCallbacks, probe: probe, mediator: mediator, scheduler: scheduler, name: lateName)
      } else {
        outcome(lateName, ran: false, "the second show never displayed (it failed or never answered)")
      }
    } else if lateCallbacksApply {
      let note =
        "no lateCallbacks given, yet \(registration.info.id) declares \(lateCallbackCapabilities.map(\.rawValue).joined(separator: " and ")): pass AdapterConformance.LateCallbacks to check where a show's late callbacks go"
      fail(.lateCallbacksChecked, lateName, note)
      outcome(lateName, ran: false, note)
    } else {
      outcome(
        lateName, ran: false,
        "no lateCallbacks given: pass AdapterConformance.LateCallbacks to check where a show's late callbacks go"
      )
    }
    scheduler.advance(by: .seconds(600))
    verifyContract(recorder, zone: ad.zoneID, name)
    outcome(name, ran: true, "showed again right after the first show's terminal event; contract checked")
  }

  private mutating func checkLateCallbacks(
    _ lateCallbacks: AdapterConformance.LateCallbacks, probe: SignalProbe, mediator: Mediator,
    scheduler: VirtualScheduler, name: String
  ) {
    guard let made = mediator.madeAdapter(for: registration.info.id) as? ProbedAdapter else {
      outcome(name, ran: false, "the mediator has no adapter for \(registration.info.id)")
      return
    }
    let adapter = (made.wrapped as? FaultInjectingAdapter)?.wrapped ?? made.wrapped
    let before = probe.count
    lateCallbacks.deliver(adapter)
    scheduler.runUntilIdle()
    let delivered = probe.signals(since: before)
    let toNext = delivered.filter { $0.show.number == 2 }.map(\.signal)
    let toPrevious = delivered.filter { $0.show.number == 1 }.map(\.signal)
    if !toNext.isEmpty {
      fail(
        .lateSignalsReachTheirShow, name,
        "the first show's late callbacks went to the second show, on screen: \(toNext.map { "\($0)" })"
      )
    } else if delivered.isEmpty {
      fail(
        .lateCallbacksChecked, name,
        "the LateCallbacks hook delivered nothing: no callback reached any show, so where late callbacks go was not checked"
      )
    } else if toPrevious.isEmpty {
      fail(
        .lateSignalsReachTheirShow, name,
        "none of the \(delivered.count) late callbacks reached the first show: \(delivered.map { "\($0.signal)" })"
      )
    }
    outcome(
      name, ran: true,
      "\(toPrevious.count) late callbacks reached the first show, \(toNext.count) the second, "
        + "\(delivered.count - toPrevious.count - toNext.count) other shows")
  }

  /// Two zones served by one SDK placement: each load gets an ad object of its own (one object
  /// shown by two zones would grant one SDK impression twice), and the second zone's show fails
  /// cleanly, is withdrawn, or shows an impression of its own, within the contract.
  mutating func twoZonesOneSDKAd(seeds: ClosedRange<UInt64>) {
    let name = "two zones, one SDK ad"
    var shared = zones[1]
    shared.id = "conformance-shared"
    shared.lineItems = zones[0].lineItems
    let probe = SignalProbe()
    guard
      let (scheduler, mediator, recorder) = makeMediator(
        zones: [zones[0], shared], registration: probe.wrapping(registration)),
      let first = try? mediator.rewardedAd(zone: zones[0].id),
      let second = try? mediator.rewardedAd(zone: shared.id)
    else {
      outcome(name, ran: false, "could not build a mediator for \(registration.info.id)")
      return
    }
    for _ in 0..<min(seeds.count, 20) {
      if !first.isReady { first.load() }
      if !second.isReady { second.load() }
      _ = advance(scheduler, for: .seconds(zones[0].loadTimeoutSeconds)) { first.isReady && second.isReady }
      if first.isReady && second.isReady { break }
    }
    guard first.isReady && second.isReady else {
      outcome(name, ran: false, "the two zones were never ready together on one placement")
      return
    }
    if probe.reusedAds > 0 {
      fail(
        .sharedAdNeverDoubleGrants, name,
        "\(probe.reusedAds) loads were answered with an ad object an earlier load already got: make one per load"
      )
    }
    guard (try? first.show(from: HeadlessPresenter())) != nil else {
      fail(.nextCycleWorks, name, "a ready ad refused to show")
      return
    }
    _ = advance(scheduler, for: .seconds(600), step: .seconds(1)) {
      recorder.events(zone: first.zoneID).contains(where: \.isTerminal)
    }
    scheduler.advance(by: .seconds(60))
    var note = "the second zone's ad was withdrawn when the first showed"
    if second.isReady {
      do {
        try second.show(from: HeadlessPresenter())
        scheduler.advance(by: .seconds(600))
        note =
          "the second zone's show ended: \(recorder.events(zone: shared.id).last { $0.isTerminal }?.name ?? "no terminal event")"
      } catch {
        note = "the second zone refused to show: \(error)"
      }
    }
    verifyContract(recorder, zone: first.zoneID, name)
    verifyContract(recorder, zone: shared.id, name)
    outcome(name, ran: true, note)
  }

  /// An ad the SDK no longer has must be withdrawn (the zone then expires it and refuses to
  /// show), not left ready to fail at show time. Tried on a ready ad kept for hours, as long as a
  /// zone may keep one, and on the second of two zones on one placement after the first zone's
  /// show used the SDK's ad — for every adapter: whether two loads of one placement share an SDK
  /// ad is the SDK's business, and an adapter whose loads each own an ad passes by keeping the
  /// second zone's ad showable.
  mutating func adGoneBeforeShow(seeds: ClosedRange<UInt64>) {
    adConsumedByAnotherZone(seeds: seeds)
    adKeptForHours(seeds: seeds)
  }

  /// Two zones ready on one placement; the first shows to its end. If the second is still ready
  /// then, its show must not fail for want of an ad: when the SDK gave both loads one ad (one ad
  /// per placement, or one availability flag), the first show used it, so an SDK that has no
  /// other must have had the second withdrawn; when each load got an ad of its own, the second
  /// shows it.
  private mutating func adConsumedByAnotherZone(seeds: ClosedRange<UInt64>) {
    let name = "ad withdrawn before show"
    var shared = zones[1]
    shared.id = "conformance-shared"
    shared.lineItems = zones[0].lineItems
    guard let (scheduler, mediator, recorder) = makeMediator(zones: [zones[0], shared]),
      let first = try? mediator.rewardedAd(zone: zones[0].id),
      let second = try? mediator.rewardedAd(zone: shared.id)
    else { return }
    for _ in 0..<min(seeds.count, 20) {
      if !first.isReady { first.load() }
      if !second.isReady { second.load() }
      _ = advance(scheduler, for: .seconds(zones[0].loadTimeoutSeconds)) { first.isReady && second.isReady }
      if first.isReady && second.isReady { break }
    }
    guard first.isReady && second.isReady, (try? first.show(from: HeadlessPresenter())) != nil else { return }
    _ = advance(scheduler, for: .seconds(600), step: .seconds(1)) {
      recorder.events(zone: first.zoneID).contains(where: \.isTerminal)
    }
    // Only a show that displayed used the SDK's ad.
    guard recorder.names(zone: first.zoneID).contains("shown"), second.isReady,
      (try? second.show(from: HeadlessPresenter())) != nil
    else { return }
    scheduler.advance(by: .seconds(600))
    if case .showFailed(let error)? = recorder.events(zone: shared.id).last(where: \.isTerminal),
      error.code == .expired || error.code == .notReady
    {
      fail(
        .goneAdsWithdrawn, name,
        "another zone's show used the SDK's ad of this placement, yet this zone's ad stayed ready and its show failed (\(error.message)): withdraw it through AdapterLoadRequest.sink when the SDK no longer has an ad for it"
      )
    }
  }

  /// A ready ad kept for hours: if the SDK loses it meanwhile, it must be withdrawn.
  private mutating func adKeptForHours(seeds: ClosedRange<UInt64>) {
    let name = "ad withdrawn before show"
    var kept = zones[0]
    kept.adExpirySeconds = MediationConfig.Limits.maxAdExpiry
    guard let (scheduler, mediator, recorder) = makeMediator(zones: [kept]),
      let ad = try? mediator.rewardedAd(zone: kept.id)
    else {
      outcome(name, ran: false, "could not build a mediator for \(registration.info.id)")
      return
    }
    guard loadUntilReady(ad, scheduler, rounds: min(seeds.count, 20)) else {
      outcome(name, ran: false, "the network never filled")
      return
    }
    let readyAt = scheduler.now
    let hold = Duration.seconds(MediationConfig.Limits.maxAdExpiry - 60)
    if advance(scheduler, for: hold, step: .seconds(1), until: { !ad.isReady }) {
      let after = scheduler.now - readyAt
      if !recorder.names(zone: kept.id).contains("expired") {
        fail(.goneAdsWithdrawn, name, "the ad stopped being ready after \(after) without an expired event")
      }
      do throws(MediationError) {
        try ad.show(from: HeadlessPresenter())
        fail(.goneAdsWithdrawn, name, "a withdrawn ad showed")
      } catch {
        if error.code != .expired { fail(.goneAdsWithdrawn, name, "expected expired, got \(error.code)") }
      }
      let withdrawn = recorder.events(zone: kept.id).contains {
        if case .diagnostic(let note) = $0 { note.kind == .adWithdrawn } else { false }
      }
      outcome(
        name, ran: true,
        withdrawn
          ? "the network withdrew its ad \(after) after it was ready"
          : "the ad's own lifetime ended \(after) after it was ready; the zone expired it")
      return
    }
    guard (try? ad.show(from: HeadlessPresenter())) != nil else {
      fail(.nextCycleWorks, name, "a ready ad refused to show")
      return
    }
    scheduler.advance(by: .seconds(600))
    if case .showFailed(let error)? = recorder.events(zone: kept.id).last(where: \.isTerminal),
      error.code == .expired || error.code == .notReady
    {
      fail(
        .goneAdsWithdrawn, name,
        "the ad was ready for \(hold) but the network no longer had it (\(error.message)): withdraw it through AdapterLoadRequest.sink when the SDK loses it"
      )
    }
    verifyContract(recorder, zone: kept.id, name)
    outcome(name, ran: true, "the network kept its ad \(hold) and the show went on")
  }
}

/// Records which show each signal reached, through the shows' ``AdapterSignal/Sink/show``.
private final class SignalProbe: Sendable {
  struct Entry: Sendable {
    let show: AdapterSignal.Sink.ShowID
    let signal: AdapterSignal
  }

  private let entries = Locked<[Entry]>([])
  /// Every ad object handed to the core with its wrapper and the load that got it (held, so that
  /// no identifier is reused), and how many loads got an object another load already got.
  private let handedOut = Locked<
    (ads: [ObjectIdentifier: (load: UInt64, probed: ProbedAd)], reused: Int, loads: UInt64)
  >(
    ([:], 0, 0))

  var reusedAds: Int { handedOut.withLock { $0.reused } }

  /// A new load's number.
  func nextLoad() -> UInt64 {
    handedOut.withLock { state in
      state.loads += 1
      return state.loads
    }
  }

  /// `ad`, wrapped: the same wrapper each time the same object comes back, so that the core
  /// still recognises an SDK reporting one load twice.
  func probed(_ ad: any AdapterAd, load: UInt64) -> ProbedAd {
    handedOut.withLock { state in
      if let earlier = state.ads[ObjectIdentifier(ad)] {
        if earlier.load != load { state.reused += 1 }
        return earlier.probed
      }
      let probed = ProbedAd(wrapped: ad, probe: self)
      state.ads[ObjectIdentifier(ad)] = (load, probed)
      return probed
    }
  }

  var count: Int { entries.withLock { $0.count } }

  func signals(since index: Int) -> [Entry] { entries.withLock { Array($0.dropFirst(index)) } }

  func record(_ signal: AdapterSignal, show: AdapterSignal.Sink.ShowID) {
    entries.withLock { $0.append(Entry(show: show, signal: signal)) }
  }

  /// `registration`, with every show's sink recorded on its way to the core.
  func wrapping(_ registration: AdapterRegistry.Registration) -> AdapterRegistry.Registration {
    AdapterRegistry.Registration(info: registration.info) { [self] environment in
      ProbedAdapter(wrapped: registration.makeAdapter(environment), probe: self)
    }
  }
}

/// An adapter passed through unchanged, except that its ads' sinks are recorded.
private final class ProbedAdapter: RewardedAdapter {
  let wrapped: any RewardedAdapter
  let probe: SignalProbe

  init(wrapped: any RewardedAdapter, probe: SignalProbe) {
    self.wrapped = wrapped
    self.probe = probe
  }

  var info: AdapterInfo { wrapped.info }

  func start(
    _ request: AdapterStartRequest, completion: @escaping @Sendable (Result<Void, AdapterError>) -> Void
  ) {
    wrapped.start(request, completion: completion)
  }

  func bid(
    _ request: AdapterLoadRequest, completion: @escaping @Sendable (Result<AdapterBid, AdapterError>) -> Void
  ) -> Cancellable {
    wrapped.bid(request, completion: completion)
  }

  func load(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void
  ) -> Cancellable {
    let load = probe.nextLoad()
    return wrapped.load(request) { [probe] result in
      completion(
        result.map { loaded in
          var probed = loaded
          probed.ad = probe.probed(loaded.ad, load: load)
          return probed
        })
    }
  }
}

private final class ProbedAd: AdapterAd {
  let wrapped: any AdapterAd
  let probe: SignalProbe

  init(wrapped: any AdapterAd, probe: SignalProbe) {
    self.wrapped = wrapped
    self.probe = probe
  }

  func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {
    let recorded = AdapterSignal.Sink(show: signals.show) { [probe] signal in
      probe.record(signal, show: signals.show)
      signals.send(signal)
    }
    wrapped.show(request, from: presenter, signals: recorded)
  }

  func discard() { wrapped.discard() }
}
