/// MediationKit's event log: one JSON object per line (JSON Lines) for each ``Mediator/ZoneEvent``,
/// versioned, so what an app saw can be kept, shipped to a server and read back by tools — among
/// them `mediate calibrate`, which estimates each line item's fill, prices and latency from it.
///
/// Write a line for every event the mediator publishes:
/// ```swift
/// let subscription = mediator.observeEvents { event in
///   log.append(ZoneEventLog.line(event, date: utcDay(), dimensions: ["country": userCountry]))
/// }
/// ```
/// Every line has `v` (``version``), `t_ms` (the event's time on the mediator's scheduler, in
/// milliseconds), `zone` and `event` (``RewardedAdEvent/name``); `network` when the event has
/// one; `date` and `dims` when the app passes them (the UTC day, `YYYY-MM-DD`, and what it knows of
/// the user, e.g. `{"country":"US"}`, so reports can be segmented); `arms` when the ad ran under
/// A/B test arms. Then, by event:
/// - `ready`: `placement`, `ecpm`, `precision`, `strategy`, `auction_id`, `latency_ms` and
///   `waterfall`, every line item's fate (`network`, `placement`, `priority`, `ecpm`, `state`,
///   and when known `latency_ms`, `bid` and `error`);
/// - `shown`: `placement`, `ecpm`, `precision` and `auction_id` (its auction is on the `ready` line
///   with that id);
/// - `failed`: `error` (the ``MediationError/Code``), `message` and `waterfall`;
/// - `revenue_paid`: `placement`, `revenue_usd` and `precision`;
/// - `rewarded`: `reward_type`, `reward_amount`, `transaction_id`, and `redelivery` when it is one;
/// - `show_failed`: `error` and `message`; `diagnostic`: `kind` and `message`;
/// - `loading`, `clicked`, `closed`, `skipped`, `expired`: nothing more.
///
/// Keys are written in a fixed order and numbers in their shortest exact form, so the same events
/// give the same bytes. Readers must ignore keys they do not know: later versions only add keys,
/// and a change that is not an addition raises ``version``.
public enum ZoneEventLog {
  /// The format's version, written as `v` on every line.
  public static let version = 1

  /// The line for `event`, without its line break.
  /// - Parameters:
  ///   - event: The event, as ``Mediator/observeEvents(_:)`` delivers it.
  ///   - date: The UTC day of the event, `YYYY-MM-DD`, written as `date`; `nil` leaves it out.
  ///   - dimensions: What the app knows of the user (`country`, `platform`, …), written as `dims`;
  ///     empty leaves it out.
  public static func line(
    _ event: Mediator.ZoneEvent, date: String? = nil, dimensions: [String: String] = [:]
  )
    -> String
  {
    var json = JSONObjectText()
    json.add("v", version)
    json.add("t_ms", Int(clamping: event.time.milliseconds))
    if let date { json.add("date", date) }
    json.add("zone", event.zoneID)
    json.add("event", event.event.name)
    if let network = event.network { json.add("network", network.rawValue) }
    if !dimensions.isEmpty { json.addObject("dims", dimensions) }
    if !event.experimentArms.isEmpty { json.addObject("arms", event.experimentArms) }
    switch event.event {
    case .ready(let info):
      identity(info, into: &json)
      json.add("strategy", info.strategy.rawValue)
      json.add("latency_ms", Int(clamping: info.latency.milliseconds))
      json.addRaw("waterfall", waterfall(info.responses))
    case .shown(let info):
      identity(info, into: &json)
    case .failed(let error):
      json.add("error", error.code.rawValue)
      json.add("message", error.message)
      json.addRaw("waterfall", waterfall(error.waterfall))
    case .revenuePaid(let revenue):
      json.add("placement", revenue.placementID)
      json.add("revenue_usd", revenue.usd)
      json.add("precision", revenue.precision.rawValue)
    case .rewarded(let reward):
      json.add("reward_type", reward.type)
      json.add("reward_amount", reward.amount)
      json.add("transaction_id", reward.transactionID)
      if reward.isRedelivery { json.addRaw("redelivery", "true") }
    case .showFailed(let error):
      json.add("error", error.code.rawValue)
      json.add("message", error.message)
    case .diagnostic(let diagnostic):
      json.add("kind", diagnostic.kind.rawValue)
      json.add("message", diagnostic.message)
    case .loading, .clicked, .closed, .skipped, .expired:
      break
    }
    return json.text
  }

  private static func identity(_ info: AdInfo, into json: inout JSONObjectText) {
    json.add("placement", info.placementID)
    json.add("ecpm", info.ecpm)
    json.add("precision", info.precision.rawValue)
    json.add("auction_id", info.auctionID)
  }

  private static func waterfall(_ responses: [AdInfo.NetworkResponse]) -> String {
    var text = "["
    for (index, response) in responses.enumerated() {
      if index > 0 { text += "," }
      var json = JSONObjectText()
      json.add("network", response.network.rawValue)
      json.add("placement", response.placementID)
      json.add("priority", response.priority)
      json.add("ecpm", response.ecpm)
      json.add("state", response.state.rawValue)
      if let latency = response.latency { json.add("latency_ms", Int(clamping: latency.milliseconds)) }
      if let bid = response.bid { json.add("bid", bid) }
      if let error = response.error { json.add("error", error) }
      text += json.text
    }
    return text + "]"
  }
}

/// One JSON object's text, built key by key in the order added.
private struct JSONObjectText {
  private var body = ""

  var text: String { "{" + body + "}" }

  mutating func addRaw(_ key: String, _ value: String) {
    if !body.isEmpty { body += "," }
    body += Self.quoted(key) + ":" + value
  }

  mutating func add(_ key: String, _ value: String) { addRaw(key, Self.quoted(value)) }
  mutating func add(_ key: String, _ value: Int) { addRaw(key, String(value)) }
  mutating func add(_ key: String, _ value: UInt64) { addRaw(key, String(value)) }
  /// A finite number in its shortest exact form; `null` for NaN or an infinity.
  mutating func add(_ key: String, _ value: Double) { addRaw(key, value.isFinite ? "\(value)" : "null") }

  /// An object of strings, its keys sorted.
  mutating func addObject(_ key: String, _ values: [String: String]) {
    var object = JSONObjectText()
    for name in values.keys.sorted() { object.add(name, values[name] ?? "") }
    addRaw(key, object.text)
  }

  /// `text` as a JSON string: quotes, backslashes and control characters escaped.
  static func quoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case "\u{0}"..."\u{1F}", "\u{2028}", "\u{2029}":
        let hex = String(scalar.value, radix: 16)
        result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}
