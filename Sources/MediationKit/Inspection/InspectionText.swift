import Foundation

/// The text the log records (``Mediator/LogRecord/message``) and the inspector screen
/// (`MediationKitUI`'s `MediationInspectorView`) show: one place, so both say the same.
package enum InspectionText {
  /// One line for `event`: its zone, network, name and details.
  package static func line(_ event: Mediator.ZoneEvent) -> String {
    var line = "zone '\(event.zoneID)'"
    if let network = event.network { line += ", network '\(network)'" }
    line += ": \(event.event.name)"
    let detail = detail(of: event.event)
    return detail.isEmpty ? line : "\(line) — \(detail)"
  }

  /// What `event` carries, in a line: the winner and every line item of a ready ad, the error of
  /// a failed load or show, a diagnostic's kind and message; empty for the bare steps.
  package static func detail(of event: RewardedAdEvent) -> String {
    switch event {
    case .loading, .clicked, .closed, .skipped, .expired:
      return ""
    case .ready(let info):
      return "\(winner(info)) after \(seconds(info.latency)) (auction \(info.auctionID)); "
        + "line items: \(info.responses.map(response).joined(separator: "; "))"
    case .failed(let error):
      let items =
        error.waterfall.isEmpty
        ? "" : "; line items: \(error.waterfall.map(response).joined(separator: "; "))"
      return "\(error)\(items)"
    case .shown(let info):
      return winner(info)
    case .revenuePaid(let revenue):
      return "\(revenue.usd) USD (\(revenue.precision.rawValue)) for \(revenue.placementID)"
    case .rewarded(let reward):
      return "\(reward.amount) \(reward.type), transaction \(reward.transactionID)"
        + (reward.isRedelivery ? " (redelivered from an earlier run)" : "")
    case .showFailed(let error):
      return "\(error)"
    case .diagnostic(let note):
      return "\(note.kind.rawValue): \(note.message)"
    }
  }

  /// "max b3f1 at eCPM 12.50 (publisher_defined)".
  package static func winner(_ info: AdInfo) -> String {
    "\(info.network) \(info.placementID) at eCPM \(price(info.ecpm)) (\(info.precision.rawValue))"
  }

  /// One line item's fate: "max b3f1 (priority 0, eCPM 12.50): failed in 1.000 s: no fill".
  package static func response(_ response: AdInfo.NetworkResponse) -> String {
    var text =
      "\(response.network) \(response.placementID) (priority \(response.priority), eCPM \(price(response.ecpm))): "
      + response.state.rawValue
    if let bid = response.bid { text += " bid \(price(bid))" }
    if let latency = response.latency { text += " in \(seconds(latency))" }
    if let error = response.error { text += ": \(error)" }
    return text
  }

  /// "1.234 s", to the millisecond.
  package static func seconds(_ duration: Duration) -> String {
    let milliseconds = duration.milliseconds
    let sign = milliseconds < 0 ? "-" : ""
    let magnitude = milliseconds.magnitude
    let fraction = String(magnitude % 1000)
    return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) s"
  }

  /// A price with two decimals: "12.50".
  package static func price(_ value: Double) -> String {
    guard value.isFinite else { return "\(value)" }
    return String(format: "%.2f", value)
  }
}
