import Foundation
import RewardCallbacks
import RewardCrypto
import Testing

@Suite("Google SSV verifier: every forged, tampered, replayed or malformed callback is rejected")
struct SSVRejectionTests {
  let verifier = GoogleSSVVerifier(keys: Fixture.keys)

  func verify(_ url: String) -> CallbackRejection? {
    rejection { () throws(CallbackRejection) in try verifier.verify(url) }
  }

  @Test func tamperedFieldsBreakTheSignature() throws {
    let url = try Fixture.signedURL()
    for (from, to) in [
      ("reward_amount=1", "reward_amount=9"), ("user_id=1234567", "user_id=1234568"),
      ("custom_data=a%3Db", "custom_data=a%3Dc"), ("transaction_id=123456789", "transaction_id=123456780"),
      ("ad_unit=1234567890", "ad_unit=1234567891"),
    ] {
      let error = verify(url.replacingFirst(from, with: to))
      #expect(error?.reason == .invalidSignature, "\(from) → \(to): \(String(describing: error))")
    }
  }

  @Test func everyByteOfTheSignedQueryIsCovered() throws {
    // Tink's own test: flipping any byte of the signed part fails (here: as a signature or a
    // malformed URL, never as a valid callback).
    let url = try Fixture.signedURL()
    let bytes = Array(url.utf8)
    let queryStart = bytes.firstIndex(of: UInt8(ascii: "?"))! + 1
    let signatureStart = url.utf8.distance(from: url.startIndex, to: url.range(of: "&signature=")!.lowerBound)
    for index in queryStart..<signatureStart {
      var modified = bytes
      modified[index] ^= 0x01
      let text = String(decoding: modified, as: UTF8.self)
      let error = verify(text)
      #expect(error != nil, "byte \(index) flipped still verifies: \(text)")
    }
  }

  @Test func wrongKeyIsRejected() throws {
    let other = P256SigningKey()
    let url = try Fixture.callback.signedURL(
      base: "https://p.example/ssv", key: other, keyID: Fixture.googleKeyID)
    let error = verify(url)
    #expect(error?.reason == .invalidSignature)
    #expect(error?.message.contains("key 3335741209") == true)
  }

  @Test func unknownKeyIDIsRejected() throws {
    let url = try Fixture.callback.signedURL(
      base: "https://p.example/ssv", key: Fixture.googleKey, keyID: Fixture.googleKeyID + 1)
    let error = verify(url)
    #expect(error?.reason == .unknownKey)
    #expect(error?.message == "no verifier key has key_id 3335741210; known key ids: 3335741209")
  }

  @Test func keyIDMustBeAnInteger() throws {
    let url = try Fixture.signedURL()
    for bad in ["abc", "-1", "+1", "1.5", "", "99999999999999999999"] {
      let modified = url.replacingFirst("key_id=\(Fixture.googleKeyID)", with: "key_id=\(bad)")
      #expect(verify(modified)?.reason == .invalidParameter, "key_id=\(bad)")
    }
  }

  @Test func signatureAndKeyIDMustBeLastInOrder() throws {
    let url = try Fixture.signedURL()
    let (head, tail) = split(url)
    let signature = tail[0]
    let keyID = tail[1]
    // key_id before signature.
    #expect(verify(head + "&" + keyID + "&" + signature)?.reason == .invalidParameter)
    // A parameter after key_id.
    let trailing = verify(url + "&extra=1")
    #expect(trailing?.reason == .invalidParameter)
    #expect(trailing?.message.contains("last two") == true)
    // Nothing signed at all.
    #expect(verify("https://p.example/ssv?" + signature + "&" + keyID)?.reason == .invalidParameter)
    // Missing ones.
    #expect(verify(head + "&" + keyID)?.reason == .missingParameter)
    #expect(verify(head + "&" + signature)?.parameter == "key_id")
    #expect(verify(head)?.parameter == "signature")
  }

  @Test func badSignatureEncodingsAreRejected() throws {
    let url = try Fixture.signedURL()
    let (head, tail) = split(url)
    let keyID = tail[1]
    let cases = [
      "signature=not+base64", "signature=abc/def", "signature=", "signature=A",
      "signature=" + Base64URL.encode([0x30, 0x02, 0x02, 0x00]),
      "signature=" + Base64URL.encode([UInt8](repeating: 7, count: 64)),
    ]
    for signature in cases {
      let error = verify(head + "&" + signature + "&" + keyID)
      #expect(error?.reason == .invalidSignature, "\(signature): \(String(describing: error))")
    }
    // A well-formed signature over other content.
    let other = try Fixture.googleKey.signature(for: Array("something else".utf8))
    #expect(verify(head + "&signature=" + Base64URL.encode(other) + "&" + keyID)?.reason == .invalidSignature)
  }

  @Test func paddedBase64SignatureIsAccepted() throws {
    let url = try Fixture.signedURL()
    let (head, tail) = split(url)
    let signature = try #require(Base64URL.decode(String(tail[0].dropFirst("signature=".count))))
    var padded = Base64URL.encode(signature)
    while padded.count % 4 != 0 { padded += "=" }
    #expect(throws: Never.self) { try verifier.verify(head + "&signature=" + padded + "&" + tail[1]) }
  }

