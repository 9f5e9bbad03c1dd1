import Foundation
import MediateCLI
import RewardCallbacks
import RewardCrypto
import Testing

@Suite("mediate verify-callback")
struct VerifyCallbackCommandTests {
  static let eventKey = "cli-event-key"
  static let eventID = "0123456789abcdef0123456789abcdef01234567"
  static let googleKey = try! P256SigningKey(rawScalar: [UInt8](repeating: 0x02, count: 32))

  static var maxURL: String {
    MaxCallbackTemplate.standard.expand(maxValues(eventID: eventID), eventKey: eventKey)
  }

  /// The values of a valid MAX callback with event id `eventID`.
  static func maxValues(eventID: String) -> [MaxMacro: String] {
    [
      .EVENT_ID: eventID, .USER_ID: "u1", .AMOUNT: "100", .CURRENCY: "coins", .CUSTOM_DATA: "a&b=c d",
      .AD_UNIT_ID: "b3f1c0d2e4a59687", .NETWORK_NAME: "APPLOVIN_BIDDING",
      .IMPRESSION_TIMESTAMP: "1700000000000",
    ]
  }

  static func googleURL(keyID: UInt64 = 42) throws -> String {
    try SSVCallback(
      adNetwork: "5450213213286189855", adUnit: "1234567890", customData: "a=b c d", rewardAmount: 10,
      rewardItem: "coins", timestamp: 1_700_000_000_000, transactionID: "tx-cli", userID: "u1"
    ).signedURL(base: "https://publisher.example/ssv", key: googleKey, keyID: keyID)
  }

  static func keysFile() -> String {
    temporaryFile(
      String(
        decoding: VerifierKeys.publishing([(id: 42, key: googleKey.publicKey)]).jsonData(), as: UTF8.self))
  }

  @Test func validMaxCallbackExitsZeroWithItsFields() {
    let result = mediate(["verify-callback", "--network", "max", "--key", Self.eventKey, Self.maxURL])
    #expect(result.code == 0)
    #expect(result.err.isEmpty)
    #expect(result.out.first == "valid max callback")
    #expect(result.out.contains("  transaction id  \(Self.eventID)"))
    #expect(result.out.contains("  custom data     a&b=c d"))
  }

  @Test func validGoogleCallbackPrintsOneJSONObject() throws {
    let keys = Self.keysFile()
    let result = mediate([
      "verify-callback", "--network", "google", "--keys", keys, "--json", try Self.googleURL(),
    ])
    #expect(result.code == 0)
    #expect(result.out.count == 1)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.out[0].utf8)) as? [String: Any])
    #expect(object["valid"] as? Bool == true)
    #expect(object["network"] as? String == "google")
    #expect(object["transaction_id"] as? String == "tx-cli")
    #expect(object["custom_data"] as? String == "a=b c d")
    #expect(object["key_id"] as? Int == 42)
  }

  @Test func forgedOrTamperedCallbacksExitOneWithTheReason() throws {
    let forged = mediate(["verify-callback", "--network", "max", "--key", "wrong-key", Self.maxURL])
    #expect(forged.code == 1)
    #expect(forged.out.isEmpty)
    #expect(forged.err.first?.hasPrefix("Rejected (invalid_token): parameter 'token' does not match") == true)

    let keys = Self.keysFile()
    let tampered = try Self.googleURL().replacingOccurrences(of: "reward_amount=10", with: "reward_amount=99")
    let result = mediate(["verify-callback", "--network", "google", "--keys", keys, "--json", tampered])
    #expect(result.code == 1)
    #expect(result.err.first?.hasPrefix("Rejected (invalid_signature)") == true)
    #expect(result.out.first?.contains(#""reason":"invalid_signature""#) == true)

    let unknownKey = mediate([
      "verify-callback", "--network", "google", "--keys", keys, try Self.googleURL(keyID: 7),
    ])
    #expect(unknownKey.code == 1)
    #expect(unknownKey.err.first == "Rejected (unknown_key): no verifier key has key_id 7; known key ids: 42")
  }

