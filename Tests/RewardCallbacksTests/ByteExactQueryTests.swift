import Foundation
import RewardCallbacks
import RewardCrypto
import Testing

/// The query is read as UTF-8 bytes: a combining mark or variation selector next to `&` or `=`
/// never merges with it (Swift's `Character` would: `=` followed by U+0301 is one grapheme).
@Suite("Callback queries are read byte by byte")
struct ByteExactQueryTests {
  static let marks: [Unicode.Scalar] = ["\u{0301}", "\u{0308}", "\u{FE0F}"]

  /// A fresh verifier, so a rejection is never a replay of an earlier test step.
  func verify(_ url: String) -> Result<VerifiedReward, CallbackRejection> {
    Result { () throws(CallbackRejection) in try GoogleSSVVerifier(keys: Fixture.keys).verify(url) }
  }

  /// `text` with every percent-encoded occurrence of `mark` written as its raw UTF-8 bytes.
  func rawMarks(_ text: String, _ mark: Unicode.Scalar) -> String {
    text.replacingOccurrences(of: PercentEncoding.encodeQueryComponent(String(mark)), with: String(mark))
  }

  @Test(arguments: marks, [false, true])
  func aMarkRightAfterUserIDIsKeptAndTheSmuggledVariantRefused(mark: Unicode.Scalar, raw: Bool) throws {
    var callback = Fixture.callback
    callback.transactionID = "tx-1"
    callback.userID = String(mark) + "alice"
    var genuine = try Fixture.signedURL(callback)
    if raw { genuine = rawMarks(genuine, mark) }
    // The genuine callback (its mark raw or percent-encoded) keeps its user id.
    let reward = try verify(genuine).get()
    #expect(reward.userID == String(mark) + "alice")
    #expect(reward.transactionID == "tx-1")
    // The variant: '&' and '=' in front of user_id percent-encoded. The signature still
    // verifies (it covers the decoded query), so the reading must refuse it.
    let smuggled = genuine.replacingFirst("&user_id=", with: "%26user_id%3D")
    let error = try #require(verify(smuggled).failure, "accepted: \(smuggled)")
    #expect(error.reason == .invalidParameter)
    #expect(error.parameter == "transaction_id")
  }

  @Test(arguments: marks, [false, true])
  func aMarkInFrontOfUserIDDoesNotHideTheSeparator(mark: Unicode.Scalar, raw: Bool) throws {
    // Signed over "…&transaction_id=tx-1&<mark>user_id=alice" (as Tink's tests sign their own
    // queries): the mark starts the next parameter's name.
    let encodedMark = raw ? String(mark) : PercentEncoding.encodeQueryComponent(String(mark))
    let query = "ad_network=1&ad_unit=2&reward_amount=1&reward_item=coins&timestamp=1&transaction_id=tx-1"
    let url = try signed(query + "&" + encodedMark + "user_id=alice")
    if case .success(let reward) = verify(url) {
      #expect(reward.transactionID == "tx-1")
      #expect(reward.userID == nil)
    }
    let smuggled = url.replacingFirst("tx-1&", with: "tx-1%26").replacingFirst("user_id=", with: "user_id%3D")
    let error = try #require(verify(smuggled).failure, "accepted: \(smuggled)")
    #expect(error.reason == .invalidParameter)
    #expect(error.parameter == "transaction_id")
  }

  @Test(arguments: marks)
  func aMarkAfterAnyEqualsSignOrAmpersandSplitsThere(mark: Unicode.Scalar) throws {
    // Raw marks right after the separators: '&' and '=' still split.
    let query = "custom_data=\(mark)&transaction_id=tx-2&user_id=\(mark)bob"
    let reward = try verify(try signed(query)).get()
    #expect(reward.transactionID == "tx-2")
    #expect(reward.userID == "\(mark)bob")
    #expect(reward.customData == "\(mark)")
  }

  @Test func customDataSmugglingNeverAddsAUserID() throws {
    // Google signed custom_data "x&user_id=victim" and no user_id at all.
    var callback = Fixture.callback
    callback.customData = "x&user_id=victim"
    callback.userID = nil
    let genuine = try Fixture.signedURL(callback)
    #expect(genuine.contains("custom_data=x%26user_id%3Dvictim&"))
    // Decoding '%26' and '%3D' back keeps the signed bytes, and would read as a user id.
    let smuggled = genuine.replacingFirst(
      "custom_data=x%26user_id%3Dvictim", with: "custom_data=x&user_id=victim")
    let error = try #require(verify(smuggled).failure, "accepted: \(smuggled)")
    #expect(error.reason == .invalidParameter)
    // The genuine one reads two ways too ('&' inside a signed value): refused, whatever follows '&'.
    let genuineError = try #require(verify(genuine).failure)
    #expect(genuineError.reason == .invalidParameter)
    #expect(genuineError.parameter == "custom_data")
    for data in ["a&b", "a&", "&", "x&zz=1"] {
      callback.customData = data
      #expect(verify(try Fixture.signedURL(callback)).failure?.parameter == "custom_data", "\(data)")
    }
  }

  /// `query` signed over its percent-decoded bytes, as a callback URL.
  func signed(_ query: String) throws -> String {
    let decoded = try #require(PercentEncodingBytes.decode(query))
    let signature = try Fixture.googleKey.signature(for: decoded)
    return
      "https://p.example/?\(query)&signature=\(Base64URL.encode(signature))&key_id=\(Fixture.googleKeyID)"
  }
}

/// Percent-decoding to bytes for the tests (independent of the code under test).
enum PercentEncodingBytes {
  static func decode(_ text: String) -> [UInt8]? {
    let input = Array(text.utf8)
    var output: [UInt8] = []
    var index = 0
    while index < input.count {
      if input[index] == UInt8(ascii: "%") {
        guard index + 2 < input.count,
          let byte = UInt8(String(decoding: input[index + 1...index + 2], as: UTF8.self), radix: 16)
        else { return nil }
        output.append(byte)
        index += 3
      } else {
        output.append(input[index])
        index += 1
      }
    }
    return output
  }
}