  @Test func replayedTransactionIsRejectedOnlyAfterTheSignature() throws {
    let url = try Fixture.signedURL()
    // A forgery carrying the genuine transaction id is refused and does not burn it.
    let forged = try Fixture.callback.signedURL(
      base: "https://p.example/ssv", key: P256SigningKey(), keyID: Fixture.googleKeyID)
    #expect(verify(forged)?.reason == .invalidSignature)
    _ = try verifier.verify(url)
    let error = verify(url)
    #expect(error?.reason == .replayed)
    #expect(error?.parameter == "transaction_id")
  }

  @Test func reEncodingTheSignedQueryCannotMintANewTransactionID() throws {
    // The signature covers the *decoded* query, so a captured callback re-encoded ('&' → '%26',
    // '=' → '%3D', or back) still verifies: it must not read as another transaction id.
    let url = try Fixture.signedURL()
    #expect(try verifier.verify(url).transactionID == "123456789")
    let merged = url.replacingFirst(
      "transaction_id=123456789&user_id=1234567", with: "transaction_id=123456789%26user_id%3D1234567")
    let error = verify(merged)
    #expect(error?.reason == .invalidParameter, "\(String(describing: error))")
    #expect(error?.parameter == "transaction_id")

    // A user id carrying '&transaction_id=…' (the app sets it): the real id hidden in an earlier
    // value, the injected one exposed.
    var callback = Fixture.callback
    callback.transactionID = "real-tx"
    callback.userID = "u&transaction_id=injected-tx"
    let signed = try Fixture.signedURL(callback)
    let injected =
      signed
      .replacingFirst(
        "reward_item=Reward&timestamp=1507770365237&transaction_id=real-tx",
        with: "reward_item=Reward%26timestamp%3D1507770365237%26transaction_id%3Dreal-tx"
      )
      .replacingFirst(
        "user_id=u%26transaction_id%3Dinjected-tx", with: "user_id=u&transaction_id=injected-tx")
    #expect(verify(injected)?.reason == .invalidParameter)
    #expect(verify(signed)?.reason == .invalidParameter)
  }

  @Test func userIDOver8192CharactersIsOversize() throws {
    var callback = Fixture.callback
    callback.userID = String(repeating: "u", count: 8192)
    #expect(try verifier.verify(Fixture.signedURL(callback)).userID?.count == 8192)
    callback.userID = String(repeating: "u", count: 8193)
    callback.transactionID = "tx-oversize"
    let error = verify(try Fixture.signedURL(callback))
    #expect(error?.reason == .oversize)
    #expect(error?.message == "parameter 'user_id' (user id) is 8193 characters long; expected at most 8192")
    // The refused callback did not burn its id.
    callback.userID = "short"
    #expect(try verifier.verify(Fixture.signedURL(callback)).transactionID == "tx-oversize")
  }

  @Test func missingTransactionIDAndBadTimestampAreRejected() throws {
    var callback = Fixture.callback
    callback.transactionID = ""
    #expect(verify(try Fixture.signedURL(callback))?.reason == .missingParameter)
    // A signed query without the field at all (signed by the test, as Tink's tests do).
    let query = "ad_network=1&reward_amount=1&timestamp=soon&transaction_id=t"
    let signature = try Fixture.googleKey.signature(for: Array(query.utf8))
    let url =
      "https://p.example/?\(query)&signature=\(Base64URL.encode(signature))&key_id=\(Fixture.googleKeyID)"
    let error = verify(url)
    #expect(error?.reason == .invalidParameter)
    #expect(error?.parameter == "timestamp")
  }

  @Test func customDataRoundTripsPercentEncoded() throws {
    for data in ["a=b c d", "100% sure", "héllo wörld ✓ 🎉", "plus+sign", "key_id=1", "=="] {
      var callback = Fixture.callback
      callback.customData = data
      callback.transactionID = "tx-\(data.hashValue)"
      let url = try Fixture.signedURL(callback)
      #expect(try verifier.verify(url).customData == data, "\(data) → \(url)")
    }
  }

  @Test func customDataHoldingAnAmpersandOrSignatureIsRefused() throws {
    // The signed (decoded) query would read two ways, or Tink would take the wrong signature=.
    for data in ["a&b=c d", "key_id=1&signature=x", "&signature=", "signature=x", "x&"] {
      var callback = Fixture.callback
      callback.customData = data
      let error = verify(try Fixture.signedURL(callback))
      #expect(error?.reason == .invalidParameter, "\(data)")
      #expect(error?.parameter == "custom_data", "\(data)")
    }
    // The exact wire form: custom_data=a%26b%3Dc%20d, signed over "custom_data=a&b=c d".
    let query =
      "ad_network=1&ad_unit=2&custom_data=a%26b%3Dc%20d&reward_amount=1&reward_item=coins&timestamp=1&transaction_id=tx1"
    let decoded =
      "ad_network=1&ad_unit=2&custom_data=a&b=c d&reward_amount=1&reward_item=coins&timestamp=1&transaction_id=tx1"
    let signature = try Fixture.googleKey.signature(for: Array(decoded.utf8))
    let url =
      "https://p.example/?\(query)&signature=\(Base64URL.encode(signature))&key_id=\(Fixture.googleKeyID)"
    #expect(verify(url)?.message.contains("holds '&' once decoded") == true)
  }

