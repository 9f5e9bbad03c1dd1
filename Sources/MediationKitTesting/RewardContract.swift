import MediationKit

/// The invariants of the reward contract (MediationKit's "The reward contract" article) and of the
/// facade, by name.
public enum Invariant: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
  /// At most one `rewarded` per show.
  case atMostOneReward = "at-most-one-reward"
  /// `rewarded`, `clicked` and `revenue_paid` only while a show is open.
  case eventsDuringShow = "events-during-show"
  /// `closed` only after the show's `rewarded`.
  case rewardBeforeClose = "reward-before-close"
  /// `skipped` never after `rewarded`.
  case noSkipAfterReward = "no-skip-after-reward"
  /// Every accepted show ends in exactly one of `closed`, `skipped`, `show_failed`.
  case oneTerminalPerShow = "one-terminal-per-show"
  /// Every load ends in exactly one `ready` or `failed`, within the zone's budget.
  case loadEndsOnceWithinBudget = "load-ends-once-within-budget"
  /// The full-screen slot is free again after the terminal event.
  case screenReleased = "screen-released"
  /// Showing with nothing loaded fails at once with `not_ready`.
  case notReadyRefused = "not-ready-refused"
  /// A shown ad cannot be shown again (`already_used`).
  case singleUse = "single-use"
  /// Showing while another ad is up fails with `another_ad_showing`.
  case anotherAdShowingRefused = "another-ad-showing-refused"
  /// After a cycle, the next load and show still work.
  case nextCycleWorks = "next-cycle-works"
  /// Every shown impression reports exactly one `revenue_paid` before its terminal event: the
  /// network's figure when it reports one, else the core's estimate.
  case oneRevenuePerImpression = "one-revenue-per-impression"
  /// A privacy change's IAB consent strings reach the network SDK at once (read back through
  /// ``ConsentReadBack``), and stay there for the loads that follow.
  case consentForwarded = "consent-forwarded"
  /// A late callback of a show reaches that show, never the next one (``AdapterSignal/Sink/show``).
  case lateSignalsReachTheirShow = "late-signals-reach-their-show"
  /// Two zones on one SDK ad: the zone not shown hears nothing of the other's show.
  case sharedAdNeverDoubleGrants = "shared-ad-never-double-grants"
  /// An ad the SDK no longer has is withdrawn, not left ready to fail at show time.
  case goneAdsWithdrawn = "gone-ads-withdrawn"
  /// No load or bid reaches an adapter before its start completed.
  case noLoadBeforeStart = "no-load-before-start"
  /// Where late callbacks go was checked: an adapter that declares
  /// ``AdapterInfo/Capability/globalListener`` or ``AdapterInfo/Capability/availabilityFlag`` is
  /// checked with an ``AdapterConformance/LateCallbacks`` hook, and the hook delivered at least one
  /// callback to a show.
  case lateCallbacksChecked = "late-callbacks-checked"

  public var description: String { rawValue }
}

/// A broken rule of the reward contract, with the offending event's position.
public struct RewardContractViolation: Error, Sendable, Equatable, CustomStringConvertible {
  /// The invariant that was broken.
  public var invariant: Invariant
  /// The index of the offending event in the checked sequence.
  public var index: Int
  /// What happened.
  public var rule: String

  public init(_ invariant: Invariant, index: Int, rule: String) {
    self.invariant = invariant
    self.index = index
    self.rule = rule
  }

  public var description: String { "\(invariant) broken at event #\(index): \(rule)" }
}

/// Checks a zone's event sequence against the reward contract. Throws instead of failing a test,
/// so it works under Swift Testing, XCTest or a CLI.
public enum RewardContract {
  /// Verifies `events` (one zone's, in delivery order).
  ///
  /// Rules: at most one `rewarded` per show and only during a show; `closed` only after the
  /// show's `rewarded`; `skipped` never after `rewarded`; each show ends in exactly one terminal
  /// event; after it, only `diagnostic` (or the next load's events) may follow; a shown
  /// impression reports exactly one `revenue_paid`, before its terminal event.
  /// - Parameter requireFinished: Also require that no show is still open at the end.
  /// - Throws: ``RewardContractViolation`` at the first broken rule.
  public static func verify(_ events: [RewardedAdEvent], requireFinished: Bool = true)
    throws(RewardContractViolation)
  {
    var inShow = false
    var rewarded = false
    var revenues = 0
    for (index, event) in events.enumerated() {
      func violation(_ invariant: Invariant, _ rule: String) -> RewardContractViolation {
        RewardContractViolation(invariant, index: index, rule: rule)
      }
      switch event {
      case .shown:
        if inShow { throw violation(.oneTerminalPerShow, "shown while a show is still open") }
        inShow = true
        rewarded = false
        revenues = 0
      case .clicked, .revenuePaid:
        if !inShow {
          throw violation(.eventsDuringShow, "\(event.name) outside a show (after its terminal event?)")
        }
        if case .revenuePaid = event {
          revenues += 1
          if revenues > 1 {
            throw violation(.oneRevenuePerImpression, "second revenue_paid for one impression")
          }
        }
      case .rewarded(let reward) where reward.isRedelivery:
        // A redelivery of an unacknowledged reward from an earlier run: outside any show.
        if inShow { throw violation(.eventsDuringShow, "a redelivered reward inside a show") }
      case .rewarded:
        if !inShow {
          throw violation(.eventsDuringShow, "rewarded outside a show (after its terminal event?)")
        }
        if rewarded { throw violation(.atMostOneReward, "second rewarded in one show") }
        rewarded = true
      case .closed:
        if !inShow { throw violation(.oneTerminalPerShow, "closed outside a show") }
        if !rewarded { throw violation(.rewardBeforeClose, "closed without a preceding rewarded") }
        if revenues == 0 {
          throw violation(.oneRevenuePerImpression, "closed without the impression's revenue_paid")
        }
        inShow = false
      case .skipped:
        if !inShow { throw violation(.oneTerminalPerShow, "skipped outside a show") }
        if rewarded { throw violation(.noSkipAfterReward, "skipped after rewarded") }
        if revenues == 0 {
          throw violation(.oneRevenuePerImpression, "skipped without the impression's revenue_paid")
        }
        inShow = false
      case .showFailed:
        if inShow && rewarded { throw violation(.noSkipAfterReward, "showFailed after rewarded") }
        if inShow && revenues == 0 {
          throw violation(
            .oneRevenuePerImpression, "showFailed after shown without the impression's revenue_paid")
        }
        inShow = false
      case .loading, .ready, .failed, .expired, .diagnostic:
        break
      }
    }
    if requireFinished && inShow {
      throw RewardContractViolation(
        .oneTerminalPerShow, index: events.count, rule: "a show never reached a terminal event")
    }
  }

  /// Verifies every zone's events in `events` separately.
  public static func verify(_ events: [Mediator.ZoneEvent], requireFinished: Bool = true)
    throws(RewardContractViolation)
  {
    var byZone: [String: [RewardedAdEvent]] = [:]
    for event in events { byZone[event.zoneID, default: []].append(event.event) }
    for zone in byZone.keys.sorted() { try verify(byZone[zone]!, requireFinished: requireFinished) }
  }
}
