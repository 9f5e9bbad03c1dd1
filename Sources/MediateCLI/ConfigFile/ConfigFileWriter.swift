import Foundation
import MediationKit

/// Writes a ``MediationConfig`` as the JSON configuration file `MediationConfig` reads back to an
/// equal configuration: every setting spelled out (defaults included), zones and line items in
/// their order, keys in the order the documentation lists them and one line item per line, so the
/// file reads and diffs like a hand-written one.
///
/// The values come from the configuration's own `Encodable` conformance, so a setting added to
/// the model later is written too (after the known keys, in alphabetical order).
enum ConfigFileWriter {
  /// The top-level keys in the order they are written; `zones` always comes last.
  static let topKeys = ["version", "disabledNetworks"]
  /// The zone keys in the order they are written; `experiments` and then `lineItems` always come
  /// last.
  static let zoneKeys = [
    "id", "reward", "loadTimeoutSeconds", "adExpirySeconds", "rewardGraceSeconds", "autoReload", "strategy",
    "auctionTimeoutSeconds", "caps", "queueDepth", "autoECPM",
  ]
  /// The keys of nested objects (reward, caps, server callback) in the order they are written.
  static let nestedKeys = [
    "type", "amount", "maxPerHour", "maxPerDay", "minIntervalSeconds", "url", "eventKey",
  ]
  /// The line item keys in the order they are written.
  static let lineItemKeys = [
    "network", "placementId", "priority", "ecpm", "timeoutSeconds", "bidding", "bidFloor", "serverCallback",
    "disabled",
  ]
  /// An experiment's keys in the order they are written; `arms` always comes last.
  static let experimentKeys = ["id", "overrides"]
  /// An arm's keys in the order they are written; `lineItems`, when the arm has its own, comes last.
  static let armKeys = ["id", "weight", "strategy", "auctionTimeoutSeconds"]

  static func json(_ config: MediationConfig) -> String {
    var top = jsonObject(config)
    top["zones"] = nil
    let fields = ordered(top, order: topKeys).map { "  \(quoted($0.key)): \(inline($0.value))" }
    let zones = config.zones.map { zone in
      var object = jsonObject(zone)
      object["lineItems"] = nil
      object["experiments"] = nil
      let experiments = zone.experiments.map { experiment(jsonObject($0), indent: "        ") }
      let fields = ordered(object, order: zoneKeys).map { "      \(quoted($0.key)): \(inline($0.value))" }
      return "    {\n"
        + (fields + [
          "      \"experiments\": " + list(experiments, indent: "      "),
          "      \"lineItems\": " + lineItems(zone.lineItems, indent: "      "),
        ])
        .joined(separator: ",\n") + "\n    }"
    }
    return "{\n"
      + (fields + ["  \"zones\": [\n" + zones.joined(separator: ",\n") + "\n  ]"])
      .joined(separator: ",\n") + "\n}"
  }

  /// Line items one per line, in a list whose closing bracket is at `indent`.
  private static func lineItems(_ items: [ZoneConfig.LineItem], indent: String) -> String {
    list(items.map { indent + "  " + inline(jsonObject($0), order: lineItemKeys) }, indent: indent)
  }

  /// Lines (each already indented) as a JSON array whose closing bracket is at `indent`; `[]` when
  /// there are none.
  private static func list(_ lines: [String], indent: String) -> String {
    lines.isEmpty ? "[]" : "[\n" + lines.joined(separator: ",\n") + "\n\(indent)]"
  }

  /// An experiment at `indent`: its settings on one line, then one arm per line (an arm with its
  /// own line items lists them one per line).
  private static func experiment(_ object: [String: Any], indent: String) -> String {
    let arms = (object["arms"] as? [[String: Any]] ?? []).map { arm in
      var settings = arm
      settings["lineItems"] = nil
      let fields = ordered(settings, order: armKeys).map { "\(quoted($0.key)): \(inline($0.value))" }
      guard let items = arm["lineItems"] as? [[String: Any]] else {
        return "\(indent)  { " + fields.joined(separator: ", ") + " }"
      }
      let itemLines = items.map { "\(indent)    " + inline($0, order: lineItemKeys) }
      return "\(indent)  { "
        + (fields + ["\"lineItems\": " + list(itemLines, indent: indent + "  ")])
        .joined(separator: ", ") + " }"
    }
    var settings = object
    settings["arms"] = nil
    let fields = ordered(settings, order: experimentKeys).map { "\(quoted($0.key)): \(inline($0.value))" }
    return "\(indent){ "
      + (fields + ["\"arms\": " + list(arms, indent: indent)])
      .joined(separator: ", ") + " }"
  }

  /// A value's JSON object, through its `Encodable` conformance.
  private static func jsonObject(_ value: some Encodable) -> [String: Any] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    guard let data = try? encoder.encode(value),
      let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { preconditionFailure("a configuration always encodes to a JSON object") }
    return object
  }

  /// The object's entries: the keys of `order` first, in that order, then the rest alphabetically.
  private static func ordered(_ object: [String: Any], order: [String]) -> [(key: String, value: Any)] {
    let known = order.compactMap { key in object[key].map { (key: key, value: $0) } }
    let rest = object.filter { !order.contains($0.key) }.sorted { $0.key < $1.key }
    return known + rest.map { (key: $0.key, value: $0.value) }
  }

  private static func inline(_ object: [String: Any], order: [String]) -> String {
    if object.isEmpty { return "{}" }
    return "{ "
      + ordered(object, order: order).map { "\(quoted($0.key)): \(inline($0.value))" }
      .joined(separator: ", ") + " }"
  }

  /// Any JSON value on one line.
  private static func inline(_ value: Any) -> String {
    if let object = value as? [String: Any] { return inline(object, order: nestedKeys) }
    guard
      let data = try? JSONSerialization.data(
        withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes]),
      let text = String(data: data, encoding: .utf8)
    else { preconditionFailure("a decoded JSON value always encodes") }
    return text
  }

  private static func quoted(_ key: String) -> String { inline(key) }
}