  @Test func fieldsOutOfGooglesOrderOrUnknownAfterThemAreRefused() throws {
    for (query, parameter) in [
      ("transaction_id=t&ad_network=1", "ad_network"), ("ad_network=1&extra=2&transaction_id=t", "extra"),
      ("ad_network=1&&transaction_id=t", nil), ("transaction_id=t&user_id=u&user_id=v", "user_id"),
    ] as [(String, String?)] {
      let signature = try Fixture.googleKey.signature(for: Array(query.utf8))
      let url =
        "https://p.example/?\(query)&signature=\(Base64URL.encode(signature))&key_id=\(Fixture.googleKeyID)"
      let error = verify(url)
      #expect(error != nil, "\(query)")
      #expect(error?.parameter == parameter, "\(query): \(String(describing: error))")
    }
    // The publisher's own parameters come first, before Google's.
    let query = "app=demo&ad_network=1&transaction_id=t-order"
    let signature = try Fixture.googleKey.signature(for: Array(query.utf8))
    let url =
      "https://p.example/?\(query)&signature=\(Base64URL.encode(signature))&key_id=\(Fixture.googleKeyID)"
    #expect(try verifier.verify(url).transactionID == "t-order")
  }

  @Test func plusIsNotASpace() throws {
    // Signed over "custom_data=a+b" (a literal plus), as java.net.URI reads it.
    let query = "custom_data=a+b&transaction_id=tx-plus"
    let signature = try Fixture.googleKey.signature(for: Array(query.utf8))
    let url =
      "https://p.example/?\(query)&signature=\(Base64URL.encode(signature))&key_id=\(Fixture.googleKeyID)"
    #expect(try verifier.verify(url).customData == "a+b")
    // Signed over "a b" instead: a verifier reading '+' as a space would accept this; Tink does not.
    let spaced = try Fixture.googleKey.signature(for: Array("custom_data=a b&transaction_id=tx-plus2".utf8))
    let url2 =
      "https://p.example/?custom_data=a+b&transaction_id=tx-plus2&signature=\(Base64URL.encode(spaced))&key_id=\(Fixture.googleKeyID)"
    #expect(verify(url2)?.reason == .invalidSignature)
  }

  @Test func baseURLQueryIsSignedToo() throws {
    let url = try Fixture.callback.signedURL(
      base: "https://p.example/ssv?app=demo%20app", key: Fixture.googleKey, keyID: Fixture.googleKeyID)
    #expect(url.hasPrefix("https://p.example/ssv?app=demo%20app&ad_network="))
    let reward = try verifier.verify(url)
    #expect(reward.parameters.first == QueryParameter(name: "app", value: "demo app"))
    #expect(verify(url.replacingFirst("demo%20app", with: "evil%20app"))?.reason == .invalidSignature)
    #expect(throws: CallbackFormatError.self) {
      try Fixture.callback.signedURL(base: "ftp://p.example", key: Fixture.googleKey, keyID: 1)
    }
  }

  @Test(
    arguments: [
      ("", "empty URL"),
      ("not a url", "a space at offset 3"),
      ("ftp://p.example/?a=1", "neither an http(s) URL nor a request target"),
      ("https://?a=1", "no host"),
      ("https://p.example/ssv", "no query string"),
      ("https://p.example/?a=%zz&b=1", "bad percent-escape '%zz' at offset 21"),
      ("https://p.example/?a=%4", "bad percent-escape '%4' at offset 21"),
      ("https://p.example/?a=%FF", "does not decode to UTF-8"),
      ("https://p.example/?a=<b>", "'<' at offset 21"),
      ("https://p.example/?a=1\n", "a control character at offset 22"),
    ])
  func malformedURLsAreMalformed(url: String, message: String) {
    let error = verify(url)
    #expect(error?.reason == .malformed, "\(url)")
    #expect(error?.isMalformed == true)
    #expect(error?.message.contains(message) == true, "\(url): \(String(describing: error))")
  }

  @Test func duplicatedSignedFieldIsMalformed() throws {
    let query = "transaction_id=a&transaction_id=b"
    let signature = try Fixture.googleKey.signature(for: Array(query.utf8))
    let url =
      "https://p.example/?\(query)&signature=\(Base64URL.encode(signature))&key_id=\(Fixture.googleKeyID)"
    let error = verify(url)
    #expect(error?.reason == .malformed)
    #expect(error?.message == "parameter 'transaction_id' appears 2 times; expected it once")
  }

  /// The query before `&signature=`, and the two last parameters.
  private func split(_ url: String) -> (String, [String]) {
    let parts = url.components(separatedBy: "&")
    return (parts.dropLast(2).joined(separator: "&"), Array(parts.suffix(2)))
  }
}
