/// Hexadecimal text for bytes.
public enum Hex {
  private static let digits = Array("0123456789abcdef".utf8)

  /// Lowercase hexadecimal, two characters per byte.
  public static func encode(_ bytes: some Collection<UInt8>) -> String {
    var characters = [UInt8]()
    characters.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      characters.append(digits[Int(byte >> 4)])
      characters.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: characters, as: UTF8.self)
  }

  /// The bytes of hexadecimal text (either case), or nil when the text has an odd length or a
  /// character that is not a hexadecimal digit.
  public static func decode(_ text: String) -> [UInt8]? {
    let characters = Array(text.utf8)
    guard characters.count % 2 == 0 else { return nil }
    var bytes = [UInt8]()
    bytes.reserveCapacity(characters.count / 2)
    var index = 0
    while index < characters.count {
      guard let high = value(characters[index]), let low = value(characters[index + 1]) else { return nil }
      bytes.append(high << 4 | low)
      index += 2
    }
    return bytes
  }

  /// Whether `text` is exactly `count` hexadecimal digits (either case).
  public static func isHex(_ text: String, count: Int) -> Bool {
    text.utf8.count == count && text.utf8.allSatisfy { value($0) != nil }
  }

  private static func value(_ character: UInt8) -> UInt8? {
    switch character {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
