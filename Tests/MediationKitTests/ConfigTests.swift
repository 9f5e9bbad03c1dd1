import Foundation
import MediationKit
import Testing

@Suite("Config loading and validation")
struct ConfigTests {
  static let known: [NetworkID] = ["empower", "google", "max"]

  static func issues(_ json: String) -> [String] {
    do {
      _ = try MediationConfig.load(Data(json.utf8), source: "test.json", knownNetworks: known)
      return []
    } catch {
      return error.issues.map(\.description)
    }
  }

  static func zone(_ lineItems: String, extra: String = "") -> String {
    """
    {"zones": [{"id": "z", "reward": {"type": "coins", "amount": 5}, "loadTimeoutSeconds": 30,
      "adExpirySeconds": 3600, "rewardGraceSeconds": 5, "autoReload": true \(extra),
      "lineItems": [\(lineItems)]}]}
    """
  }

  static let item = #"{"network": "max", "placementId": "a", "priority": 0, "ecpm": 3, "timeoutSeconds": 5}"#

  @Test func validConfigLoads() throws {
    let config = try MediationConfig.load(
      Data(Self.zone(Self.item).utf8), source: "t", knownNetworks: Self.known)
    #expect(config.zones[0].lineItems[0].network == "max")
  }

  @Test func invalidJSONSaysSo() {
    let issues = Self.issues("{\"zones\": [")
    #expect(issues.count == 1)
    #expect(issues[0].hasPrefix("not valid JSON"))
  }

