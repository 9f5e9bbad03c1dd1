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
