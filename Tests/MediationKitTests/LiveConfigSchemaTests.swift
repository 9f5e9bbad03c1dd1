import Foundation
import MediationKit
import Testing

/// The configuration fields for live mediation: `version`, the kill switch (`disabledNetworks`,
/// a line item's `disabled`), `queueDepth` and zone experiments.
@Suite("Config: version, kill switch, queue depth, experiments")
struct LiveConfigSchemaTests {
  static func issues(_ json: String) -> [String] { ConfigTests.issues(json) }
  static let item = ConfigTests.item
  static let bidder =
    #"{"network": "google", "placementId": "g", "priority": 0, "ecpm": 4, "timeoutSeconds": 5, "bidding": true}"#

  /// A one-zone config with `experiments` (the JSON array's contents).
  static func experiments(_ experiments: String, zoneExtra: String = "") -> String {
    ConfigTests.zone(Self.item, extra: "\(zoneExtra), \"experiments\": [\(experiments)]")
  }

  static func load(_ json: String) throws -> MediationConfig {
    try MediationConfig.load(Data(json.utf8), source: "t", knownNetworks: ConfigTests.known)
  }

  @Test func aConfigWithoutTheFieldsGetsTheDefaults() throws {
    let config = try Self.load(ConfigTests.zone(Self.item))
    #expect(config.version == nil)
    #expect(config.disabledNetworks.isEmpty)
    #expect(config.zones[0].queueDepth == 1)
    #expect(config.zones[0].experiments.isEmpty)
    #expect(config.zones[0].lineItems[0].disabled == false)
  }

  @Test func everyFieldIsRead() throws {
    let json = """
      {"version": "2026-12-01.3", "disabledNetworks": ["google"],
       "zones": [{"id": "z", "reward": {"type": "coins", "amount": 5}, "loadTimeoutSeconds": 30,
        "adExpirySeconds": 3600, "rewardGraceSeconds": 5, "autoReload": true, "queueDepth": 3,
        "experiments": [{"id": "e", "overrides": {"qa": "b"}, "arms": [{"id": "a", "weight": 1},
          {"id": "b", "weight": 3, "strategy": "hybrid", "auctionTimeoutSeconds": 2,
           "lineItems": [\(Self.item), \(Self.bidder)]}]}],
        "lineItems": [{"network": "max", "placementId": "a", "priority": 0, "ecpm": 3, "timeoutSeconds": 5,
          "disabled": true}]}]}
      """
    let config = try Self.load(json)
    #expect(config.version == "2026-12-01.3")
    #expect(config.disabledNetworks == ["google"])
    let zone = config.zones[0]
    #expect(zone.queueDepth == 3)
    #expect(zone.lineItems[0].disabled)
    let experiment = try #require(zone.experiments.first)
    #expect(experiment.id == "e")
    #expect(experiment.overrides == ["qa": "b"])
    #expect(experiment.arms.map(\.id) == ["a", "b"])
    #expect(experiment.arms.map(\.weight) == [1, 3])
    #expect(experiment.arms[0].lineItems == nil && experiment.arms[0].strategy == nil)
    #expect(experiment.arms[1].strategy == .hybrid)
    #expect(experiment.arms[1].auctionTimeoutSeconds == 2)
    #expect(experiment.arms[1].lineItems?.map(\.placementId) == ["a", "g"])
  }

  /// The kill switch: a switched-off line item, or any line item of a switched-off network, is
  /// not to be used.
  @Test func killSwitchDecidesWhichLineItemsAreEnabled() {
    let max = ZoneConfig.LineItem(network: "max", placementId: "m", priority: 0, ecpm: 1)
    let google = ZoneConfig.LineItem(network: "google", placementId: "g", priority: 0, ecpm: 1)
    let zone = ZoneConfig(
      id: "z", reward: ZoneConfig.RewardConfig(type: "c", amount: 1), lineItems: [max, google])
    var off = max
    off.disabled = true
    let config = MediationConfig(zones: [zone], disabledNetworks: ["google"])
    #expect(config.isEnabled(max))
    #expect(!config.isEnabled(off))
    #expect(!config.isEnabled(google))
  }