  @Test func wrongTypeNamesPathAndExpectation() {
    let issues = Self.issues(
      Self.zone(
        #"{"network": "max", "placementId": "a", "priority": 0, "ecpm": "high", "timeoutSeconds": 5}"#))
    #expect(issues == ["zones[0].lineItems[0].ecpm: expected a number, found a string"])
  }

  @Test func missingFieldIsNamed() {
    let issues = Self.issues(#"{"zones": [{"id": "z", "lineItems": []}]}"#)
    #expect(issues == ["zones[0]: missing required field 'reward'"])
  }

  @Test func negativeECPMReportsPathFoundAndExpected() {
    let issues = Self.issues(
      Self.zone(
        Self.item
          + #", {"network": "google", "placementId": "b", "priority": 1, "ecpm": -3, "timeoutSeconds": 5}"#))
    #expect(issues == ["zones[0].lineItems[1].ecpm: must be a finite number ≥ 0 and ≤ 10000, found -3"])
  }

  @Test func nonFiniteECPMIsRejected() {
    let issues = Self.issues(
      Self.zone(#"{"network": "max", "placementId": "a", "priority": 0, "ecpm": "NaN", "timeoutSeconds": 5}"#)
    )
    #expect(issues == ["zones[0].lineItems[0].ecpm: must be a finite number ≥ 0 and ≤ 10000, found NaN"])
  }

  @Test func duplicateLineItemsAreRejected() {
    let issues = Self.issues(Self.zone(Self.item + ", " + Self.item))
    #expect(issues == ["zones[0].lineItems[1]: duplicate line item max 'a', first at lineItems[0]"])
  }

  @Test func unknownNetworkListsKnownOnes() {
    let issues = Self.issues(
      Self.zone(#"{"network": "maxx", "placementId": "a", "priority": 0, "ecpm": 3, "timeoutSeconds": 5}"#))
    #expect(issues == ["zones[0].lineItems[0].network: unknown network 'maxx'; known: empower, google, max"])
  }

  @Test func emptyZonesAndLineItemsAreRejected() {
    #expect(Self.issues(#"{"zones": []}"#) == ["zones: must list at least one zone, found none"])
    #expect(
      Self.issues(Self.zone("")) == ["zones[0].lineItems: must list at least one line item, found none"])
  }

  @Test func absurdTimeoutsAreRejected() {
    let issues = Self.issues(
      Self.zone(#"{"network": "max", "placementId": "a", "priority": 0, "ecpm": 3, "timeoutSeconds": 0}"#)
        .replacingOccurrences(of: "\"loadTimeoutSeconds\": 30", with: "\"loadTimeoutSeconds\": 100000"))
    #expect(
      issues == [
        "zones[0].loadTimeoutSeconds: must be a finite number > 0 and ≤ 600 seconds, found 100000",
        "zones[0].lineItems[0].timeoutSeconds: must be a finite number > 0 and ≤ 120 seconds, found 0",
      ])
  }

  @Test func everyProblemIsReportedNotJustTheFirst() {
    let json = """
      {"zones": [
        {"id": "a", "reward": {"type": "", "amount": 0}, "loadTimeoutSeconds": 30, "adExpirySeconds": 3600,
         "rewardGraceSeconds": -1, "autoReload": false, "lineItems": [\(Self.item)]},
        {"id": "a", "reward": {"type": "gems", "amount": 1}, "loadTimeoutSeconds": 30, "adExpirySeconds": 3600,
         "rewardGraceSeconds": 5, "autoReload": false,
         "lineItems": [{"network": "max", "placementId": " ", "priority": -1, "ecpm": 3, "timeoutSeconds": 5}]}]}
      """
    #expect(
      Self.issues(json) == [
        "zones[0].reward.type: must be a non-empty string, found \"\"",
        "zones[0].reward.amount: must be an integer between 1 and 1000000000, found 0",
        "zones[0].rewardGraceSeconds: must be a finite number ≥ 0 and ≤ 60 seconds, found -1",
        "zones[1].id: duplicate zone id 'a', first used by zones[0]",
        "zones[1].lineItems[0].placementId: must be a non-empty string, found \"\"",
        "zones[1].lineItems[0].priority: must be an integer between 0 and 1000, found -1",
      ])
  }

  @Test func errorDescriptionPrefixesTheSource() {
    let error = MediationConfig.LoadError(
      source: "zones.json",
      issues: [MediationConfig.Issue(path: "zones[1].lineItems[0].ecpm", message: "bad")])
    #expect(error.description == "zones.json: zones[1].lineItems[0].ecpm: bad")
  }

  @Test func missingFileIsNamed() {
    #expect(throws: MediationConfig.LoadError.self) {
      try MediationConfig.load(contentsOf: URL(fileURLWithPath: "/nonexistent/zones.json"))
    }
  }
}

@Suite("Config: strategies, bidding and caps")
struct StrategyConfigTests {
  static func issues(_ json: String) -> [String] { ConfigTests.issues(json) }

  @Test func optionalFieldsDefault() throws {
    let config = try MediationConfig.load(Data(ConfigTests.zone(ConfigTests.item).utf8), source: "t")
    #expect(config.zones[0].strategy == .waterfall)
    #expect(config.zones[0].auctionTimeoutSeconds == 5)
    #expect(config.zones[0].caps == nil)
    #expect(config.zones[0].lineItems[0].bidding == false)
    #expect(config.zones[0].lineItems[0].bidFloor == 0)
  }

  @Test func unknownStrategyListsTheKnownOnes() {
    #expect(
      Self.issues(ConfigTests.zone(ConfigTests.item, extra: #", "strategy": "auction""#)) == [
        "zones[0].strategy: must be one of waterfall, bidding, hybrid, found 'auction'"
      ])
  }

  @Test func biddingNeedsABidder() {
    #expect(
      Self.issues(ConfigTests.zone(ConfigTests.item, extra: #", "strategy": "bidding""#)) == [
        "zones[0].lineItems: strategy 'bidding' needs at least one line item with \"bidding\": true, found none"
      ])
  }

  @Test func badFloorsTimeoutsAndCapsAreReported() {
    let bidderItem =
      #"{"network": "max", "placementId": "a", "priority": 0, "ecpm": 3, "timeoutSeconds": 5, "bidding": true, "bidFloor": -1}"#
    let extra =
      #", "strategy": "hybrid", "auctionTimeoutSeconds": 0, "caps": {"maxPerHour": 0, "minIntervalSeconds": -5}"#
    #expect(
      Self.issues(ConfigTests.zone(bidderItem, extra: extra)) == [
        "zones[0].auctionTimeoutSeconds: must be a finite number > 0 and ≤ 60 seconds, found 0",
        "zones[0].caps.maxPerHour: must be an integer between 1 and 100000, found 0",
        "zones[0].caps.minIntervalSeconds: must be a finite number ≥ 0 and ≤ 86400 seconds, found -5",
        "zones[0].lineItems[0].bidFloor: must be a finite number ≥ 0 and ≤ 10000, found -1",
      ])
  }
}
