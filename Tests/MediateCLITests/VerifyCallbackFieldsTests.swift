import Foundation
import MediateCLI
import RewardCallbacks
import RewardCrypto
import Testing

/// `mediate verify-callback`: which fields a token covers, and the re-encoded replays.
@Suite("mediate verify-callback: covered fields and re-encoded replays")
struct VerifyCallbackFieldsTests {
  static let eventKey = VerifyCallbackCommandTests.eventKey

  static func json(_ line: String?) throws -> [String: Any] {
    let text = try #require(line)
    return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  @Test func aTemplateWithoutTokenAllListsTheFieldsNoTokenCovers() throws {
    let text = "https://r.example/cb?event={EVENT_ID}&token={EVENT_TOKEN}&user={USER_ID}&amount={AMOUNT}"
    let template = try MaxCallbackTemplate(text)
    let url = template.expand(
      [.EVENT_ID: VerifyCallbackCommandTests.eventID, .USER_ID: "u1", .AMOUNT: "100"], eventKey: Self.eventKey
    )
    let arguments = ["verify-callback", "--network", "max", "--key", Self.eventKey, "--template", text]
    let result = mediate(arguments + ["--json", url])
    #expect(result.code == 0)
    let object = try Self.json(result.out.first)
    #expect(object["unverified_fields"] as? [String] == ["user_id", "amount"])
    // Without --json, the text says so too.
    let plain = mediate(arguments + [url])
    #expect(plain.code == 0)
    #expect(
      plain.out.last
        == "  unverified      user_id, amount: no token covers them (the template has no {EVENT_TOKEN_ALL})")
  }

  @Test func tokenAllAndSignaturesLeaveNoFieldUnverified() throws {
    let max = mediate([
      "verify-callback", "--network", "max", "--key", Self.eventKey, "--json",
      VerifyCallbackCommandTests.maxURL,
    ])
    #expect(max.code == 0)
    #expect(try Self.json(max.out.first)["unverified_fields"] as? [String] == [])
    let google = mediate([
      "verify-callback", "--network", "google", "--keys", VerifyCallbackCommandTests.keysFile(), "--json",
      try VerifyCallbackCommandTests.googleURL(),
    ])
    #expect(google.code == 0)
    #expect(try Self.json(google.out.first)["unverified_fields"] as? [String] == [])
  }

  @Test(arguments: ["%CC%81", "%CC%88", "%EF%B8%8F"])
  func aReEncodedGoogleReplayIsRefusedWithTheSeenFile(mark: String) throws {
    let directory = NSTemporaryDirectory() + "fields-test-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let userID = try #require(PercentEncoding.decode(mark)) + "alice"
    let genuine = try SSVCallback(
      adNetwork: "5450213213286189855", adUnit: "1234567890", rewardAmount: 10, rewardItem: "coins",
      timestamp: 1_700_000_000_000, transactionID: "tx-1", userID: userID
    ).signedURL(base: "https://publisher.example/ssv", key: VerifyCallbackCommandTests.googleKey, keyID: 42)
    let arguments = [
      "verify-callback", "--network", "google", "--keys", VerifyCallbackCommandTests.keysFile(), "--seen",
      directory + "/seen.sqlite", "--json",
    ]
    let first = mediate(arguments + [genuine])
    #expect(first.code == 0)
    #expect(try Self.json(first.out.first)["user_id"] as? String == userID)
    #expect(mediate(arguments + [genuine]).code == 1)
    let variant = genuine.replacingOccurrences(of: "&user_id=", with: "%26user_id%3D")
    let result = mediate(arguments + [variant])
    #expect(result.code == 1, "\(result)")
    #expect(try Self.json(result.out.first)["reason"] as? String == "invalid_parameter")
  }
}
