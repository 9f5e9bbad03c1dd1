import Foundation
import MediationKit
import MediationKitRemoteConfig
import Testing

/// What a server sends is validated by the same rules as a file: a number no field can hold, a
/// reward amount no network holds and a field named twice are refused at their paths.
@Suite("ConfigValidator: ranges and duplicates")
struct ConfigValidatorRangeTests {
  static func body(amount: String, extra: String = "") -> Data {
    Data(
      (#"{"zones": [{"id": "z", "reward": {"type": "coins", "amount": "# + amount
        + #"}, "loadTimeoutSeconds": 30, "adExpirySeconds": 60, "rewardGraceSeconds": 1, "autoReload": false"#
        + extra
        + #", "lineItems": [{"network": "empower", "placementId": "a", "priority": 0, "ecpm": 3, "timeoutSeconds": 5}]}]}"#)
        .utf8)
  }

  @Test(arguments: [
    ("9223372036854775807", "", "zones[0].reward.amount"),
    ("1e400", "", "zones[0].reward.amount"),
    ("5", #", "auctionTimeoutSeconds": 1e-400"#, "zones[0].auctionTimeoutSeconds"),
  ])
  func aServersBadNumberIsRefusedAtItsPath(amount: String, extra: String, path: String) {
    let validator = ConfigValidator(knownNetworks: ["empower"])
    #expect(throws: MediationConfig.LoadError.self) {
      try validator.validate(Self.body(amount: amount, extra: extra), source: "https://config.example/app")
    }
    do {
      _ = try validator.validate(
        Self.body(amount: amount, extra: extra), source: "https://config.example/app")
    } catch {
      #expect(error.issues.map(\.path) == [path], "\(error)")
    }
    #expect(
      (try? validator.validate(Self.body(amount: "1000000000"), source: "s"))?.zones[0].reward.amount
        == 1_000_000_000)
  }
}
