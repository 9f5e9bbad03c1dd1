import MediationKit

/// The conformance suite for adapter authors: one call runs an adapter through every scenario of
/// the contract — full load-and-show cycles over many seeds through a real ``Mediator`` on virtual
/// time, plus the refusal scenarios — and reports each violated invariant by name. It throws
/// instead of failing a test, so it works under Swift Testing, XCTest or a command line.
///
/// ```swift
/// @Test func conforms() throws {
///   let report = AdapterConformance.check(MyNetwork.registration(), placementID: "my-placement")
///   #expect(report.violations.isEmpty, "\(report.violations)")
///   #expect(report.fills > 0)
/// }
/// ```
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
    /// The checks that could not run, and why (never skipped silently).
    public var notChecked: [String] = []

    /// Whether no invariant was broken.
    public var passed: Bool { violations.isEmpty }

    public var description: String {
      let head =
        "\(cycles) cycles, \(fills) fills, \(rewards) rewards, \(skips) skips, \(showFailures) show failures"
      let notRun = notChecked.map { "\n  not checked: \($0)" }.joined()
      return violations.isEmpty
        ? head + ": conforms" + notRun
        : head + ":\n" + violations.map { "  - \($0)" }.joined(separator: "\n") + notRun
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

  /// A violation, with the seed and event names, thrown by ``run(_:placementID:ecpm:seeds:rewardGraceSeconds:)``.
  public struct Failure: Error, CustomStringConvertible {
    public var seed: UInt64
    public var violation: Violation
    public var description: String { "seed \(seed): \(violation)" }
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
  public static func check(
    _ registration: AdapterRegistration, placementID: String, secondPlacementID: String? = nil,
    ecpm: Double = 10,
    seeds: ClosedRange<UInt64> = 1...100, rewardGraceSeconds: Double = 5
  ) -> Report {
    var report = Report()
    let second = secondPlacementID ?? placementID + "-b"
    let zones = [placementID, second].enumerated().map { index, placement in
      ZoneConfig(
        id: index == 0 ? "conformance" : "conformance-b", reward: RewardConfig(type: "coins", amount: 10),
        lineItems: [LineItem(network: registration.info.id, placementId: placement, priority: 0, ecpm: ecpm)],
        rewardGraceSeconds: rewardGraceSeconds, autoReload: false)
    }
    for seed in seeds {
      var run = ScenarioRun(registration: registration, zones: zones, seed: seed, report: report)
      run.cycles()
      report = run.report
    }
    var run = ScenarioRun(registration: registration, zones: zones, seed: seeds.lowerBound, report: report)
    run.refusals(seeds: seeds)
    run.consentForwarding()
    return run.report
  }

  /// Runs the cycles and throws at the first broken invariant; returns the report otherwise.
  /// - Throws: ``Failure``.
  public static func run(
    _ registration: AdapterRegistration, placementID: String, ecpm: Double = 10,
    seeds: ClosedRange<UInt64> = 1...100,
    rewardGraceSeconds: Double = 5
  ) throws -> Report {
    let report = check(
      registration, placementID: placementID, ecpm: ecpm, seeds: seeds, rewardGraceSeconds: rewardGraceSeconds
    )
    if let first = report.violations.first { throw Failure(seed: first.seed, violation: first) }
    return report
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
private struct ScenarioRun {
  let registration: AdapterRegistration
  let zones: [ZoneConfig]
  let seed: UInt64
  var report: AdapterConformance.Report

  private func makeMediator() -> (VirtualScheduler, Mediator, EventRecorder)? {
    let scheduler = VirtualScheduler()
    guard let registry = try? AdapterRegistry([registration]),
      let mediator = try? Mediator(
        config: MediationConfig(zones: zones), registry: registry, scheduler: scheduler,
        options: MediatorOptions(seed: seed, transactionIDs: .seeded))
    else { return nil }
    return (scheduler, mediator, EventRecorder(mediator))
  }

  private mutating func fail(_ invariant: Invariant, _ scenario: String, _ detail: String) {
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
    let scenario = "consent"
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
      report.notChecked.append(
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
  }

  /// Showing with nothing loaded, and showing while another zone's ad is up.
  mutating func refusals(seeds: ClosedRange<UInt64>) {
    guard let (scheduler, mediator, _) = makeMediator(),
      let first = try? mediator.rewardedAd(zone: zones[0].id),
      let second = try? mediator.rewardedAd(zone: zones[1].id)
    else { return }
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
    guard first.isReady && second.isReady, (try? first.show(from: HeadlessPresenter())) != nil else { return }
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
