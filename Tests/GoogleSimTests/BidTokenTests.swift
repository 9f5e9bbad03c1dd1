import MediationKit
import Testing

@testable import GoogleSim

@Suite("Bid token ad strings")
struct BidTokenTests {
  /// The ad string as the simulated SDK first spelled it, with `String(_:radix:)`.
  private func spelled(_ token: BidToken) -> String {
    "gadsim1.\(String(token.key, radix: 16)).\(String(token.priceBits, radix: 16))."
      + "\(String(token.issued, radix: 16)).\(String(token.mac, radix: 16))"
  }

  /// The ad string as the simulated SDK first read it, with `split` and `UInt64(_:radix:)`.
  private func read(_ adString: String) -> BidToken? {
    let parts = adString.split(separator: ".")
    guard parts.count == 5, parts[0] == "gadsim1",
      let key = UInt64(parts[1], radix: 16), let priceBits = UInt64(parts[2], radix: 16),
      let issued = UInt64(parts[3], radix: 16), let mac = UInt64(parts[4], radix: 16)
    else { return nil }
    return BidToken(key: key, priceBits: priceBits, issued: issued, mac: mac)
  }

  private func randomToken(_ random: inout SeededRandom) -> BidToken {
    // Small and large numbers, zero included.
    func field() -> UInt64 { random.next() >> (random.next() % 65 == 64 ? 63 : random.next() % 64) }
    return BidToken(key: field(), priceBits: field(), issued: field(), mac: field())
  }

  @Test func writesAndReadsWhatTheFormattedStringDid() {
    var random = SeededRandom(seed: 7)
    for _ in 0..<5_000 {
      let token = randomToken(&random)
      #expect(token.adString == spelled(token))
      #expect(BidToken(adString: token.adString) == token)
    }
    #expect(BidToken(key: 0, priceBits: 0, issued: 0, mac: 0).adString == "gadsim1.0.0.0.0")
  }

  /// Mangled ad strings (characters changed, dropped or inserted) are accepted or refused exactly
  /// as the `split`-based reading did.
  @Test func readsMangledStringsAsTheSplitBasedReadingDid() {
    var random = SeededRandom(seed: 11)
    let alphabet = Array("0123456789abcdefABCDEFxg.+- ".utf8)
    for _ in 0..<20_000 {
      var bytes = Array(randomToken(&random).adString.utf8)
      for _ in 0...(random.next() % 3) {
        let index = Int(random.next() % UInt64(bytes.count))
        let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
        switch random.next() % 3 {
        case 0: bytes[index] = byte
        case 1: bytes.remove(at: index)
        default: bytes.insert(byte, at: index)
        }
        if bytes.isEmpty { break }
      }
      let mangled = String(decoding: bytes, as: UTF8.self)
      #expect(BidToken(adString: mangled) == read(mangled), "\(mangled)")
    }
    for edge in [
      "gadsim1.1.2.3.4", "gadsim1.1.2.3", "gadsim1.1.2.3.4.5", "gadsim1..1.2.3", "gadsim1.1.2.3.4.",
      "gadsim1.-0.+1.2.3", "gadsim1.-1.2.3.4", "gadsim1.00000000000000000001.2.3.4",
      "gadsim1.10000000000000000.2.3.4", "gadsim1.ffffffffffffffff.2.3.4", ".gadsim1.1.2.3.4", "",
      "gadsim2.1.2.3.4", "gadsim1.1.2.3.4 ",
    ] {
      #expect(BidToken(adString: edge) == read(edge), "\(edge)")
    }
  }
}
