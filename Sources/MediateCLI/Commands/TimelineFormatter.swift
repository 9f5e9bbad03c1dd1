import Foundation
import MediationKit

/// Renders a cycle's events as text for people or JSON lines for machines.
enum TimelineFormatter {
  /// One event as a JSON object: `t_ms`, `zone`, `network`, `event`, plus the event's details;
  /// `arms` (experiment id → arm id) on every event of a load or ad under A/B test arms.
  static func jsonLine(_ event: Mediator.ZoneEvent) -> String {
    var object: [String: Any] = [
      "t_ms": event.time.milliseconds, "zone": event.zoneID, "network": event.network?.rawValue ?? NSNull(),
      "event": event.event.name,
    ]
    if !event.experimentArms.isEmpty { object["arms"] = event.experimentArms }
    switch event.event {
    case .ready(let info), .shown(let info):
      object["ecpm"] = JSONLine.rounded(info.ecpm)
      object["placement"] = info.placementID
      if case .ready = event.event {
        object["latency_ms"] = info.latency.milliseconds
        object["waterfall"] = info.responses.map(responseObject)
      }
    case .failed(let error):
      object["error"] = error.code.rawValue
      object["message"] = error.message
      object["waterfall"] = error.waterfall.map(responseObject)
    case .showFailed(let error):
      object["error"] = error.code.rawValue
      object["message"] = error.message
    case .rewarded(let reward):
      object["reward_type"] = reward.type
      object["reward_amount"] = reward.amount
      object["transaction_id"] = reward.transactionID
      if reward.isRedelivery { object["redelivery"] = true }
    case .revenuePaid(let revenue):
      object["revenue_usd"] = JSONLine.rounded(revenue.usd, 6)
      object["precision"] = revenue.precision.rawValue
      object["placement"] = revenue.placementID
    case .diagnostic(let diagnostic):
      object["kind"] = diagnostic.kind.rawValue
      object["message"] = diagnostic.message
    case .loading, .clicked, .closed, .skipped, .expired:
      break
    }
    return JSONLine.encode(object)
  }

  private static func responseObject(_ response: AdInfo.NetworkResponse) -> [String: Any] {
    var object: [String: Any] = [
      "network": response.network.rawValue, "placement": response.placementID, "priority": response.priority,
      "ecpm": JSONLine.rounded(response.ecpm), "state": response.state.rawValue,
    ]
    if let latency = response.latency { object["latency_ms"] = latency.milliseconds }
    if let error = response.error { object["error"] = error }
    return object
  }

  /// The cycle for people: settings, the waterfall, the timeline and the outcome.
  static func text(_ events: [Mediator.ZoneEvent], settings: RunCommand.Settings) -> String {
    let zone = settings.zone
    var lines = [
      "Zone '\(zone.id)' · reward \(zone.reward.amount) \(zone.reward.type) · networks "
        + settings.networks.map(\.rawValue).joined(separator: ", ")
        + " · seed \(settings.seed) · config: \(settings.source)",
      "",
    ]
    let waterfall: [AdInfo.NetworkResponse] =
      events.lazy.compactMap { event -> [AdInfo.NetworkResponse]? in
        switch event.event {
        case .ready(let info): info.responses
        case .failed(let error): error.waterfall
        default: nil
        }
      }.first ?? []
    lines.append(
      "Waterfall (tiers by ascending priority; by descending eCPM within a tier; ties in config order)")
    lines.append(row(["#", "network", "placement", "prio", "eCPM", "result", "latency", "note"]))
    for (index, response) in waterfall.enumerated() {
      lines.append(
        row([
          "\(index + 1)", response.network.rawValue, response.placementID, "\(response.priority)",
          money(response.ecpm), response.state.rawValue.replacingOccurrences(of: "_", with: " "),
          response.latency.map { "\($0.milliseconds) ms" } ?? "-", response.error ?? "",
        ]))
    }
    lines += ["", "Timeline (virtual time)"]
    for event in events {
      lines.append(
        timelineRow(
          time: event.time, event: event.event.name, network: event.network?.rawValue,
          detail: detail(event.event)))
    }
    lines += ["", "Outcome: " + outcome(events)]
    return lines.joined(separator: "\n")
  }

  /// One event of a timeline: its virtual time, name, network and details, in columns.
  static func timelineRow(time: Duration, event: String, network: String?, detail: String) -> String {
    let time = "\(time.milliseconds) ms".leftPadded(to: 10)
    let name = event.padding(toLength: 14, withPad: " ", startingAt: 0)
    let network = (network ?? "").padding(toLength: 9, withPad: " ", startingAt: 0)
    return "  \(time)  \(name)\(network)\(detail)".trimmingTrailingSpaces()
  }

  private static func detail(_ event: RewardedAdEvent) -> String {
    switch event {
    case .ready(let info): "eCPM \(money(info.ecpm)), after \(info.latency.milliseconds) ms"
    case .failed(let error), .showFailed(let error): error.description
    case .rewarded(let reward):
      "\(reward.amount) \(reward.type) (transaction \(reward.transactionID))"
        + (reward.isRedelivery ? " — redelivered: not acknowledged in an earlier run" : "")
    case .revenuePaid(let revenue): String(format: "$%.6f (%@)", revenue.usd, revenue.precision.rawValue)
    case .diagnostic(let diagnostic): "\(diagnostic.kind.rawValue): \(diagnostic.message)"
    default: ""
    }
  }

  private static func outcome(_ events: [Mediator.ZoneEvent]) -> String {
    let names = events.map(\.event)
    guard
      let filled = names.lazy.compactMap({ event -> AdInfo? in
        if case .ready(let info) = event { info } else { nil }
      }).first
    else {
      if case .failed(let error)? = names.first(where: { $0.name == "failed" }) {
        return "no fill — \(error)"
      }
      return "no result"
    }
    let head = "\(filled.network) filled at \(money(filled.ecpm)) eCPM; "
    if let reward = names.lazy.compactMap({ event -> Reward? in
      if case .rewarded(let r) = event, !r.isRedelivery { r } else { nil }
    }).first {
      return head + "reward granted once: \(reward.amount) \(reward.type)"
    }
    if names.contains(.skipped) { return head + "the user skipped; no reward" }
    if case .showFailed(let error)? = names.first(where: { $0.name == "show_failed" }) {
      return head + "show failed: \(error)"
    }
    return head + "the show did not end"
  }

  static func money(_ value: Double) -> String { String(format: "$%.2f", value) }

  private static let widths = [3, 9, 40, 5, 9, 15, 9]

  private static func row(_ cells: [String]) -> String {
    var line = " "
    for (index, cell) in cells.enumerated() {
      if index < widths.count {
        let width = widths[index]
        line +=
          " "
          + ([0, 3, 4, 6].contains(index)
            ? cell.leftPadded(to: width) : cell.padding(toLength: width, withPad: " ", startingAt: 0))
      } else {
        line += "  " + cell
      }
    }
    return line.trimmingTrailingSpaces()
  }
}

extension String {
  func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: " ", count: width - count) + self
  }

  func trimmingTrailingSpaces() -> String {
    var copy = self
    while copy.last == " " { copy.removeLast() }
    return copy
  }
}
