import Foundation
import Testing

/// `mediate validate` reports a number no field can hold, a fraction where an integer goes, a
/// field named twice and an arm id wrong in itself at the field's path, as MediationConfig.load
/// does for every source.
@Suite("mediate validate: ranges and duplicates")
struct ValidateRangeTests {
  static func config(ecpm: String = "3", amount: String = "1", extra: String = "") -> String {
    #"{"zones": [{"id": "z", "reward": {"type": "coins", "amount": "# + amount
      + #"}, "loadTimeoutSeconds": 30, "adExpirySeconds": 60, "rewardGraceSeconds": 1, "autoReload": false"#
      + extra + #", "lineItems": [{"network": "max", "placementId": "a", "priority": 0, "ecpm": "# + ecpm
      + #", "timeoutSeconds": 5}]}]}"#
  }

  /// An experiment whose override puts user `qa-1` in arm `b`, and whose second arm's id is
  /// `secondArm` (raw JSON string contents).
  static func experiment(secondArm: String) -> String {
    #", "experiments": [{"id": "e", "overrides": {"qa-1": "b"}, "arms": [{"id": "a", "weight": 1}, {"id": ""#
      + secondArm + #"", "weight": 1}]}]"#
  }

  @Test(arguments: [
    (config(ecpm: "1e400"), "zones[0].lineItems[0].ecpm: too large to be held as a number"),
    (config(ecpm: "1e-400"), "zones[0].lineItems[0].ecpm: too small to be held as a number"),
    (config(amount: "2.5"), "zones[0].reward.amount: expected an integer, found 2.5"),
    (
      config(amount: "9223372036854775807"),
      "zones[0].reward.amount: must be an integer between 1 and 1000000000, found 9223372036854775807"
    ),
    (
      config(amount: "99999999999999999999"),
      "zones[0].reward.amount: expected an integer of at most 18 digits"
    ),
    (config(extra: #", "queueDepth": 2, "queueDepth": 3"#), "zones[0].queueDepth: appears more than once"),
    // An arm id changed into one that is wrong in itself is reported at that id, not at the
    // override that named the arm.
    (
      config(extra: experiment(secondArm: #"b\u001b]0;owned\u0007"#)),
      "zones[0].experiments[0].arms[1].id: must not contain control characters, found U+001B"
    ),
    (
      config(extra: experiment(secondArm: String(repeating: "b", count: 129))),
      "zones[0].experiments[0].arms[1].id: must be a string of at most 128 characters, found 129"
    ),
    (config(extra: experiment(secondArm: "a")), "zones[0].experiments[0].arms[1].id: duplicate id 'a'"),
  ])
  func aBadNumberIsReportedAtItsPath(json: String, expected: String) throws {
    let path = temporaryFile(json)
    let text = mediate(["validate", path])
    #expect(text.code == 65)
    #expect(text.err.count == 1)
    #expect(text.err.first?.hasPrefix("\(path): \(expected)") == true, "\(text.err)")
    let machine = mediate(["validate", path, "--json"])
    let object = try #require(
      JSONSerialization.jsonObject(with: Data((machine.out.first ?? "").utf8)) as? [String: Any])
    let issues = try #require(object["issues"] as? [[String: String]])
    #expect(issues.count == 1)
    #expect(expected.hasPrefix((issues.first?["path"] ?? "?") + ": "))
    // The cycle refuses it the same way.
    let run = mediate(["--config", path])
    #expect(run.code == 65)
    #expect(run.err.first?.contains(expected) == true, "\(run.err)")
  }
}
