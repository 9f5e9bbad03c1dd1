import Foundation
import MediationKit

/// Writes a ``MediationConfig`` as the JSON configuration file `ConfigLoader` reads back to an
/// equal configuration: every setting spelled out (defaults included), zones and line items in
/// their order, keys in the order the documentation lists them and one line item per line, so the
/// file reads and diffs like a hand-written one.
///
/// The values come from the configuration's own `Encodable` conformance, so a setting added to
/// the model later is written too (after the known keys, in alphabetical order).
enum ConfigFileWriter {
  /// The zone keys in the order they are written; `lineItems` always comes last.
  static let zoneKeys = [
    "id", "reward", "loadTimeoutSeconds", "adExpirySeconds", "rewardGraceSeconds", "autoReload", "strategy",
    "auctionTimeoutSeconds", "caps",
  ]
  /// The keys of nested objects (reward, caps, server callback) in the order they are written.
  static let nestedKeys = [
    "type", "amount", "maxPerHour", "maxPerDay", "minIntervalSeconds", "url", "eventKey",
  ]
  /// The line item keys in the order they are written.
  static let lineItemKeys = [
    "network", "placementId", "priority", "ecpm", "timeoutSeconds", "bidding", "bidFloor", "serverCallback",
  ]

  static func json(_ config: MediationConfig) -> String {
    let zones = config.zones.map { zone in
      var object = jsonObject(zone)
      let lineItems = zone.lineItems.map { "        " + inline(jsonObject($0), order: lineItemKeys) }
      object["lineItems"] = nil
      let fields = ordered(object, order: zoneKeys).map { "      \(quoted($0.key)): \(inline($0.value))" }
      return "    {\n"
        + (fields + ["      \"lineItems\": [\n" + lineItems.joined(separator: ",\n") + "\n      ]"])
        .joined(separator: ",\n") + "\n    }"
    }
    return "{\n  \"zones\": [\n" + zones.joined(separator: ",\n") + "\n  ]\n}"
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
    "{ "
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
