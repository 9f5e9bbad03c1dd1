import RewardCallbacks
import RewardCrypto
import Testing

@Suite("MAX callback template: parsing and expansion")
struct MaxTemplateTests {
  @Test func standardTemplateCarriesTheDocumentedMacros() {
    let template = MaxCallbackTemplate.standard
    #expect(template.template == MaxCallbackTemplate.standardText)
    #expect(
      template.macros == [
        .EVENT_ID, .EVENT_TOKEN, .EVENT_TOKEN_ALL, .USER_ID, .AMOUNT, .CURRENCY, .CUSTOM_DATA, .AD_UNIT_ID,
        .NETWORK_NAME, .PLACEMENT, .IMPRESSION_TIMESTAMP,
      ])
    #expect(template.parameterName(for: .EVENT_ID) == "event_id")
    #expect(template.parameterName(for: .IDFA) == nil)
  }

  @Test func expandsValuesPercentEncodedAndComputesTheTokens() throws {
    let template = try MaxCallbackTemplate(
      "https://rewards.example/cb?src=max&user={USER_ID}&event={EVENT_ID}&token={EVENT_TOKEN}&data={CUSTOM_DATA}"
    )
    let url = template.expand(Fixture.maxValues, eventKey: Fixture.eventKey)
    let token = Digest.sha1Hex(Fixture.eventID + Fixture.eventKey)
    #expect(
      url == "https://rewards.example/cb?src=max&user=user-42&event=\(Fixture.eventID)&token=\(token)"
        + "&data=a%26b%3Dc%20d")
  }

  @Test func eventTokenAllHashesTheTemplatesMacrosByName() throws {
    let template = try MaxCallbackTemplate(
      "https://r.example/?u={USER_ID}&e={EVENT_ID}&a={AMOUNT}&t={EVENT_TOKEN}&all={EVENT_TOKEN_ALL}&c={CUSTOM_DATA}"
    )
    let values = Fixture.maxValues
    // By name: AMOUNT, CUSTOM_DATA, EVENT_ID, USER_ID; decoded values; then the key.
    let expected = Digest.sha256Hex("100" + "a&b=c d" + Fixture.eventID + "user-42" + Fixture.eventKey)
    #expect(template.eventTokenAll(values, eventKey: Fixture.eventKey) == expected)
    #expect(template.expand(values, eventKey: Fixture.eventKey).contains("&all=\(expected)&"))
    // Values given for the tokens are ignored: they are computed.
    var forged = values
    forged[.EVENT_TOKEN] = "0000"
    forged[.EVENT_TOKEN_ALL] = "1111"
    #expect(
      template.expand(forged, eventKey: Fixture.eventKey)
        == template.expand(values, eventKey: Fixture.eventKey))
  }

  @Test func missingValuesExpandToEmpty() throws {
    let template = try MaxCallbackTemplate("http://h/?u={USER_ID}&e={EVENT_ID}")
    #expect(template.expand([.EVENT_ID: "ab"], eventKey: "k") == "http://h/?u=&e=ab")
  }

  @Test func nonASCIIValuesAreUTF8PercentEncoded() throws {
    let template = try MaxCallbackTemplate("http://h/?d={CUSTOM_DATA}")
    #expect(template.expand([.CUSTOM_DATA: "é+/ ~"], eventKey: "k") == "http://h/?d=%C3%A9%2B%2F%20~")
  }

  @Test(
    arguments: [
      ("ftp://h/?e={EVENT_ID}", "offset 0", "absolute http(s) URL"),
      ("https:///?e={EVENT_ID}", "offset 8", "no host"),
      ("http://h/?e={EVENT_ID", "offset 12", "unbalanced '{'"),
      ("http://h/?e=EVENT_ID}", "offset 20", "unbalanced '}'"),
      ("http://h/?e={EVENT_ID{X}}", "offset 12", "unbalanced '{'"),
      ("http://h/?e={EVENT}", "offset 12", "unknown macro {EVENT}; known macros: {AD_UNIT_ID}"),
      ("http://h/?e={}", "offset 12", "unknown macro {}"),
      ("http://h/{USER_ID}?e={EVENT_ID}", "offset 9", "outside the query string"),
      ("http://h/?e=x{EVENT_ID}", "offset 13", "whole value of a query parameter"),
      ("http://h/?e={EVENT_ID}{USER_ID}", "offset 12", "whole value"),
      ("http://h/?{EVENT_ID}=1", "offset 10", "whole value"),
      ("http://h/?a={EVENT_ID}&b={EVENT_ID}", "offset 25", "appears twice"),
      ("http://h/?a={EVENT_ID}&a={USER_ID}", "offset 23", "parameter 'a' appears twice"),
      ("http://h/?a={EVENT_ID}#frag", "offset 22", "no fragment"),
      ("http://h/?a={EVENT_ID}&b=x y", "offset 26", "a space"),
      // A Kelvin sign (U+212A) is canonically equivalent to K, but not the same bytes.
      ("http://h/?a={PAC\u{212A}AGE_NAME}", "offset 12", "unknown macro"),
      // NFC é and NFD e + U+0301 are equal Strings but other bytes: two parameters, as a callback
      // URL's names are compared by bytes.
      ("http://h/?\u{E9}={EVENT_ID}&e\u{301}={USER_ID}", nil, ""),
    ] as [(String, String?, String)])
  func malformedTemplatesAreRefusedWithWhereAndWhat(template: String, location: String?, message: String) {
    do {
      let parsed = try MaxCallbackTemplate(template)
      // nil location: a template that parses (two names, canonically equivalent, other bytes).
      if location != nil { Issue.record("'\(template)' parsed") }
      #expect(location != nil || parsed.macros == [.EVENT_ID, .USER_ID])
    } catch {
      #expect(error.location == location, "\(template): \(error)")
      #expect(error.description.contains(message), "\(template): \(error)")
    }
  }
}
