import RewardCrypto
import Testing

/// RFC 6979 appendix A.2.5: the P-256 key and its deterministic ECDSA signatures with SHA-256 over
/// "sample" and "test". (RFC 6979 nonces are deterministic, but any valid signature verifies, so
/// these pin OpenSSL's verification, not its signing.)
enum RFC6979P256 {
  static let privateScalar = "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721"
  static let publicX = "60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"
  static let publicY = "7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299"
  static let sample = (
    r: "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716",
    s: "f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8"
  )
  static let test = (
    r: "f1abb023518351cd71d881567b1ea663ed3efcf6c5132b354f28d3b0b7d38367",
    s: "019f4113742a2b14bd25926b49c649155f267e60d3814b4c0cc84250e46f0083"
  )

  static var point: [UInt8] { [0x04] + Hex.decode(publicX)! + Hex.decode(publicY)! }
  static func publicKey() throws -> P256PublicKey { try P256PublicKey(x963Representation: point) }
}

/// A DER `SEQUENCE { INTEGER r, INTEGER s }` written by hand, for the tests only: an encoder
/// independent of OpenSSL's, so the vectors do not go through the code under test to get their DER.
func testDER(r: String, s: String) -> [UInt8] {
  func integer(_ hex: String) -> [UInt8] {
    var bytes = Array(Hex.decode(hex)!.drop { $0 == 0 })
    if bytes.isEmpty { bytes = [0] }
    if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
    return [0x02, UInt8(bytes.count)] + bytes
  }
  let body = integer(r) + integer(s)
  return [0x30, UInt8(body.count)] + body
}

@Suite("ECDSA P-256: RFC 6979 vectors and negatives")
struct ECDSAVectorTests {
  @Test func privateScalarGivesThePublishedPublicKey() throws {
    let key = try P256SigningKey(rawScalar: Hex.decode(RFC6979P256.privateScalar)!)
    #expect(key.publicKey.x963Representation == RFC6979P256.point)
    #expect(try key.rawScalar() == Hex.decode(RFC6979P256.privateScalar)!)
    #expect(key.publicKey == (try RFC6979P256.publicKey()))
  }

  @Test func publishedSignaturesVerify() throws {
    let key = try RFC6979P256.publicKey()
    let sample = testDER(r: RFC6979P256.sample.r, s: RFC6979P256.sample.s)
    let test = testDER(r: RFC6979P256.test.r, s: RFC6979P256.test.s)
    #expect(key.isValidSignature(sample, for: Array("sample".utf8)))
    #expect(key.isValidSignature(test, for: Array("test".utf8)))
    // Swapped messages do not verify.
    #expect(!key.isValidSignature(sample, for: Array("test".utf8)))
    #expect(!key.isValidSignature(test, for: Array("sample".utf8)))
  }

  @Test func everyFlippedBitIsRejected() throws {
    let key = try RFC6979P256.publicKey()
    let signature = testDER(r: RFC6979P256.sample.r, s: RFC6979P256.sample.s)
    for bit in 0..<(signature.count * 8) {
      var flipped = signature
      flipped[bit / 8] ^= 1 << (bit % 8)
      #expect(!key.isValidSignature(flipped, for: Array("sample".utf8)), "bit \(bit) flipped still verifies")
    }
    var message = Array("sample".utf8)
    message[0] ^= 0x01
    #expect(!key.isValidSignature(signature, for: message))
  }

  @Test func anotherKeyDoesNotVerify() {
    let other = P256SigningKey().publicKey
    let signature = testDER(r: RFC6979P256.sample.r, s: RFC6979P256.sample.s)
    #expect(!other.isValidSignature(signature, for: Array("sample".utf8)))
  }

  @Test func garbageSignaturesAreFalseNotCrashes() throws {
    let key = try RFC6979P256.publicKey()
    for garbage: [UInt8] in [[], [0x30], [0x30, 0x00], Array(repeating: 0xff, count: 72), [0x30, 0x81]] {
      #expect(!key.isValidSignature(garbage, for: Array("sample".utf8)))
    }
  }

  @Test func signatureEncodingsMatchTheIndependentDER() throws {
    let raw = Hex.decode(RFC6979P256.test.r + RFC6979P256.test.s)!
    let der = testDER(r: RFC6979P256.test.r, s: RFC6979P256.test.s)
    let fromRaw = try P256Signature(rawRepresentation: raw)
    #expect(fromRaw.derRepresentation == der)
    let fromDER = try P256Signature(derRepresentation: der)
    #expect(fromDER.rawRepresentation == raw)
  }

  @Test func malformedSignatureEncodingsAreRefused() {
    #expect(throws: CryptoError.self) {
      try P256Signature(rawRepresentation: [UInt8](repeating: 1, count: 63))
    }
    #expect(throws: CryptoError.self) { try P256Signature(derRepresentation: []) }
    #expect(throws: CryptoError.self) { try P256Signature(derRepresentation: [0x30, 0x03, 0x02, 0x01]) }
    // Trailing bytes after the SEQUENCE.
    let der = testDER(r: RFC6979P256.test.r, s: RFC6979P256.test.s)
    #expect(throws: CryptoError.self) { try P256Signature(derRepresentation: der + [0x00]) }
  }
}
