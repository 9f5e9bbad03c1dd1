import Foundation
import MediationKit
import Testing

/// Every numeric field's documented range (the table in the Configuration article), pinned at
/// its edges and just outside them, and the numbers no field can hold: each problem is one issue
/// at the field's own path, never "not valid JSON".
@Suite("Config: numeric ranges")
struct ConfigRangeTests {
  /// One numeric field: where it is, its range, and whether it takes only integers.
  struct Field: Sendable, CustomStringConvertible {
    let key: String
    let path: String
    let low: Double
    let high: Double
    let lowOpen: Bool
    let integer: Bool
    var description: String { path }
  }

  static let fields: [Field] = [
    Field(key: "amount", path: "zones[0].reward.amount", low: 1, high: 1e9, lowOpen: false, integer: true),
    Field(key: "load", path: "zones[0].loadTimeoutSeconds", low: 0, high: 600, lowOpen: true, integer: false),
    Field(
      key: "expiry", path: "zones[0].adExpirySeconds", low: 0, high: 86_400, lowOpen: true, integer: false),
    Field(
      key: "grace", path: "zones[0].rewardGraceSeconds", low: 0, high: 60, lowOpen: false, integer: false),
    Field(
      key: "auction", path: "zones[0].auctionTimeoutSeconds", low: 0, high: 60, lowOpen: true, integer: false),
    Field(
      key: "hour", path: "zones[0].caps.maxPerHour", low: 1, high: 100_000, lowOpen: false, integer: true),
    Field(key: "day", path: "zones[0].caps.maxPerDay", low: 1, high: 100_000, lowOpen: false, integer: true),
    Field(
      key: "interval", path: "zones[0].caps.minIntervalSeconds", low: 0, high: 86_400, lowOpen: false,
      integer: false),
    Field(key: "depth", path: "zones[0].queueDepth", low: 1, high: 5, lowOpen: false, integer: true),
    Field(
      key: "priority", path: "zones[0].lineItems[0].priority", low: 0, high: 1000, lowOpen: false,
      integer: true),
    Field(
      key: "ecpm", path: "zones[0].lineItems[0].ecpm", low: 0, high: 10_000, lowOpen: false, integer: false),
    Field(
      key: "floor", path: "zones[0].lineItems[0].bidFloor", low: 0, high: 10_000, lowOpen: false,
      integer: false),
    Field(
      key: "timeout", path: "zones[0].lineItems[0].timeoutSeconds", low: 0, high: 120, lowOpen: true,
      integer: false),
    Field(
      key: "weight", path: "zones[0].experiments[0].arms[0].weight", low: 1, high: 1_000_000, lowOpen: false,
      integer: true),
    Field(
      key: "armAuction", path: "zones[0].experiments[0].arms[1].auctionTimeoutSeconds", low: 0, high: 60,
      lowOpen: true, integer: false),
  ]

  static let defaults: [String: String] = [
    "amount": "5", "load": "30", "expiry": "3600", "grace": "5", "auction": "3", "hour": "6", "day": "30",
    "interval": "60", "depth": "2", "priority": "0", "ecpm": "3", "floor": "1", "timeout": "5",
    "weight": "50",
    "armAuction": "2",
  ]

  /// A configuration using every numeric field, `values` replacing the defaults.
  static func config(_ values: [String: String] = [:]) -> String {
    let v = defaults.merging(values) { $1 }
    func value(_ key: String) -> String { v[key] ?? "" }
    return """
      {"zones": [{"id": "z", "reward": {"type": "coins", "amount": \(value("amount"))},
        "loadTimeoutSeconds": \(value("load")), "adExpirySeconds": \(value("expiry")),
        "rewardGraceSeconds": \(value("grace")), "autoReload": true, "auctionTimeoutSeconds": \(value("auction")),
        "caps": {"maxPerHour": \(value("hour")), "maxPerDay": \(value("day")), "minIntervalSeconds": \(value("interval"))},
        "queueDepth": \(value("depth")),
        "lineItems": [{"network": "max", "placementId": "a", "priority": \(value("priority")),
          "ecpm": \(value("ecpm")), "bidFloor": \(value("floor")), "timeoutSeconds": \(value("timeout"))}],
        "experiments": [{"id": "e", "arms": [{"id": "control", "weight": \(value("weight"))},
          {"id": "fast", "weight": 50, "auctionTimeoutSeconds": \(value("armAuction"))}]}]}]}
      """
  }

  static func issues(_ json: String) -> [MediationConfig.Issue] {
    do {
      _ = try MediationConfig.load(Data(json.utf8), source: "t", knownNetworks: ["max"])
      return []
    } catch {
      return error.issues
    }
  }

  static func literal(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
  }

  @Test func theDefaultsAreValid() {
    #expect(Self.issues(Self.config()) == [])
  }

