import Foundation
import RewardCallbacks
import RewardCrypto
import Testing

@Suite("Google SSV: building, keys, verification")
struct SSVTests {
  @Test func queryIsInGooglesOrderPercentEncoded() throws {
    let callback = Fixture.callback
    #expect(
      callback.unsignedQuery
        == "ad_network=5450213213286189855&ad_unit=1234567890&custom_data=a%3Db%20c%20d&reward_amount=1"
        + "&reward_item=Reward&timestamp=1507770365237&transaction_id=123456789&user_id=1234567")
    var withoutCustomData = callback
    withoutCustomData.customData = nil
    #expect(!withoutCustomData.unsignedQuery.contains("custom_data"))
    let signed = try callback.signedQuery(with: Fixture.googleKey, keyID: 7)
    #expect(signed.hasPrefix(callback.unsignedQuery + "&signature="))
    #expect(signed.hasSuffix("&key_id=7"))
  }

  @Test func signatureCoversTheDecodedQuery() throws {
    let signed = try Fixture.callback.signedQuery(with: Fixture.googleKey, keyID: 7)
    let parts = signed.components(separatedBy: "&signature=")
    let signatureText = try #require(parts[1].components(separatedBy: "&key_id=").first)
    let signature = try #require(Base64URL.decode(signatureText))
    let decoded =
      "ad_network=5450213213286189855&ad_unit=1234567890&custom_data=a=b c d&reward_amount=1"
      + "&reward_item=Reward&timestamp=1507770365237&transaction_id=123456789&user_id=1234567"
    #expect(Fixture.googleKey.publicKey.isValidSignature(signature, for: Array(decoded.utf8)))
    #expect(!Fixture.googleKey.publicKey.isValidSignature(signature, for: Array(parts[0].utf8)))
  }

  @Test func signedURLVerifiesWithItsFields() throws {
    let verifier = GoogleSSVVerifier(keys: Fixture.keys)
    let reward = try verifier.verify(try Fixture.signedURL())
    #expect(reward.network == .google)
    #expect(reward.transactionID == "123456789")
    #expect(reward.userID == "1234567")
    #expect(reward.customData == "a=b c d")
    #expect(reward.amount == "1")
    #expect(reward.currency == "Reward")
    #expect(reward.adUnit == "1234567890")
    #expect(reward.adNetwork == "5450213213286189855")
    #expect(reward.timestamp == "1507770365237")
    #expect(reward.keyID == Fixture.googleKeyID)
    #expect(reward.parameters.count == 8)
  }

  @Test func verifierKeysJSONRoundTrips() throws {
    let keys = Fixture.keys
    let json = keys.jsonData()
    let text = String(decoding: json, as: UTF8.self)
    #expect(text.contains("\"keyId\" : 3335741209"))
    #expect(text.contains("-----BEGIN PUBLIC KEY-----\\n"))
    #expect(text.contains("\"base64\" : \"MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE"))
    let parsed = try VerifierKeys(json: json)
    #expect(parsed == keys)
    #expect(parsed.key(id: Fixture.googleKeyID) == Fixture.googleKey.publicKey)
    #expect(parsed.key(id: 1) == nil)
  }
}
