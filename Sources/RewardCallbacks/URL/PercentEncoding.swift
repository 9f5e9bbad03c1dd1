/// Percent-encoding of query components (RFC 3986), as the callback senders and `java.net.URI` use
/// it.
public enum PercentEncoding {
  /// Encodes `text` for a query parameter name or value: every byte of its UTF-8 except the
  /// unreserved characters (`A–Z a–z 0–9 - . _ ~`) becomes `%XX` (uppercase hex). A space is
  /// `%20`, never `+`.
  public static func encodeQueryComponent(_ text: String) -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var output = [UInt8]()
    output.reserveCapacity(text.utf8.count)
    for byte in text.utf8 {
      if isUnreserved(byte) {
        output.append(byte)
      } else {
        output += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0f)]]
      }
    }
    return String(decoding: output, as: UTF8.self)
  }

  /// Decodes `%XX` escapes; `+` stays `+` (as `java.net.URI.getQuery()` reads it, not as HTML forms
  /// do).
  ///
  /// - Returns: The text, or nil when an escape is not `%` and two hex digits or the decoded bytes
  ///   are not UTF-8.
  public static func decode(_ text: some StringProtocol) -> String? {
    decodeBytes(text).flatMap(UTF8Text.text(validating:))
  }

  /// Decodes `%XX` escapes into bytes, or nil at the first bad escape.
  static func decodeBytes(_ text: some StringProtocol) -> [UInt8]? { decodeBytes(Array(text.utf8)) }

  /// Decodes `%XX` escapes in `input` (UTF-8 bytes) into bytes, or nil at the first bad escape.
  static func decodeBytes(_ input: some RandomAccessCollection<UInt8>) -> [UInt8]? {
    var output = [UInt8]()
    output.reserveCapacity(input.count)
    var index = input.startIndex
    while index != input.endIndex {
      let byte = input[index]
      guard byte == UInt8(ascii: "%") else {
        output.append(byte)
        index = input.index(after: index)
        continue
      }
      guard input.distance(from: index, to: input.endIndex) >= 3,
        let high = hexValue(input[input.index(index, offsetBy: 1)]),
        let low = hexValue(input[input.index(index, offsetBy: 2)])
      else { return nil }
      output.append(high << 4 | low)
      index = input.index(index, offsetBy: 3)
    }
    return output
  }

  /// The offset (in UTF-8 bytes) of the first bad `%` escape in `text`, if any.
  static func firstBadEscape(_ text: some StringProtocol) -> Int? { firstBadEscape(Array(text.utf8)) }

  /// The offset of the first bad `%` escape in `input` (UTF-8 bytes), if any.
  static func firstBadEscape(_ input: [UInt8]) -> Int? {
    var index = 0
    while index < input.count {
      if input[index] == UInt8(ascii: "%") {
        guard index + 2 < input.count, hexValue(input[index + 1]) != nil, hexValue(input[index + 2]) != nil
        else { return index }
        index += 3
      } else {
        index += 1
      }
    }
    return nil
  }

  static func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
      UInt8(ascii: "~"):
      true
    default: false
    }
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
