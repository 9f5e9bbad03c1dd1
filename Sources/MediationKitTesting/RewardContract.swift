import MediationKit

/// A broken rule of the reward contract (DESIGN.md §4), with the offending event's position.
public struct RewardContractViolation: Error, Sendable, Equatable, CustomStringConvertible {
  /// The index of the offending event in the checked sequence.
  public var index: Int
  /// The rule that was broken.
  public var rule: String

  public var description: String { "event #\(index): \(rule)" }
}

/// Checks a zone's event sequence against the reward contract. Throws instead of failing a test,
/// so it works under Swift Testing, XCTest or a CLI.
public enum RewardContract {
  /// Verifies `events` (one zone's, in delivery order).
  ///
  /// Rules: at most one `rewarded` per show and only during a show; `closed` only after the
  /// show's `rewarded`; `skipped` never after `rewarded`; each show ends in exactly one terminal
  /// event; after it, only `diagnostic` (or the next load's events) may follow.
  /// - Parameter requireFinished: Also require that no show is still open at the end.
  /// - Throws: ``RewardContractViolation`` at the first broken rule.
  public static func verify(_ events: [RewardedAdEvent], requireFinished: Bool = true)
    throws(RewardContractViolation)
  {
    var inShow = false
    var rewarded = false
    for (index, event) in events.enumerated() {
      func violation(_ rule: String) -> RewardContractViolation {
        RewardContractViolation(index: index, rule: rule)
      }
      switch event {
      case .shown:
        if inShow { throw violation("shown while a show is still open") }
        inShow = true
        rewarded = false
      case .clicked, .revenuePaid:
        if !inShow { throw violation("\(event.name) outside a show (after its terminal event?)") }
      case .rewarded:
        if !inShow { throw violation("rewarded outside a show (after its terminal event?)") }
        if rewarded { throw violation("second rewarded in one show") }
        rewarded = true
      case .closed:
        if !inShow { throw violation("closed outside a show") }
        if !rewarded { throw violation("closed without a preceding rewarded") }
        inShow = false
      case .skipped:
        if !inShow { throw violation("skipped outside a show") }
        if rewarded { throw violation("skipped after rewarded") }
        inShow = false
      case .showFailed:
        if inShow && rewarded { throw violation("showFailed after rewarded") }
        inShow = false
      case .loading, .ready, .failed, .expired, .diagnostic:
        break
      }
    }
    if requireFinished && inShow {
      throw RewardContractViolation(index: events.count, rule: "a show never reached a terminal event")
    }
  }

  /// Verifies every zone's events in `events` separately.
  public static func verify(_ events: [ZoneEvent], requireFinished: Bool = true)
    throws(RewardContractViolation)
  {
    var byZone: [String: [RewardedAdEvent]] = [:]
    for event in events { byZone[event.zoneID, default: []].append(event.event) }
    for zone in byZone.keys.sorted() { try verify(byZone[zone]!, requireFinished: requireFinished) }
  }
}