  @Test(arguments: fields)
  func everyValueInTheRangeIsAccepted(field: Field) {
    var inside = [field.high, (field.low + field.high) / 2]
    if field.integer {
      inside += [field.low, field.low + 1, field.high - 1]
      inside = inside.map { $0.rounded(.down) }
    } else {
      inside +=
        field.lowOpen ? [.leastNonzeroMagnitude, 1e-300, 0.001] : [field.low, .leastNonzeroMagnitude]
      inside.append(field.high.nextDown)
    }
    for value in inside {
      let literal = value == .leastNonzeroMagnitude ? "5e-324" : Self.literal(value)
      #expect(Self.issues(Self.config([field.key: literal])) == [], "\(field.path) = \(literal)")
    }
  }

  @Test(arguments: fields)
  func everyValueOutsideTheRangeIsOneIssueAtTheFieldsPath(field: Field) {
    var outside: [String] = [
      Self.literal(field.high + (field.integer ? 1 : max(1e-9 * field.high, 1e-6))), "1e30", "-1e30",
      "1e400", "-1e400", "\"NaN\"", "\"Infinity\"",
    ]
    outside.append(field.lowOpen ? "0" : Self.literal(field.integer ? field.low - 1 : field.low - 1e-6))
    if field.integer {
      outside += ["2.5", "9223372036854775807", "9223372036854775808", "-9223372036854775809", "1e19"]
    } else {
      outside += ["123456789012345678901234567890"]
      if field.lowOpen { outside += ["1e-400", "-5e-324"] }
    }
    for literal in outside {
      let issues = Self.issues(Self.config([field.key: literal]))
      #expect(issues.count == 1, "\(field.path) = \(literal): \(issues)")
      #expect(issues.first?.path == field.path, "\(field.path) = \(literal): \(issues)")
      #expect(issues.first?.message.contains("not valid JSON") == false, "\(literal): \(issues)")
    }
  }

  @Test func messagesSayWhatWasWrongAndWhatWasExpected() {
    func message(_ key: String, _ literal: String) -> String? {
      Self.issues(Self.config([key: literal])).first?.description
    }
    #expect(
      message("amount", "9223372036854775807")
        == "zones[0].reward.amount: must be an integer between 1 and 1000000000, found 9223372036854775807")
    #expect(message("priority", "2.5") == "zones[0].lineItems[0].priority: expected an integer, found 2.5")
    #expect(
      message("priority", "1e19")
        == "zones[0].lineItems[0].priority: expected an integer of at most 18 digits, found 1e+19")
    #expect(
      message("ecpm", "1e400")
        == "zones[0].lineItems[0].ecpm: too large to be held as a number, found 1e400 (see the field's range)"
    )
    #expect(
      message("load", "1e-400")
        == "zones[0].loadTimeoutSeconds: too small to be held as a number (it rounds to 0), found 1e-400 (see the field's range)"
    )
    #expect(
      message("ecpm", "1" + String(repeating: "0", count: 500) + "e1")?.contains("… (503 digits)") == true)
  }

  @Test func aFieldNamedTwiceInOneObjectIsRefusedAtItsPath() {
    let twice = Self.config().replacingOccurrences(
      of: #""amount": 5}"#, with: #""amount": 5, "amount": 9223372036854775807}"#)
    #expect(
      Self.issues(twice).map(\.description) == [
        "zones[0].reward.amount: appears more than once in its object; expected each field once"
      ])
    let zones = #"{"zones": [], "zones": []}"#
    #expect(Self.issues(zones).map(\.path) == ["zones"])
    // Names compare as decoded: an escape spelling the same name is the same name.
    let escaped = Self.config().replacingOccurrences(
      of: #""queueDepth": 2"#, with: #""queueDepth": 2, "queue\u0044epth": 5"#)
    #expect(Self.issues(escaped).map(\.path) == ["zones[0].queueDepth"])
    // The same name in two different objects is fine.
    #expect(Self.issues(Self.config()).isEmpty)
  }

  /// The article's table lists every field here with the same bounds.
  @Test func theConfigurationArticleDocumentsEveryRange() throws {
    let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent(
        "Sources/MediationKit/MediationKit.docc/ConfigurationRanges.md")
    let text = try String(contentsOf: article, encoding: .utf8)
    let rows = text.split(separator: "\n").filter { $0.hasPrefix("| `zones[]") }
    #expect(rows.count == Self.fields.count)
    for field in Self.fields {
      let documented = field.path.replacingOccurrences(of: "[0]", with: "[]").replacingOccurrences(
        of: "[1]", with: "[]")
      let row = rows.first { $0.hasPrefix("| `\(documented)`") }
      #expect(row != nil, "\(documented)")
      let formatter = NumberFormatter()
      formatter.numberStyle = .decimal
      formatter.groupingSeparator = ","
      formatter.usesGroupingSeparator = true
      let high = formatter.string(from: NSNumber(value: field.high)) ?? ""
      #expect(
        row?.contains(" \(high) ") == true || row?.contains(" \(high),") == true, "\(documented): \(high)")
      #expect(
        row?.contains(field.lowOpen ? "more than 0" : "\(Self.literal(field.low)) to") == true,
        "\(documented)")
      #expect(row?.contains("integer") == field.integer, "\(documented)")
    }
  }
}