  @Test func malformedURLTemplateOrKeysFileExitsSixtyFive() throws {
    let url = mediate(["verify-callback", "--network", "max", "--key", "k", "https://h.example/?a=%zz"])
    #expect(url.code == 65)
    #expect(url.err.first?.hasPrefix("Error: malformed callback URL: bad percent-escape '%zz'") == true)

    let template = mediate([
      "verify-callback", "--network", "max", "--key", "k", "--template", "http://h/?e={EVENT}", Self.maxURL,
    ])
    #expect(template.code == 65)
    #expect(template.err.first?.contains("--template: offset 12: unknown macro {EVENT}") == true)

    let noToken = mediate([
      "verify-callback", "--network", "max", "--key", "k", "--template", "http://h/?e={EVENT_ID}",
      Self.maxURL,
    ])
    #expect(noToken.code == 65)

    let keys = temporaryFile(#"{"keys":[{"keyId":"x"}]}"#)
    let file = mediate(["verify-callback", "--network", "google", "--keys", keys, try Self.googleURL()])
    #expect(file.code == 65)
    #expect(
      file.err.first
        == "Error: \(keys): keys[0].keyId: expected a non-negative integer literal from 0 to 9223372036854775807, found x"
    )
  }

  @Test func missingKeysFileExitsSixtySix() throws {
    let result = mediate([
      "verify-callback", "--network", "google", "--keys", "/nonexistent/keys.json", try Self.googleURL(),
    ])
    #expect(result.code == 66)
    #expect(result.err.first == "Error: /nonexistent/keys.json: no such file")
  }

  @Test(
    arguments: [
      (["verify-callback", "--network", "max", "--key", "k"], "missing the callback URL"),
      (["verify-callback", "--key", "k", "http://h/?a=1"], "missing --network; networks: max, google"),
      (
        ["verify-callback", "--network", "maxx", "--key", "k", "http://h/?a=1"],
        "unknown network 'maxx'; networks: max, google"
      ),
      (["verify-callback", "--network", "max", "http://h/?a=1"], "--network max needs --key KEY"),
      (["verify-callback", "--network", "max", "--key", "", "http://h/?a=1"], "--key is empty"),
      (["verify-callback", "--network", "google", "http://h/?a=1"], "--network google needs --keys FILE"),
      (
        ["verify-callback", "--network", "max", "--key", "k", "--keys", "f", "http://h/?a=1"],
        "--keys is for --network google"
      ),
      (
        ["verify-callback", "--network", "google", "--keys", "f", "--key", "k", "http://h/?a=1"],
        "--key and --template are for --network max"
      ),
      (
        ["verify-callback", "--network", "max", "--key", "k", "http://h/?a=1", "b=2"],
        "unexpected argument 'b=2'"
      ),
      (["verify-callback", "--network", "max", "--secret", "k"], "unknown option '--secret'"),
    ])
  func badUsageExitsSixtyFourWithUsage(arguments: [String], message: String) {
    let result = mediate(arguments)
    #expect(result.code == 64, "\(arguments)")
    #expect(result.err.first?.hasPrefix("Error: \(message)") == true, "\(result.err)")
    #expect(result.err.contains { $0.hasPrefix("Usage: mediate verify-callback --network max") })
    #expect(result.err.last == "See 'mediate verify-callback --help'.")
  }

  @Test func helpListsTheOptionsAndTheTopLevelHelpTheCommand() {
    let help = mediate(["verify-callback", "--help"])
    #expect(help.code == 0)
    let text = help.out.joined(separator: "\n")
    #expect(
      text.contains(
        "USAGE: mediate verify-callback --network max --key KEY [--template T] [--seen FILE|URL]"))
    #expect(text.contains("--keys FILE"))
    let top = mediate(["--help"]).out.joined(separator: "\n")
    #expect(top.contains("verify-callback   Verify a server-to-server reward callback URL"))
  }
}
