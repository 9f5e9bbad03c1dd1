import Foundation
import RewardCallbacks
import Testing

/// `{EVENT_TOKEN_ALL}` hashes the macro values back to back, so text can move across a boundary
/// with the token still valid: the documented shape of each macro pins the boundaries it can.
@Suite("MAX field formats")
struct MaxFieldFormatTests {
  func verify(
    _ url: String, template: MaxCallbackTemplate = .standard
  ) -> Result<VerifiedReward, CallbackRejection> {
    Result { () throws(CallbackRejection) in
      try MaxCallbackVerifier(template: template, eventKey: Fixture.eventKey).verify(url)
    }
  }

  @Test func digitsMovedFromTheAdUnitIDIntoTheAmountAreRefused() throws {
    var values = Fixture.maxValues
    values[.AD_UNIT_ID] = "9ad0816ac0710789"
    values[.AMOUNT] = "10"
    let genuine = MaxCallbackTemplate.standard.expand(values, eventKey: Fixture.eventKey)
    #expect(try verify(genuine).get().amount == "10")
    let shifted = genuine.replacingFirst("ad_unit_id=9ad0816ac0710789", with: "ad_unit_id=9ad0816ac07107")
      .replacingFirst("amount=10&", with: "amount=8910&")
    let error = try #require(verify(shifted).failure, "accepted: \(shifted)")
    #expect(error.reason == .invalidParameter)
    #expect(error.parameter == "ad_unit_id")
    #expect(error.message.contains("{AD_UNIT_ID}"))
    #expect(error.message.contains("16 hex digits"))
  }

  @Test func timestampDigitsMovedIntoTheNetworkNameAreRefused() throws {
    var values = Fixture.maxValues
    values[.IMPRESSION_TIMESTAMP] = "1700000000123"
    let genuine = MaxCallbackTemplate.standard.expand(values, eventKey: Fixture.eventKey)
    #expect(try verify(genuine).get().timestamp == "1700000000123")
    let shifted = genuine.replacingFirst("timestamp=1700000000123", with: "timestamp=1700000000")
      .replacingFirst("network=APPLOVIN_BIDDING", with: "network=123APPLOVIN_BIDDING")
    let error = try #require(verify(shifted).failure, "accepted: \(shifted)")
    #expect(error.reason == .invalidParameter)
    #expect(error.parameter == "network")
  }
}

/// Every macro with a documented shape is checked; free text is not.
@Suite("MAX field formats: every shaped macro")
struct MaxEveryFieldFormatTests {
  /// A template with every macro.
  static let template = try! MaxCallbackTemplate(
    "https://r.example/cb?"
      + MaxMacro.allCases.map { "\($0.rawValue.lowercased())={\($0.rawValue)}" }.joined(separator: "&"))

  static var values: [MaxMacro: String] {
    Fixture.maxValues.merging(
      [
        .AD_UNIT_NAME: "My App & Co", .CC: "gb", .IDFA: "860635ea-0c3b-4b8a-9c3e-1f0e2b3b30b9",
        .IDFV: "4CD1C3C4-7A0D-4D4B-9C1E-0A1B2C3D9E60", .IP: "fe80::1ff:fe23:4567:890a",
        .PACKAGE_NAME: "com.example.game",
        .PLATFORM: "android",
      ]
    ) { $1 }
  }

  func verify(_ values: [MaxMacro: String]) -> Result<VerifiedReward, CallbackRejection> {
    Result { () throws(CallbackRejection) in
      try MaxCallbackVerifier(template: Self.template, eventKey: Fixture.eventKey)
        .verify(Self.template.expand(values, eventKey: Fixture.eventKey))
    }
  }

