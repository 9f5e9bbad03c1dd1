import Foundation
import RewardCallbacks
import RewardCrypto
import Testing

/// The verifier-keys file is read strictly: one reading only, whatever JSON library a reviewer
/// would use.
@Suite("VerifierKeys: strict reading")
struct VerifierKeysStrictTests {
  static let base64 = Data(Fixture.googleKey.publicKey.derRepresentation).base64EncodedString()
  static let pem = String(
    decoding: try! JSONEncoder().encode(Fixture.googleKey.publicKey.pemRepresentation), as: UTF8.self)

  func parse(_ json: String) -> CallbackFormatError? { keysError(json) }

  @Test(arguments: [
    "1.0", "1e0", "1E0", "1.0000000000000000001", "10e-1", "-0", "9223372036854775808",
    "18446744073709551615",
  ])
  func keyIDMustBeAnIntegerLiteralInRange(literal: String) {
    let error = parse(#"{"keys":[{"keyId":\#(literal),"base64":"\#(Self.base64)"}]}"#)
    #expect(error?.location == "keys[0].keyId", "\(literal): \(String(describing: error))")
    #expect(error?.message.contains("integer") == true, "\(literal): \(String(describing: error))")
  }

  @Test func theLargestKeyIDIsAccepted() throws {
    let keys = try VerifierKeys(
      json: Data(#"{"keys":[{"keyId":9223372036854775807,"base64":"\#(Self.base64)"}]}"#.utf8))
    #expect(keys.keyIDs == [UInt64(Int64.max)])
  }

  @Test(
    arguments: [
      (#"{"keys":[{"keyId":1,"base64":"B64"}],"keys":[{"keyId":2,"base64":"B64"}]}"#, "keys"),
      (#"{"keys":[{"keyId":1,"keyId":2,"base64":"B64"}]}"#, "keys[0].keyId"),
      (#"{"keys":[{"keyId":1,"base64":"B64","base64":"B64"}]}"#, "keys[0].base64"),
      (#"{"keys":[{"keyId":1,"base64":"B64"},{"keyId":2,"pem":PEM,"pem":PEM}]}"#, "keys[1].pem"),
      (#"{"keys":[{"keyId":1,"base64":"B64","x":{"a":1,"a":2}}]}"#, "keys[0].x.a"),
      (#"{"keys":[{"keyId":1,"base64":"B64","k\u0065yId":2}]}"#, "keys[0].keyId"),
    ] as [(String, String)])
  func duplicateMembersAreErrorsNamingThePath(json: String, location: String) {
    let error = parse(
      json.replacingOccurrences(of: "B64", with: Self.base64).replacingOccurrences(of: "PEM", with: Self.pem))
    #expect(error?.location == location, "\(json): \(String(describing: error))")
    #expect(error?.message.contains("more than once") == true, "\(json): \(String(describing: error))")
  }

  @Test func duplicateKeyIDsNameBothEntries() {
    let error = parse(
      #"{"keys":[{"keyId":7,"base64":"\#(Self.base64)"},{"keyId":"7","base64":"\#(Self.base64)"}]}"#)
    #expect(error?.location == "keys[1].keyId")
    #expect(error?.message.contains("keys[0]") == true, "\(String(describing: error))")
  }

  @Test func aPEMWithTwoBlocksIsAnError() {
    let pem = Fixture.googleKey.publicKey.pemRepresentation
    let two = String(
      decoding: try! JSONEncoder().encode(pem + "\n" + P256SigningKey().publicKey.pemRepresentation),
      as: UTF8.self)
    let error = parse(#"{"keys":[{"keyId":1,"pem":\#(two)}]}"#)
    #expect(error?.location == "keys[0].pem")
    #expect(error?.message.contains("2 PEM blocks") == true, "\(String(describing: error))")
  }

  @Test func aFileOverOneMegabyteIsRefusedBeforeReading() {
    let valid = #"{"keys":[{"keyId":1,"base64":"\#(Self.base64)"}]}"#
    let padded = valid + String(repeating: " ", count: 1_048_576 - valid.utf8.count)
    #expect(parse(padded) == nil)
    let error = parse(padded + " ")
    #expect(error?.location == nil)
    #expect(error?.message.contains("1048577 bytes") == true, "\(String(describing: error))")
    #expect(error?.message.contains("at most 1048576") == true, "\(String(describing: error))")
  }

  @Test func manyKeysAreIndexedByID() throws {
    let keys = (0..<1500).map { (id: UInt64($0) * 7 + 3, key: Fixture.googleKey.publicKey) }
    let published = VerifierKeys.publishing(keys)
    let read = try VerifierKeys(json: published.jsonData())
    #expect(read.keyIDs.count == 1500)
    #expect(read.key(id: 3 + 7 * 1499) == Fixture.googleKey.publicKey)
    #expect(read.key(id: 4) == nil)
  }
}

/// The strict JSON reader refuses what RFC 8259 refuses, with the byte offset.
@Suite("VerifierKeys: JSON syntax")
struct VerifierKeysSyntaxTests {
  @Test(
    arguments: [
      #"{"keys":[]"#, #"{"keys":[],}"#, #"{"keys":[1,]}"#, #"{'keys':[]}"#, #"{"keys":[01]}"#,
      #"{"keys":[.5]}"#,
      #"{"keys":[1.]}"#, #"{"keys":[1e]}"#, #"{"keys":["\x"]}"#, #"{"keys":["\ud800"]}"#,
      #"{"keys":["\udc00\ud800"]}"#,
      "{\"keys\":[\"a\u{1}\"]}", #"{"keys":[tru]}"#, #"{"keys":[]} x"#, #"{"keys":["\u12"]}"#,
      #"{"keys":["\u+123"]}"#,
      String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
    ])
  func invalidJSONNamesTheByte(json: String) {
    let error = keysError(json)
    #expect(error?.location == nil, "\(json): \(String(describing: error))")
    #expect(
      error?.message.hasPrefix("not valid JSON at byte ") == true, "\(json): \(String(describing: error))")
  }

  @Test func escapesAndNonASCIIAreRead() throws {
    let base64 = Data(Fixture.googleKey.publicKey.derRepresentation).base64EncodedString()
    // "\u00e9" and a surrogate pair in an ignored member; "\/" in base64.
    let json =
      #"{"note":"caf\u00e9 \ud83c\udf89 é","keys":[{"keyId":"12","base64":"\#(base64.replacingOccurrences(of: "/", with: "\\/"))"}]}"#
    let keys = try VerifierKeys(json: Data(json.utf8))
    #expect(keys.keyIDs == [12])
  }

  @Test func aNonUTF8StringIsRefused() {
    var bytes = Array(#"{"keys":["x"]}"#.utf8)
    bytes[10] = 0xFF
    let error: CallbackFormatError?
    do {
      _ = try VerifierKeys(json: Data(bytes))
      error = nil
    } catch let caught {
      error = caught
    }
    #expect(error?.message.contains("not UTF-8") == true, "\(String(describing: error))")
  }
}
