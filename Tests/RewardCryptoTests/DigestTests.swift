import RewardCrypto
import Testing

/// SHA-1 and SHA-256 against the published test vectors (FIPS 180 examples, NIST CSRC).
@Suite("Digest: published SHA-1 and SHA-256 vectors")
struct DigestTests {
  static let abc = Array("abc".utf8)
  static let twoBlocks = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
  static let millionA = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)

  @Test func sha1Vectors() {
    #expect(Hex.encode(Digest.sha1(Self.abc)) == "a9993e364706816aba3e25717850c26c9cd0d89d")
    #expect(Hex.encode(Digest.sha1([UInt8]())) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    #expect(Hex.encode(Digest.sha1(Self.twoBlocks)) == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    #expect(Hex.encode(Digest.sha1(Self.millionA)) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
  }

  @Test func sha256Vectors() {
    #expect(
      Hex.encode(Digest.sha256(Self.abc))
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(
      Hex.encode(Digest.sha256([UInt8]()))
        == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(
      Hex.encode(Digest.sha256(Self.twoBlocks))
        == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    #expect(
      Hex.encode(Digest.sha256(Self.millionA))
        == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }

  @Test func hexHelpersHashTheUTF8Bytes() {
    #expect(Digest.sha1Hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d")
    #expect(Digest.sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    // Non-ASCII text is hashed as UTF-8: "é" is c3 a9.
    #expect(Digest.sha256Hex("é") == Hex.encode(Digest.sha256([0xc3, 0xa9])))
  }

  @Test func anyCollectionOfBytesIsAccepted() {
    let slice = Array("xxabcxx".utf8)[2..<5]
    #expect(Digest.sha1(slice) == Digest.sha1(Self.abc))
    #expect(Digest.sha256("abc".utf8) == Digest.sha256(Self.abc))
  }
}

@Suite("Hex")
struct HexTests {
  @Test func encodesLowercaseAndDecodesEitherCase() {
    #expect(Hex.encode([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
    #expect(Hex.decode("000FA0ff") == [0x00, 0x0f, 0xa0, 0xff])
    #expect(Hex.decode("") == [])
  }

  @Test func rejectsOddLengthAndNonHexDigits() {
    #expect(Hex.decode("abc") == nil)
    #expect(Hex.decode("zz") == nil)
    #expect(Hex.decode("0x12") == nil)
    #expect(Hex.isHex("a9993e364706816aba3e25717850c26c9cd0d89d", count: 40))
    #expect(!Hex.isHex("a9993e364706816aba3e25717850c26c9cd0d89", count: 40))
    #expect(!Hex.isHex("g9993e364706816aba3e25717850c26c9cd0d89d", count: 40))
  }
}
