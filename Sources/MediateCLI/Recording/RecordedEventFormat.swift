import Foundation
import MediationKit
import MediationKitTesting

/// A flight recording's events (``RecordedEvent``: a name, a network and a few words of detail)
/// as the cycle prints its own: a JSON object with the same keys as `mediate --json` (those the
/// recording holds) and a timeline row; and as ``RewardedAdEvent``s, so the test kit's
/// ``RewardContract`` checks a replay by the same rules it checks a live zone.
enum RecordedEventFormat {
  /// `event` as `mediate --json` prints an event: `event`, `network`, `t_ms`, `zone`, plus
  /// `session` and the details the recording keeps — `ecpm` (`ready`, `shown`), `error`
  /// (`failed`, `show_failed`), `reward_type` and `reward_amount` (`rewarded`), `revenue_usd`
  /// and `precision` (`revenue_paid`), `kind` (`diagnostic`); a detail in another form is
  /// `detail`, as recorded.
  static func jsonObject(_ event: FlightRecording.Replay.Event) -> [String: Any] {
    var object = jsonObject(event.event)
    object["t_ms"] = event.time.milliseconds
    object["zone"] = event.zoneID
    object["session"] = event.session
    return object
  }

  /// `event` alone: `event`, `network` and its details (see ``jsonObject(_:)-(Replay.Event)``).
  static func jsonObject(_ event: RecordedEvent) -> [String: Any] {
    var object: [String: Any] = ["event": event.event, "network": event.network ?? NSNull()]
    for (key, value) in fields(event) { object[key] = value }
    return object
  }

  /// `event` as a row of the cycle's timeline.
  static func textRow(_ event: FlightRecording.Replay.Event) -> String {
    TimelineFormatter.timelineRow(
      time: event.time, event: event.event.event, network: event.event.network, detail: text(event.event))
  }

  /// The details of `event` under the cycle's JSON keys.
  static func fields(_ event: RecordedEvent) -> [String: Any] {
    guard let detail = event.detail else { return [:] }
    switch event.event {
    case "ready", "shown":
      if let ecpm = ecpm(detail) { return ["ecpm": JSONLine.rounded(ecpm)] }
    case "failed", "show_failed": return ["error": detail]
    case "rewarded":
      if let (amount, type) = reward(detail) { return ["reward_amount": amount, "reward_type": type] }
    case "revenue_paid":
      if let (usd, precision) = revenue(detail) {
        return ["revenue_usd": JSONLine.rounded(usd, 6), "precision": precision]
      }
    case "diagnostic": return ["kind": detail]
    default: break
    }
    return ["detail": detail]
  }

  /// The details of `event` in words, as the cycle's timeline gives them.
  static func text(_ event: RecordedEvent) -> String {
    guard let detail = event.detail else { return "" }
    switch event.event {
    case "ready", "shown": return ecpm(detail).map { "eCPM \(TimelineFormatter.money($0))" } ?? detail
    case "revenue_paid":
      return revenue(detail).map { String(format: "$%.6f (%@)", $0.usd, $0.precision) } ?? detail
    default: return detail
    }
  }

  /// `event` as the engine published it, as far as the reward contract looks: its case (and a
  /// reward that is never a redelivery: a replay redelivers nothing); `nil` for a name this CLI
  /// does not know.
  static func contractEvent(_ event: RecordedEvent, zoneID: String) -> RewardedAdEvent? {
    let network = NetworkID(event.network ?? "")
    let info = AdInfo(
      zoneID: zoneID, network: network, placementID: "", ecpm: event.detail.flatMap(ecpm) ?? 0, responses: [],
      latency: .zero)
    let error = MediationError(
      MediationError.Code(rawValue: event.detail ?? "") ?? .showFailed, event.detail ?? "")
    switch event.event {
    case "loading": return .loading
    case "ready": return .ready(info)
    case "failed": return .failed(error)
    case "shown": return .shown(info)
    case "clicked": return .clicked
    case "revenue_paid":
      let usd = event.detail.flatMap(revenue)?.usd ?? 0
      return .revenuePaid(
        RewardedAdEvent.Revenue(
          network: network, zoneID: zoneID, placementID: "", usd: usd, precision: .estimated))
    case "rewarded":
      let (amount, type) = event.detail.flatMap(reward) ?? (0, "")
      return .rewarded(Reward(type: type, amount: amount, transactionID: "", network: network))
    case "closed": return .closed
    case "skipped": return .skipped
    case "show_failed": return .showFailed(error)
    case "expired": return .expired
    case "diagnostic":
      let kind = RewardedAdEvent.Diagnostic.Kind(rawValue: event.detail ?? "") ?? .signalAfterTerminal
      return .diagnostic(RewardedAdEvent.Diagnostic(kind, ""))
    default: return nil
    }
  }

  /// The reward contract on `events`, zone by zone and session by session (a recorded session
  /// holds its shows whole): every broken rule, as `zone 'z' session 2: … broken at event #3: …`.
  /// A show still open at the end of a zone's last session is no violation: the recording was
  /// exported while it was on screen.
  static func contractViolations(_ events: [FlightRecording.Replay.Event]) -> [String] {
    var sessions: [(zone: String, session: Int, events: [RewardedAdEvent])] = []
    for event in events {
      guard let published = contractEvent(event.event, zoneID: event.zoneID) else { continue }
      if let last = sessions.last, last.zone == event.zoneID, last.session == event.session {
        sessions[sessions.count - 1].events.append(published)
      } else {
        sessions.append((event.zoneID, event.session, [published]))
      }
    }
    var violations: [String] = []
    for (index, session) in sessions.enumerated() {
      let lastOfZone = !sessions[(index + 1)...].contains { $0.zone == session.zone }
      do throws(RewardContractViolation) {
        try RewardContract.verify(session.events, requireFinished: !lastOfZone)
      } catch {
        violations.append("zone '\(session.zone)' session \(session.session): \(error)")
      }
    }
    return violations
  }

  // MARK: The details' forms (RecordedEvent's)

  /// `ecpm 12.5`.
  private static func ecpm(_ detail: String) -> Double? {
    guard detail.hasPrefix("ecpm ") else { return nil }
    return number(detail.dropFirst(5))
  }

  /// A number a recording's text holds, if it is one an event can carry (finite, and still
  /// finite once rounded for the output); else the event keeps its text.
  private static func number(_ text: Substring) -> Double? {
    guard let value = Double(text), value.isFinite, abs(value) < 1e15 else { return nil }
    return value
  }

  /// `100 coins`: the amount, then the type (which may hold spaces).
  private static func reward(_ detail: String) -> (Int, String)? {
    let parts = detail.split(separator: " ", maxSplits: 1)
    guard parts.count == 2, let amount = Int(parts[0]) else { return nil }
    return (amount, String(parts[1]))
  }

  /// `0.0125 exact`: the USD, then the precision.
  private static func revenue(_ detail: String) -> (usd: Double, precision: String)? {
    let parts = detail.split(separator: " ", maxSplits: 1)
    guard parts.count == 2, let usd = number(parts[0]) else { return nil }
    return (usd, String(parts[1]))
  }
}
