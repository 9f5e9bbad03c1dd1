import Foundation
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

@Suite("MAX callback verifier: rejections")
struct MaxRejectionTests {
  let verifier = MaxCallbackVerifier(eventKey: Fixture.eventKey)

  func url(_ values: [MaxMacro: String] = Fixture.maxValues) -> String {
    MaxCallbackTemplate.standard.expand(values, eventKey: Fixture.eventKey)
  }

  func verify(_ url: String, with verifier: MaxCallbackVerifier? = nil) -> CallbackRejection? {
    rejection { () throws(CallbackRejection) in try (verifier ?? self.verifier).verify(url) }
  }

  @Test func userIDAndCustomDataOver8192CharactersAreOversize() throws {
    var values = Fixture.maxValues
    values[.USER_ID] = String(repeating: "u", count: 8192)
    #expect(try verifier.verify(url(values)).userID?.count == 8192)
    values[.EVENT_ID] = String(repeating: "b", count: 40)
    values[.USER_ID] = String(repeating: "u", count: 8193)
    let error = verify(url(values))
    #expect(error?.reason == .oversize)
    #expect(error?.parameter == "user_id")
    #expect(error?.message == "parameter 'user_id' (user id) is 8193 characters long; expected at most 8192")
    values[.USER_ID] = "ok"
    values[.CUSTOM_DATA] = String(repeating: "é", count: 8193)
    #expect(verify(url(values))?.parameter == "custom_data")
    // Neither refusal burned the event id.
    values[.CUSTOM_DATA] = "ok"
    #expect(try verifier.verify(url(values)).transactionID == String(repeating: "b", count: 40))
  }

  @Test func eventIDMustBe40HexDigits() {
    for bad in ["abc", String(repeating: "g", count: 40), String(repeating: "a", count: 41), ""] {
      var values = Fixture.maxValues
      values[.EVENT_ID] = bad
      let error = verify(url(values))
      #expect(error?.reason == .invalidParameter, "\(bad)")
      #expect(error?.parameter == "event_id")
    }
  }

  @Test func requiredParametersMustBePresent() {
    let full = url()
    let withoutToken = full.replacingOccurrences(
      of: #"&token=[0-9a-f]+"#, with: "", options: .regularExpression)
    #expect(verify(withoutToken)?.reason == .missingParameter)
    #expect(verify(withoutToken)?.parameter == "token")
    let withoutEvent = full.replacingOccurrences(
      of: #"event_id=[0-9a-f]+&"#, with: "", options: .regularExpression)
    #expect(verify(withoutEvent)?.parameter == "event_id")
    // token_all covers every macro of the template, so each is required.
    let withoutAmount = full.replacingFirst("&amount=100", with: "")
    let error = verify(withoutAmount)
    #expect(error?.reason == .missingParameter)
    #expect(error?.parameter == "amount")
  }

  @Test func templateWithoutTokenAllChecksOnlyTheEventToken() throws {
    let template = try MaxCallbackTemplate(
      "https://r.example/cb?user={USER_ID}&event={EVENT_ID}&token={EVENT_TOKEN}")
    let lenient = MaxCallbackVerifier(template: template, eventKey: Fixture.eventKey)
    let genuine = template.expand(Fixture.maxValues, eventKey: Fixture.eventKey)
    // The user id is not protected by EVENT_TOKEN: AppLovin's token covers the event id only.
    #expect(try lenient.verify(genuine.replacingFirst("user-42", with: "user-43")).userID == "user-43")
    // Upper-case hex in the token is the same token.
    let upper = try MaxCallbackTemplate("https://r.example/cb?event={EVENT_ID}&token={EVENT_TOKEN}")
    let upperURL = upper.expand(Fixture.maxValues, eventKey: Fixture.eventKey)
    let token = MaxCallbackTemplate.eventToken(eventID: Fixture.eventID, eventKey: Fixture.eventKey)
    let verifier2 = MaxCallbackVerifier(template: upper, eventKey: Fixture.eventKey)
    #expect(
      try verifier2.verify(upperURL.replacingFirst(token, with: token.uppercased())).transactionID
        == Fixture.eventID)
  }

  @Test func templateWithoutTheTokenCannotVerifyAnything() throws {
    let template = try MaxCallbackTemplate("https://r.example/cb?event={EVENT_ID}")
    let verifier = MaxCallbackVerifier(template: template, eventKey: Fixture.eventKey)
    let error = verify(template.expand(Fixture.maxValues, eventKey: Fixture.eventKey), with: verifier)
    #expect(error?.reason == .missingParameter)
    #expect(error?.message.contains("the template has no {EVENT_TOKEN}") == true)
  }

  @Test func customDataWithReservedAndNonASCIICharactersRoundTrips() throws {
    for (index, data) in ["a&b=c d", "100%", "plus+sign", "héllo ✓ 🎉", "token=forged&event_id=x", ""]
      .enumerated()
    {
      var values = Fixture.maxValues
      values[.EVENT_ID] = String(repeating: String(index), count: 40)
      values[.CUSTOM_DATA] = data
      #expect(try verifier.verify(url(values)).customData == data, "\(data)")
    }
  }

  @Test func duplicatedParameterIsMalformed() {
    let error = verify(url() + "&user_id=someone-else")
    #expect(error?.reason == .malformed)
    #expect(error?.parameter == "user_id")
  }

  @Test func malformedURLsAreMalformed() {
    for bad in [
      "", "event_id=1", "https://h.example/path", "https://h.example/?a=%G0", "https://h.example/?a b",
    ] {
      #expect(verify(bad)?.reason == .malformed, "\(bad)")
    }
  }

  @Test func concurrentReplaysGrantOnce() async throws {
    let verifier = MaxCallbackVerifier(eventKey: Fixture.eventKey)
    let genuine = url()
    let accepted = await withTaskGroup(of: Bool.self) { group in
      for _ in 0..<16 {
        group.addTask { (try? verifier.verify(genuine)) != nil }
      }
      return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
    #expect(accepted == 1)
  }
}
