import Foundation
import RewardCallbacks
import RewardCrypto
import Testing

/// A property over random valid callbacks: re-encoding any of their bytes (percent-encoding a raw
/// byte, or decoding an escape) gives a callback that is refused, or read with exactly the
/// original's fields. Seeded: every run checks the same cases.
@Suite("Re-encoded callbacks read as the original or not at all")
struct ReEncodingPropertyTests {
  /// SplitMix64: a small seeded generator, so the cases are the same on every run.
  struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  /// Text pieces a value is drawn from: separators, escapes' own characters, combining marks and a
  /// variation selector, multi-byte characters.
  static let pieces = [
    "a", "Z", "7", "-", "_", ".", "~", " ", "+", "%", "=", "&", "/", "?", "#", "é", "\u{301}", "\u{308}",
    "\u{FE0F}", "🎉", "中", "user_id=", "&user_id=", "signature",
  ]

  static func text(_ random: inout SeededGenerator, maximum: Int = 6) -> String {
    (0..<Int.random(in: 0...maximum, using: &random)).map { _ in pieces.randomElement(using: &random)! }
      .joined()
  }

  static func hex(_ count: Int, _ random: inout SeededGenerator) -> String {
    String((0..<count).map { _ in "0123456789abcdef".randomElement(using: &random)! })
  }

  /// `url` with each `%XX` escape of its query decoded, and each other byte percent-encoded, with
  /// probability `rate`; at least one of them changed.
  static func reEncoded(_ url: String, rate: Double, _ random: inout SeededGenerator) -> String {
    let bytes = Array(url.utf8)
    let start = bytes.firstIndex(of: UInt8(ascii: "?"))! + 1
    var tokens: [[UInt8]] = []
    var index = start
    while index < bytes.count {
      let length = bytes[index] == UInt8(ascii: "%") && index + 2 < bytes.count ? 3 : 1
      tokens.append(Array(bytes[index..<index + length]))
      index += length
    }
    let forced = Int.random(in: 0..<tokens.count, using: &random)
    var output = Array(bytes[..<start])
    for (position, token) in tokens.enumerated() {
      guard position == forced || Double.random(in: 0..<1, using: &random) < rate else {
        output += token
        continue
      }
      if token.count == 3, let byte = UInt8(String(decoding: token.dropFirst(), as: UTF8.self), radix: 16) {
        output.append(byte)
      } else {
        let digits = Bool.random(using: &random) ? "0123456789ABCDEF" : "0123456789abcdef"
        let hex = Array(digits.utf8)
        output += [UInt8(ascii: "%"), hex[Int(token[0] >> 4)], hex[Int(token[0] & 0x0f)]]
      }
    }
    return String(decoding: output, as: UTF8.self)
  }

  /// Checks `variants` re-encodings of each of `count` callbacks `make` builds; returns how many
  /// variants were accepted (all with the original's fields).
  static func check(
    count: Int, variants: Int, seed: UInt64, make: (inout SeededGenerator) throws -> String,
    verify: (String) -> VerifiedReward?
  ) rethrows -> (originals: Int, accepted: Int) {
    var random = SeededGenerator(state: seed)
    var originals = 0
    var accepted = 0
    for _ in 0..<count {
      let url = try make(&random)
      let original = verify(url)
      if original != nil { originals += 1 }
      for _ in 0..<variants {
        let variant = reEncoded(url, rate: 0.02, &random)
        guard let reward = verify(variant) else { continue }
        accepted += 1
        #expect(original != nil, "a variant of a refused callback was accepted:\n\(url)\n\(variant)")
        #expect(reward == original, "a variant reads other fields:\n\(url)\n\(variant)")
      }
    }
    return (originals, accepted)
  }

  @Test func googleCallbacks() throws {
    let result = try Self.check(count: 250, variants: 8, seed: 0x5EED_0001) { random in
      let callback = SSVCallback(
        adNetwork: String(UInt64.random(in: 0...UInt64.max, using: &random)),
        adUnit:
          "ca-app-pub-\(Int.random(in: 0...9999, using: &random))/\(Int.random(in: 0...9999, using: &random))",
        customData: Bool.random(using: &random) ? Self.text(&random) : nil,
        rewardAmount: Int.random(in: 0...1000, using: &random),
        rewardItem: Self.text(&random, maximum: 3) + "c",
        timestamp: Int64.random(in: 1_500_000_000_000...1_900_000_000_000, using: &random),
        transactionID: Self.hex(16, &random), userID: Bool.random(using: &random) ? Self.text(&random) : nil)
      return try callback.signedURL(
        base: "https://p.example/ssv", key: Fixture.googleKey, keyID: Fixture.googleKeyID)
    } verify: { url in
      try? GoogleSSVVerifier(keys: Fixture.keys).verify(url)
    }
    // The generator produces both kinds: callbacks that verify, and variants that do too.
    #expect(result.originals > 50)
    #expect(result.accepted > 50)
  }

  @Test func maxCallbacks() throws {
    let template = MaxCallbackTemplate.standard
    let result = Self.check(count: 250, variants: 8, seed: 0x5EED_0002) { random in
      let values: [MaxMacro: String] = [
        .EVENT_ID: Self.hex(40, &random), .AD_UNIT_ID: Self.hex(16, &random),
        .AMOUNT: String(Int.random(in: 0...100_000, using: &random)),
        .CURRENCY: Self.text(&random, maximum: 3),
        .CUSTOM_DATA: Self.text(&random), .USER_ID: Self.text(&random),
        .PLACEMENT: Self.text(&random, maximum: 2),
        .NETWORK_NAME: ["APPLOVIN_BIDDING", "Google AdMob", "Unity Ads"].randomElement(using: &random)!,
        .IMPRESSION_TIMESTAMP: String(
          Int64.random(in: 1_500_000_000_000...1_900_000_000_000, using: &random)),
      ]
      return template.expand(values, eventKey: Fixture.eventKey)
    } verify: { url in
      try? MaxCallbackVerifier(template: template, eventKey: Fixture.eventKey).verify(url)
    }
    #expect(result.originals == 250)
    #expect(result.accepted > 50)
  }
}
