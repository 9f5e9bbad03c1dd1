import Foundation
import RewardCallbacks
import RewardCrypto

/// Fixed inputs shared by the callback tests.
enum Fixture {
  static let eventKey = "s3cr3t-event-key"
  static let eventID = "8dc948013d71f2d2a54c8e31ab6f0e9c47b226e0"

  static var maxValues: [MaxMacro: String] {
    [
      .EVENT_ID: eventID, .USER_ID: "user-42", .AMOUNT: "100", .CURRENCY: "coins",
      .CUSTOM_DATA: "a&b=c d", .AD_UNIT_ID: "9ad0816ac071552a", .NETWORK_NAME: "APPLOVIN_BIDDING",
      .PLACEMENT: "level_complete", .IMPRESSION_TIMESTAMP: "1700000000",
    ]
  }

  /// ``maxValues`` with another event id.
  static func maxValues(eventID: String) -> [MaxMacro: String] {
    maxValues.merging([.EVENT_ID: eventID]) { $1 }
  }

  /// A deterministic Google signing key (scalar 0x01…01).
  static let googleKey = try! P256SigningKey(rawScalar: [UInt8](repeating: 0x01, count: 32))
  static let googleKeyID: UInt64 = 3_335_741_209

  static var keys: VerifierKeys { VerifierKeys.publishing([(id: googleKeyID, key: googleKey.publicKey)]) }

  static var callback: SSVCallback {
    SSVCallback(
      adNetwork: "5450213213286189855", adUnit: "1234567890", customData: "a=b c d", rewardAmount: 1,
      rewardItem: "Reward", timestamp: 1_507_770_365_237, transactionID: "123456789", userID: "1234567")
  }

  static func signedURL(_ callback: SSVCallback = callback) throws -> String {
    try callback.signedURL(base: "https://publisher.example/ssv", key: googleKey, keyID: googleKeyID)
  }
}

/// The error reading `json` as verifier keys, nil when it reads.
func keysError(_ json: String) -> CallbackFormatError? {
  do {
    _ = try VerifierKeys(json: Data(json.utf8))
    return nil
  } catch {
    return error
  }
}

/// The rejection `body` throws, or nil when it does not throw.
func rejection(_ body: () throws(CallbackRejection) -> VerifiedReward) -> CallbackRejection? {
  do {
    _ = try body()
    return nil
  } catch {
    return error
  }
}

extension String {
  /// The string with the first occurrence of `target` replaced, matched byte for byte (UTF-8), so
  /// a combining mark after the match does not hide it.
  func replacingFirst(_ target: String, with replacement: String) -> String {
    let bytes = Array(utf8)
    let needle = Array(target.utf8)
    guard !needle.isEmpty, needle.count <= bytes.count,
      let start = (0...(bytes.count - needle.count)).first(where: {
        bytes[$0..<$0 + needle.count].elementsEqual(needle)
      })
    else { return self }
    return String(
      decoding: bytes[..<start] + Array(replacement.utf8) + bytes[(start + needle.count)...], as: UTF8.self)
  }
}

extension Result {
  /// The error, nil on success.
  var failure: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
  /// The value, nil on failure.
  var success: Success? { try? get() }
}
