import RewardCallbacks
import RewardCrypto
import Testing

@Suite("MAX callback verifier")
struct MaxVerifierTests {
  let template = MaxCallbackTemplate.standard

  func url(_ values: [MaxMacro: String] = Fixture.maxValues, key: String = Fixture.eventKey) -> String {
    template.expand(values, eventKey: key)
  }

  @Test func expandedCallbackVerifiesWithItsFields() throws {
    let verifier = MaxCallbackVerifier(eventKey: Fixture.eventKey)
    let reward = try verifier.verify(url())
    #expect(reward.network == .max)
    #expect(reward.transactionID == Fixture.eventID)
    #expect(reward.userID == "user-42")
    #expect(reward.customData == "a&b=c d")
    #expect(reward.amount == "100")
    #expect(reward.currency == "coins")
    #expect(reward.adUnit == "9ad0816ac071552a")
    #expect(reward.adNetwork == "APPLOVIN_BIDDING")
    #expect(reward.timestamp == "1700000000")
    #expect(reward.keyID == nil)
  }

  @Test func requestTargetsVerifyToo() throws {
    let verifier = MaxCallbackVerifier(eventKey: Fixture.eventKey)
    let target = url().replacingFirst("http://127.0.0.1:8080", with: "")
    #expect(try verifier.verify(target).transactionID == Fixture.eventID)
  }

  @Test func forgedTokenIsRejected() {
    let verifier = MaxCallbackVerifier(eventKey: Fixture.eventKey)
    let forged = url(key: "guessed-key")
    let error = rejection { () throws(CallbackRejection) in try verifier.verify(forged) }
    #expect(error?.reason == .invalidToken)
    #expect(error?.parameter == "token")
  }

  @Test func tamperedValuesBreakTokenAll() {
    let verifier = MaxCallbackVerifier(eventKey: Fixture.eventKey)
    for (from, to) in [
      ("amount=100", "amount=1000"), ("user_id=user-42", "user_id=user-43"), ("a%26b", "a%26c"),
    ] {
      let tampered = url().replacingFirst(from, with: to)
      let error = rejection { () throws(CallbackRejection) in try verifier.verify(tampered) }
      #expect(error?.reason == .invalidToken, "\(from) → \(to)")
      #expect(error?.parameter == "token_all")
    }
  }

  @Test func replayedEventIsRejectedOnlyAfterTheTokenChecks() throws {
    let verifier = MaxCallbackVerifier(eventKey: Fixture.eventKey)
    // A forged callback with the real event id does not burn it.
    let forged = url(key: "guessed")
    #expect(
      rejection { () throws(CallbackRejection) in try verifier.verify(forged) }?.reason == .invalidToken)
    let genuine = url()
    _ = try verifier.verify(genuine)
    let error = rejection { () throws(CallbackRejection) in try verifier.verify(genuine) }
    #expect(error?.reason == .replayed)
    #expect(error?.message.contains(Fixture.eventID) == true)
  }
}
