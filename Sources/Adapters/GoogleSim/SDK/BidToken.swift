/// A simulated bid's ad string, `gadsim1.<key>.<price bits>.<issued ms>.<mac>` (each number in
/// lowercase hexadecimal), written and read without `String(_:radix:)` or `split`: a bidding run
/// mints one per bid.
struct BidToken: Equatable {
  var key: UInt64
  var priceBits: UInt64
  var issued: UInt64
  var mac: UInt64

  private static let prefix = Array("gadsim1".utf8)

  /// The ad string, as `"gadsim1.\(String(key, radix: 16)).…"` would spell it.
  var adString: String {
    // The prefix, four dots and at most 16 digits per field.
    String(unsafeUninitializedCapacity: Self.prefix.count + 4 * 17) { buffer in
      var position = 0
      for byte in Self.prefix {
        buffer[position] = byte
        position += 1
      }
      func append(_ field: UInt64) {
        buffer[position] = UInt8(ascii: ".")
        position += 1
        let digits = max(1, (64 - field.leadingZeroBitCount + 3) / 4)
        for index in stride(from: digits - 1, through: 0, by: -1) {
          let nibble = UInt8(truncatingIfNeeded: field >> UInt64(4 * index)) & 0xF
          buffer[position] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
          position += 1
        }
      }
      append(key)
      append(priceBits)
      append(issued)
      append(mac)
      return position
    }
  }

  /// Reads an ad string as `split(separator: ".")` would cut it (empty pieces dropped): the
  /// prefix, then four fields, each what `UInt64(_:radix: 16)` accepts (an optional sign and hex
  /// digits of either case, fitting 64 bits); `nil` otherwise.
  init?(adString: String) {
    var fields: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    var pieces = 0
    var rest = adString.utf8[...]
    while !rest.isEmpty {
      let piece = rest.prefix { $0 != UInt8(ascii: ".") }
      rest = rest.dropFirst(piece.count + 1)
      if piece.isEmpty { continue }
      switch pieces {
      case 0: guard piece.elementsEqual(Self.prefix) else { return nil }
      case 1...4:
        guard let value = Self.hexValue(piece) else { return nil }
        switch pieces {
        case 1: fields.0 = value
        case 2: fields.1 = value
        case 3: fields.2 = value
        default: fields.3 = value
        }
      default: return nil
      }
      pieces += 1
    }
    guard pieces == 5 else { return nil }
    (key, priceBits, issued, mac) = fields
  }

  init(key: UInt64, priceBits: UInt64, issued: UInt64, mac: UInt64) {
    (self.key, self.priceBits, self.issued, self.mac) = (key, priceBits, issued, mac)
  }

  /// `UInt64(String(digits), radix: 16)`.
  private static func hexValue(_ digits: Substring.UTF8View) -> UInt64? {
    var digits = digits
    var negative = false
    if let sign = digits.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
      negative = sign == UInt8(ascii: "-")
      digits = digits.dropFirst()
    }
    guard !digits.isEmpty else { return nil }
    var value: UInt64 = 0
    for byte in digits {
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: return nil
      }
      guard value >> 60 == 0 else { return nil }
      value = value << 4 | UInt64(digit)
    }
    // A negative number fits an unsigned one only when it is zero.
    if negative && value != 0 { return nil }
    return value
  }
}