  @Test func versionAndDisabledNetworksAreChecked() {
    let body = ConfigTests.zone(Self.item).dropFirst()
    #expect(
      Self.issues(#"{"version": " ", "disabledNetworks": ["max", "unity", "max"],"# + body) == [
        "version: must be a non-empty string of at most 256 characters, found \" \"",
        "disabledNetworks[1]: unknown network 'unity'; known: empower, google, max",
        "disabledNetworks[2]: duplicate network 'max', first at disabledNetworks[0]",
      ])
    let long = String(repeating: "v", count: 257)
    #expect(
      Self.issues(#"{"version": "\#(long)","# + body) == [
        "version: must be a non-empty string of at most 256 characters, found 257 characters"
      ])
    #expect(Self.issues(#"{"version": 3,"# + body) == ["version: expected a string, found a number"])
    #expect(
      Self.issues(#"{"disabledNetworks": "max","# + body) == [
        "disabledNetworks: expected an array, found a string"
      ])
  }

  @Test(arguments: [
    ("0", "zones[0].queueDepth: must be an integer between 1 and 5, found 0"),
    ("6", "zones[0].queueDepth: must be an integer between 1 and 5, found 6"),
    ("-1", "zones[0].queueDepth: must be an integer between 1 and 5, found -1"),
    ("2.5", "zones[0].queueDepth: expected an integer, found 2.5"),
    ("\"2\"", "zones[0].queueDepth: expected an integer, found a string"),
  ])
  func queueDepthMustBeOneToFive(value: String, issue: String) {
    #expect(Self.issues(ConfigTests.zone(Self.item, extra: ", \"queueDepth\": \(value)")) == [issue])
    #expect(Self.issues(ConfigTests.zone(Self.item, extra: ", \"queueDepth\": 5")) == [])
  }

  @Test func lineItemDisabledMustBeABoolean() {
    let item =
      #"{"network": "max", "placementId": "a", "priority": 0, "ecpm": 3, "timeoutSeconds": 5, "disabled": 1}"#
    #expect(
      Self.issues(ConfigTests.zone(item)) == [
        "zones[0].lineItems[0].disabled: expected true or false, found a number"
      ])
  }

  @Test func experimentAndArmIdsWeightsAndArmCounts() {
    let json = Self.experiments(
      """
      {"id": "e", "arms": [{"id": "a", "weight": 1}, {"id": "a", "weight": 0}, {"id": " ", "weight": 1000001}]},
      {"id": "e", "arms": [{"id": "solo", "weight": -2}]},
      {"id": "", "arms": []}
      """)
    #expect(
      Self.issues(json) == [
        "zones[0].experiments[0].arms[1].id: duplicate id 'a', first used by arms[0]",
        "zones[0].experiments[0].arms[1].weight: must be an integer between 1 and 1000000, found 0",
        "zones[0].experiments[0].arms[2].id: must be a non-empty string, found \" \"",
        "zones[0].experiments[0].arms[2].weight: must be an integer between 1 and 1000000, found 1000001",
        "zones[0].experiments[1].id: duplicate id 'e', first used by experiments[0]",
        "zones[0].experiments[1].arms: must list 2 to 20 arms, found 1",
        "zones[0].experiments[1].arms[0].weight: must be an integer between 1 and 1000000, found -2",
        "zones[0].experiments[2].id: must be a non-empty string, found \"\"",
        "zones[0].experiments[2].arms: must list 2 to 20 arms, found 0",
      ])
  }

  /// Weights are whole numbers: relative shares (50/50, 1:1:2) need nothing finer, and integer
  /// arithmetic assigns users identically on every platform.
  @Test func decimalWeightsAndMissingFieldsAreNamed() {
    #expect(
      Self.issues(
        Self.experiments(#"{"id": "e", "arms": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 1}]}"#))
        == ["zones[0].experiments[0].arms[0].weight: expected an integer, found 0.5"])
    #expect(
      Self.issues(Self.experiments(#"{"id": "e", "arms": [{"id": "a"}, {"id": "b", "weight": 1}]}"#))
        == ["zones[0].experiments[0].arms[0]: missing required field 'weight'"])
    #expect(
      Self.issues(Self.experiments(#"{"arms": []}"#)) == [
        "zones[0].experiments[0]: missing required field 'id'"
      ])
    #expect(
      Self.issues(
        Self.experiments(
          #"{"id": "e", "arms": [{"id": "a", "weight": 1, "strategy": "best"}, {"id": "b", "weight": 1}]}"#)
      ) == [
        "zones[0].experiments[0].arms[0].strategy: must be one of waterfall, bidding, hybrid, found 'best'"
      ])
  }

  /// An arm's line items follow the zone's rules, with the arm's strategy.
  @Test func armLineItemsAreValidatedLikeTheZones() {
    let bad = #"{"network": "unity", "placementId": "", "priority": 0, "ecpm": -3, "timeoutSeconds": 5}"#
    let json = Self.experiments(
      """
      {"id": "e", "arms": [{"id": "a", "weight": 1, "lineItems": [\(bad), \(Self.item), \(Self.item)]},
        {"id": "b", "weight": 1, "lineItems": []},
        {"id": "c", "weight": 1, "strategy": "bidding", "lineItems": [\(Self.item)]},
        {"id": "d", "weight": 1, "auctionTimeoutSeconds": 0}]}
      """)
    #expect(
      Self.issues(json) == [
        "zones[0].experiments[0].arms[0].lineItems[0].network: unknown network 'unity'; known: empower, google, max",
        "zones[0].experiments[0].arms[0].lineItems[0].placementId: must be a non-empty string, found \"\"",
        "zones[0].experiments[0].arms[0].lineItems[0].ecpm: must be a finite number ≥ 0 and ≤ 10000, found -3",
        "zones[0].experiments[0].arms[0].lineItems[2]: duplicate line item max 'a', first at lineItems[1]",
        "zones[0].experiments[0].arms[1].lineItems: must list at least one line item, found none",
        "zones[0].experiments[0].arms[2].lineItems: strategy 'bidding' needs at least one line item with "
          + "\"bidding\": true, found none",
        "zones[0].experiments[0].arms[3].auctionTimeoutSeconds: must be a finite number > 0 and ≤ 60 seconds, found 0",
      ])
  }

  /// An arm that only changes the strategy runs it on the zone's line items, which must then have
  /// a bidder; so must an arm's own line items when the zone's strategy needs one.
  @Test func armStrategyNeedsABidderAmongTheLineItemsItRunsOn() {
    let strategyOnly = Self.experiments(
      #"{"id": "e", "arms": [{"id": "a", "weight": 1}, {"id": "b", "weight": 1, "strategy": "hybrid"}]}"#)
    #expect(
      Self.issues(strategyOnly) == [
        "zones[0].experiments[0].arms[1].strategy: strategy 'hybrid' needs at least one line item with "
          + "\"bidding\": true, found none"
      ])
    let biddingZone = """
      {"zones": [{"id": "z", "reward": {"type": "coins", "amount": 5}, "loadTimeoutSeconds": 30,
        "adExpirySeconds": 3600, "rewardGraceSeconds": 5, "autoReload": true, "strategy": "bidding",
        "experiments": [{"id": "e", "arms": [{"id": "a", "weight": 1},
          {"id": "b", "weight": 1, "lineItems": [\(Self.item)]},
          {"id": "c", "weight": 1, "strategy": "waterfall", "lineItems": [\(Self.item)]}]}],
        "lineItems": [\(Self.bidder)]}]}
      """
    #expect(
      Self.issues(biddingZone) == [
        "zones[0].experiments[0].arms[1].lineItems: strategy 'bidding' needs at least one line item with "
          + "\"bidding\": true, found none"
      ])
  }

  /// Several experiments on a zone are independent: a user is in one arm of each, so two may not
  /// override the same setting, and one's strategy must work with the other's line items.
  @Test func severalExperimentsMayNotCollide() {
    let collide = Self.experiments(
      """
      {"id": "one", "arms": [{"id": "a", "weight": 1, "strategy": "waterfall"}, {"id": "b", "weight": 1,
        "strategy": "waterfall", "auctionTimeoutSeconds": 2}]},
      {"id": "two", "arms": [{"id": "x", "weight": 1}, {"id": "y", "weight": 1, "auctionTimeoutSeconds": 3},
        {"id": "z", "weight": 1, "auctionTimeoutSeconds": 4, "strategy": "waterfall"}]}
      """)
    #expect(
      Self.issues(collide) == [
        "zones[0].experiments[1].arms[1].auctionTimeoutSeconds: also overridden by experiments[0]; two "
          + "experiments of a zone may not override the same setting (a user is in one arm of each)",
        "zones[0].experiments[1].arms[2].strategy: also overridden by experiments[0]; two "
          + "experiments of a zone may not override the same setting (a user is in one arm of each)",
      ])
    let crossed = Self.experiments(
      """
      {"id": "strategy", "arms": [{"id": "a", "weight": 1}, {"id": "bid", "weight": 1, "strategy": "bidding",
        "lineItems": [\(Self.bidder)]}]},
      {"id": "items", "arms": [{"id": "x", "weight": 1}, {"id": "y", "weight": 1, "lineItems": [\(Self.item)]}]}
      """)
    #expect(
      Self.issues(crossed) == [
        "zones[0].experiments[1].arms[1].lineItems: also overridden by experiments[0]; two "
          + "experiments of a zone may not override the same setting (a user is in one arm of each)",
        "zones[0].experiments[1].arms[1].lineItems: strategy 'bidding' needs at least one line item with "
          + "\"bidding\": true, found none (with experiments[0].arms[1].strategy 'bidding')",
      ])
    let strategyMeetsItems = Self.experiments(
      """
      {"id": "strategy", "arms": [{"id": "a", "weight": 1}, {"id": "bid", "weight": 1, "strategy": "hybrid"}]},
      {"id": "items", "arms": [{"id": "x", "weight": 1, "lineItems": [\(Self.bidder)]},
        {"id": "y", "weight": 1, "lineItems": [\(Self.item)]}]}
      """,
      zoneExtra: "")
    // The zone's own line items have no bidder either, so arm 'bid' is reported on its own too.
    #expect(
      Self.issues(strategyMeetsItems) == [
        "zones[0].experiments[0].arms[1].strategy: strategy 'hybrid' needs at least one line item with "
          + "\"bidding\": true, found none",
        "zones[0].experiments[1].arms[1].lineItems: strategy 'hybrid' needs at least one line item with "
          + "\"bidding\": true, found none (with experiments[0].arms[1].strategy 'hybrid')",
      ])
  }

  /// An arm's id made blank or repeated is one issue at that id: the overrides naming the arm
  /// that was there are its consequence, not a second problem to chase.
  @Test func aBadArmIDIsReportedAtTheArmNotAtTheOverridesNamingIt() {
    for (id, message) in [
      ("", #"must be a non-empty string, found """#), ("a", "duplicate id 'a', first used by arms[0]"),
    ] {
      let json = Self.experiments(
        #"{"id": "e", "overrides": {"qa-1": "b"}, "arms": [{"id": "a", "weight": 1}, {"id": ""#
          + id + #"", "weight": 1}]}"#)
      #expect(Self.issues(json) == ["zones[0].experiments[0].arms[1].id: \(message)"])
    }
  }

  /// An arm id too long, or holding a control character or a bidirectional override, is wrong
  /// in itself: one issue at that arm's id, quoting it escaped and short, and the override that
  /// named the arm before the change is not reported at `overrides`.
  @Test(arguments: [
    (String(repeating: "b", count: 129), "must be a string of at most 128 characters, found 129 characters"),
    (
      #"b\u001b]0;owned\u0007"#,
      #"must not contain control characters, found U+001B at character 2 of 'b\u{1B}]0;owned\u{7}'"#
    ),
    (#"b\u202e"#, #"must not contain control characters, found U+202E at character 2 of 'b\u{202E}'"#),
    (#"\t"#, #"must not contain control characters, found U+0009 at character 1 of '\u{9}'"#),
  ])
  func anArmIDWrongInItselfIsReportedAtTheArm(id: String, message: String) {
    let json = Self.experiments(
      #"{"id": "e", "overrides": {"qa-1": "b"}, "arms": [{"id": "a", "weight": 1}, {"id": ""#
        + id + #"", "weight": 1}]}"#)
    #expect(Self.issues(json) == ["zones[0].experiments[0].arms[1].id: \(message)"])
    // An experiment's id is held to the same rules.
    let experiment = Self.experiments(
      #"{"id": ""# + id + #"", "arms": [{"id": "a", "weight": 1}, {"id": "b", "weight": 1}]}"#)
    #expect(Self.issues(experiment) == ["zones[0].experiments[0].id: \(message)"])
  }

  /// A repeated long id is quoted short: a message never carries a whole hostile string.
  @Test func aRepeatedIDIsQuotedShort() {
    let id = String(repeating: "x", count: 100)
    let json = Self.experiments(
      #"{"id": "e", "arms": [{"id": ""# + id + #"", "weight": 1}, {"id": ""# + id + #"", "weight": 1}]}"#)
    #expect(
      Self.issues(json) == [
        "zones[0].experiments[0].arms[1].id: duplicate id '\(id.prefix(40))'… (100 characters), first used by arms[0]"
      ])
  }

  /// An arm renamed away from the id an override names: the override and the arm ids are the
  /// candidates, so the issue is at the override and names each arm's id by its path; a user id
  /// that is no plain name is written as a JSON string in the path, as the decoder's and the
  /// duplicate-field check's paths write it.
  @Test func aRenamedArmNamesTheArmIDsByPath() {
    let renamed = Self.experiments(
      #"{"id": "e", "overrides": {"qa \"1\"": "b"}, "arms": [{"id": "a", "weight": 1}, {"id": "b2", "weight": 1}]}"#
    )
    #expect(
      Self.issues(renamed) == [
        #"zones[0].experiments[0].overrides["qa \"1\""]: unknown arm 'b'; arms: arms[0].id 'a', arms[1].id 'b2' "#
          + "(fix the override, or the arm id it was meant to name)"
      ])
    let notAString = Self.experiments(
      #"{"id": "e", "overrides": {"qa-1": 5}, "arms": [{"id": "a", "weight": 1}, {"id": "b", "weight": 1}]}"#)
    #expect(
      Self.issues(notAString) == [
        #"zones[0].experiments[0].overrides["qa-1"]: expected a string, found a number"#
      ])
    let twice = Self.experiments(
      #"{"id": "e", "overrides": {"qa-1": "a", "qa-1": "b"}, "arms": [{"id": "a", "weight": 1}, {"id": "b", "weight": 1}]}"#
    )
    #expect(
      Self.issues(twice) == [
        #"zones[0].experiments[0].overrides["qa-1"]: appears more than once in its object; expected each field once"#
      ])
  }

  @Test func overridesMustNameAnArm() {
    let json = Self.experiments(
      #"{"id": "e", "overrides": {"qa-2": "b", "qa-1": "nope"}, "arms": [{"id": "a", "weight": 1}, {"id": "b", "weight": 1}]}"#
    )
    #expect(
      Self.issues(json) == [
        #"zones[0].experiments[0].overrides["qa-1"]: unknown arm 'nope'; arms: arms[0].id 'a', arms[1].id 'b' "#
          + "(fix the override, or the arm id it was meant to name)"
      ])
    #expect(
      Self.issues(Self.experiments(#"{"id": "e", "overrides": ["qa"], "arms": []}"#))
        == ["zones[0].experiments[0].overrides: expected an object, found an array"])
  }

  /// Bounds that keep validating a remote configuration quick: at most 10 experiments per zone,
  /// 20 arms per experiment.
  @Test func experimentAndArmCountsAreBounded() {
    let twoArms = #""arms": [{"id": "a", "weight": 1}, {"id": "b", "weight": 1}]"#
    let eleven = (0..<11).map { #"{"id": "e\#($0)", \#(twoArms)}"# }.joined(separator: ",")
    #expect(
      Self.issues(Self.experiments(eleven)) == [
        "zones[0].experiments: must list at most 10 experiments, found 11"
      ])
    let ten = (0..<10).map { #"{"id": "e\#($0)", \#(twoArms)}"# }.joined(separator: ",")
    #expect(Self.issues(Self.experiments(ten)) == [])
    let arms = (0..<21).map { #"{"id": "a\#($0)", "weight": 1}"# }.joined(separator: ",")
    #expect(
      Self.issues(Self.experiments(#"{"id": "e", "arms": [\#(arms)]}"#))
        == ["zones[0].experiments[0].arms: must list 2 to 20 arms, found 21"])
  }
}
