import Foundation
import RewardCallbacks
import RewardCrypto
import Testing

@Suite("VerifierKeys: Google's verifier-keys JSON")
struct VerifierKeysTests {
  static let base64 = Data(Fixture.googleKey.publicKey.derRepresentation).base64EncodedString()
  static let pem = Fixture.googleKey.publicKey.pemRepresentation

  func parse(_ json: String) -> CallbackFormatError? { keysError(json) }

  @Test func readsGooglesFormatWithBase64PEMOrBoth() throws {
    let pemJSON = String(decoding: try JSONEncoder().encode(Self.pem), as: UTF8.self)
    let both = try VerifierKeys(
      json: Data(#"{"keys":[{"keyId":1916455855,"pem":\#(pemJSON),"base64":"\#(Self.base64)"}]}"#.utf8))
    #expect(both.key(id: 1_916_455_855) == Fixture.googleKey.publicKey)
    let onlyBase64 = try VerifierKeys(json: Data(#"{"keys":[{"keyId":1,"base64":"\#(Self.base64)"}]}"#.utf8))
    #expect(onlyBase64.keyIDs == [1])
    let onlyPEM = try VerifierKeys(json: Data(#"{"keys":[{"keyId":"2","pem":\#(pemJSON)}]}"#.utf8))
    #expect(onlyPEM.key(id: 2) == Fixture.googleKey.publicKey)
  }

  @Test(
    arguments: [
      ("", nil, "not valid JSON"),
      ("[]", nil, "expected a JSON object {\"keys\": [...]}, found an array"),
      (#"{"keys":[5]}"#, "keys[0]", "expected an object, found a number"),
      (#"{"key":[]}"#, "keys", "missing"),
      (#"{"keys":{}}"#, "keys", "expected an array, found an object"),
      (#"{"keys":[]}"#, "keys", "no keys; expected at least one"),
      (#"{"keys":[{"base64":"B64"}]}"#, "keys[0].keyId", "missing; expected 'keyId', an integer"),
      (#"{"keys":[{"keyId":-1,"base64":"B64"}]}"#, "keys[0].keyId", "expected a non-negative integer"),
      (#"{"keys":[{"keyId":1.5,"base64":"B64"}]}"#, "keys[0].keyId", "expected a non-negative integer"),
      (#"{"keys":[{"keyId":"x1","base64":"B64"}]}"#, "keys[0].keyId", "expected a non-negative integer"),
      (#"{"keys":[{"keyId":1}]}"#, "keys[0].base64", "expected 'base64' or 'pem'"),
      (#"{"keys":[{"keyId":1,"base64":"%%%"}]}"#, "keys[0].base64", "not base64"),
      (#"{"keys":[{"keyId":1,"base64":"AAAA"}]}"#, "keys[0].base64", "not a DER SubjectPublicKeyInfo"),
      (#"{"keys":[{"keyId":1,"base64":7}]}"#, "keys[0].base64", "expected a string, found a number"),
      (#"{"keys":[{"keyId":1,"pem":"nope"}]}"#, "keys[0].pem", "no '-----BEGIN PUBLIC KEY-----' block"),
      (
        #"{"keys":[{"keyId":1,"base64":"B64"},{"keyId":1,"base64":"B64"}]}"#, "keys[1].keyId", "appears twice"
      ),
      (#"{"keys":[{"keyId":1,"base64":"K1"}]}"#, "keys[0].base64", "secp256k1"),
    ] as [(String, String?, String)])
  func malformedFilesNameThePathAndTheExpectation(json: String, location: String?, message: String) {
    let secp256k1 =
      "MFYwEAYHKoZIzj0CAQYFK4EEAAoDQgAEI2QhsnZIEhQJxtMkwGzXphC+QD84wyCBQaL0cpqPMHn7UxDKcQSP23uQzzaK6PYAwr+P8yun3SH+ARFWWZzQ4Q=="
    let text = json.replacingOccurrences(of: "B64", with: Self.base64).replacingOccurrences(
      of: "K1", with: secp256k1)
    let error = parse(text)
    #expect(error != nil, "\(json) parsed")
    #expect(error?.location == location, "\(json): \(String(describing: error))")
    #expect(error?.description.contains(message) == true, "\(json): \(String(describing: error))")
  }

  @Test func pemAndBase64MustBeTheSameKey() throws {
    let otherPEM = String(
      decoding: try JSONEncoder().encode(P256SigningKey().publicKey.pemRepresentation), as: UTF8.self)
    let error = parse(#"{"keys":[{"keyId":1,"pem":\#(otherPEM),"base64":"\#(Self.base64)"}]}"#)
    #expect(error?.location == "keys[0].pem")
    #expect(error?.message.contains("different keys") == true)
  }

  @Test func publishedKeysVerifyCallbacksAfterAJSONRoundTrip() throws {
    let second = P256SigningKey()
    let published = VerifierKeys.publishing([
      (id: 1, key: Fixture.googleKey.publicKey), (id: 2, key: second.publicKey),
    ])
    let verifier = GoogleSSVVerifier(keys: try VerifierKeys(json: published.jsonData()))
    let url = try Fixture.callback.signedURL(base: "https://p.example/ssv", key: second, keyID: 2)
    #expect(try verifier.verify(url).keyID == 2)
  }
}