  @Test func aCallbackWithEveryMacroInShapeVerifies() throws {
    let reward = try verify(Self.values).get()
    #expect(reward.unverifiedFields == [])
    // The optional ones may be empty; so may free text.
    var empty = Self.values
    for macro in [
      MaxMacro.CC, .IDFA, .IDFV, .IP, .PACKAGE_NAME, .PLATFORM, .USER_ID, .CUSTOM_DATA, .CURRENCY,
    ] {
      empty[macro] = ""
    }
    #expect(verify(empty).success != nil)
    var other = Self.values
    other[.IP] = "162.1.1.1"
    other[.AMOUNT] = "2.5"
    other[.PLATFORM] = "IOS"
    other[.NETWORK_NAME] = "Google AdMob"
    #expect(verify(other).success != nil)
  }

  @Test(
    arguments: [
      (MaxMacro.AD_UNIT_ID, "9ad0816ac071552", "16 hex digits"),
      (.AD_UNIT_ID, "9ad0816ac071552g", "16 hex digits"),
      (.AD_UNIT_ID, "", "16 hex digits"), (.AMOUNT, "", "digits"), (.AMOUNT, "1e3", "digits"),
      (.AMOUNT, "+10", "digits"),
      (.AMOUNT, "10.", "digits"), (.AMOUNT, "١٠", "digits"), (.CC, "gbr", "two-letter"),
      (.CC, "g1", "two-letter"),
      (.IDFA, "860635ea0c3b4b8a9c3e1f0e2b3b30b9", "UUID"), (.IDFV, "not-a-uuid", "UUID"),
      (.IMPRESSION_TIMESTAMP, "", "digits"), (.IMPRESSION_TIMESTAMP, "1700000000.5", "digits"),
      (.IMPRESSION_TIMESTAMP, "99999999999999999999", "digits"), (.IP, "1.2.3.4\u{0}", "IPv4 or IPv6"),
      (.IP, "300.1.1.1", "IPv4 or IPv6"), (.NETWORK_NAME, "", "MAX network name"),
      (.NETWORK_NAME, "APPLOVIN_BIDDING\u{301}", "MAX network name"),
      (.PACKAGE_NAME, "com.example/game", "package name"),
      (.PLATFORM, "windows", "ios, android or fireos"),
    ] as [(MaxMacro, String, String)])
  func aValueOutOfShapeIsAnInvalidParameterNamingFieldAndShape(macro: MaxMacro, value: String, shape: String)
    throws
  {
    var values = Self.values
    values[macro] = value
    let error = try #require(verify(values).failure, "\(macro) = \(value) accepted")
    #expect(error.reason == .invalidParameter)
    #expect(error.parameter == macro.rawValue.lowercased())
    #expect(error.message.contains(macro.placeholder), "\(error)")
    #expect(error.message.contains(shape), "\(error)")
  }

  @Test func extraNetworkNamesCanBeAccepted() throws {
    var values = Self.values
    values[.NETWORK_NAME] = "NEW_NETWORK_BIDDING"
    let url = Self.template.expand(values, eventKey: Fixture.eventKey)
    let verifier = MaxCallbackVerifier(
      template: Self.template, eventKey: Fixture.eventKey,
      networkNames: MaxCallbackVerifier.knownNetworkNames.union(["NEW_NETWORK_BIDDING"]))
    #expect(try verifier.verify(url).adNetwork == "NEW_NETWORK_BIDDING")
  }

  @Test func withoutTokenAllTheRewardListsTheFieldsNoTokenCovers() throws {
    let template = try MaxCallbackTemplate(
      "https://r.example/cb?event={EVENT_ID}&token={EVENT_TOKEN}&amount={AMOUNT}&user={USER_ID}&cur={CURRENCY}"
    )
    let reward = try MaxCallbackVerifier(template: template, eventKey: Fixture.eventKey)
      .verify(template.expand(Fixture.maxValues, eventKey: Fixture.eventKey))
    #expect(reward.unverifiedFields == [.userID, .amount, .currency])
    let onlyToken = try MaxCallbackTemplate("https://r.example/cb?event={EVENT_ID}&token={EVENT_TOKEN}")
    #expect(
      try MaxCallbackVerifier(template: onlyToken, eventKey: Fixture.eventKey)
        .verify(onlyToken.expand(Fixture.maxValues, eventKey: Fixture.eventKey)).unverifiedFields == [])
  }
}
