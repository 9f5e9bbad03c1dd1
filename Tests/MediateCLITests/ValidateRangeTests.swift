import Foundation
import Testing

/// `mediate validate` reports a number no field can hold, a fraction where an integer goes and a
/// field named twice at the field's path, as MediationConfig.load does for every source.
@Suite("mediate validate: ranges and duplicates")
struct ValidateRangeTests {
  static func config(ecpm: String = "3", amount: String = "1", extra: String = "") -> String {
    #"{"zones": [{"id": "z", "reward": {"type": "coins", "amount": "# + amount
      + #"}, "loadTimeoutSeconds": 30, "adExpirySeconds": 60, "rewardGraceSeconds": 1, "autoReload": false"#
      + extra + #", "lineItems": [{"network": "max", "placementId": "a", "priority": 0, "ecpm": "# + ecpm
      + #", "timeoutSeconds": 5}]}]}"#
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
