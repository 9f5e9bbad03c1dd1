import Foundation

/// Base64 with the URL- and filename-safe alphabet of RFC 4648 §5 (`-` and `_` in place of `+` and
/// `/`), as Google's SSV `signature` parameter uses it.
///
/// Foundation does the base64 work; this type maps the alphabet and handles padding.
public enum Base64URL {
  /// Encodes `bytes` without padding.
  public static func encode(_ bytes: some Collection<UInt8>) -> String {
    var text = Data(bytes).base64EncodedString()
    while text.hasSuffix("=") { text.removeLast() }
    return String(
      text.map { character in
        switch character {
        case "+": "-"
        case "/": "_"
        default: character
        }
      })
  }

  /// Decodes URL-safe base64, with or without `=` padding.
  ///
  /// - Returns: The bytes, or nil when the text has a character outside the URL-safe alphabet
  ///   (including `+` and `/`), padding in the wrong place or of the wrong length, or a length no
  ///   base64 text can have.
  public static func decode(_ text: String) -> [UInt8]? {
    var body = Array(text.utf8)
    var padding = 0
    while body.last == UInt8(ascii: "=") {
      body.removeLast()
      padding += 1
    }
    guard padding <= 2, body.count % 4 != 1 else { return nil }
    if padding > 0, (body.count + padding) % 4 != 0 { return nil }
    var standard = [UInt8]()
    standard.reserveCapacity(body.count + 3)
    for character in body {
      switch character {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"):
        standard.append(character)
      case UInt8(ascii: "-"): standard.append(UInt8(ascii: "+"))
      case UInt8(ascii: "_"): standard.append(UInt8(ascii: "/"))
      default: return nil
      }
    }
    while standard.count % 4 != 0 { standard.append(UInt8(ascii: "=")) }
    guard let data = Data(base64Encoded: Data(standard)) else { return nil }
    return Array(data)
  }
}
