import Foundation
import RewardCrypto
import Testing

@Suite("ConstantTime")
struct ConstantTimeTests {
  @Test func equalBytesAreEqual() {
    #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
    #expect(ConstantTime.equals([UInt8](), [UInt8]()))
    #expect(ConstantTime.equals("token".utf8, Array("token".utf8)))
  }

  @Test func anyDifferingByteMakesThemUnequal() {
    let base = [UInt8](repeating: 0x5a, count: 40)
    for index in base.indices {
      var other = base
      other[index] ^= 0x01
      #expect(!ConstantTime.equals(base, other), "difference at \(index) not seen")
    }
  }

  @Test func differentLengthsAreUnequal() {
    #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
    #expect(!ConstantTime.equals([UInt8](), [0]))
    // A prefix is not equal to the whole.
    #expect(!ConstantTime.equals("abc".utf8, "abcd".utf8))
  }
}

@Suite("Base64URL")
struct Base64URLTests {
  @Test func encodesWithTheURLSafeAlphabetAndNoPadding() {
    #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
    #expect(Base64URL.encode([UInt8]()) == "")
    #expect(Base64URL.encode(Array("f".utf8)) == "Zg")
    #expect(Base64URL.encode(Array("foob".utf8)) == "Zm9vYg")
  }

  @Test func decodesWithOrWithoutPadding() {
    #expect(Base64URL.decode("-_8") == [0xfb, 0xff])
    #expect(Base64URL.decode("-_8=") == [0xfb, 0xff])
    #expect(Base64URL.decode("Zg") == Array("f".utf8))
    #expect(Base64URL.decode("Zg==") == Array("f".utf8))
    #expect(Base64URL.decode("") == [])
  }

  @Test func rejectsTheStandardAlphabetAndOtherCharacters() {
    #expect(Base64URL.decode("+/8") == nil)
    #expect(Base64URL.decode("ab cd") == nil)
    #expect(Base64URL.decode("ab%3D") == nil)
    #expect(Base64URL.decode("Zm9v\n") == nil)
  }

  @Test func rejectsBadPaddingAndImpossibleLengths() {
    #expect(Base64URL.decode("Z") == nil)  // 1 mod 4: no base64 text is that long
    #expect(Base64URL.decode("Zg=") == nil)  // padding to 3, not 4
    #expect(Base64URL.decode("Zg===") == nil)
    #expect(Base64URL.decode("Zm9v=") == nil)
    #expect(Base64URL.decode("Z=g") == nil)  // padding in the middle
  }

  @Test func roundTripsEveryLength() {
    var generator = SystemRandomNumberGenerator()
    for length in 0..<70 {
      let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let text = Base64URL.encode(bytes)
      #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
      #expect(Base64URL.decode(text) == bytes, "length \(length)")
    }
  }
}
