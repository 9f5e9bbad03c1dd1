/// How error messages, diagnostics and network responses write durations and money.
enum MessageFormat {
  /// Whole seconds as "5 s", anything else in milliseconds ("1500 ms").
  static func duration(_ duration: Duration) -> String {
    let ms = duration.milliseconds
    return ms % 1000 == 0 ? "\(ms / 1000) s" : "\(ms) ms"
  }

  /// The most characters of an outside value (a stored consent value, a network's error) a
  /// message quotes.
  static let quoteLimit = 120

  /// `text` as a message quotes it: whole up to ``quoteLimit`` characters, else its first
  /// ``quoteLimit`` characters, an ellipsis and the whole length, so a huge value from outside
  /// never makes a huge message.
  static func excerpt(_ text: String) -> String {
    var end = text.startIndex
    var count = 0
    while end < text.endIndex, count < quoteLimit {
      text.formIndex(after: &end)
      count += 1
    }
    guard end < text.endIndex else { return text }
    return "\(text[..<end])… (\(text.count) characters)"
  }

  /// US dollars to the cent: "$12.50"; a value too large for cents (or not finite) as written.
  static func usd(_ value: Double) -> String {
    guard let cents = Int(exactly: (value * 100).rounded()) else {
      return "$\(value)"
    }
    guard cents >= 0 else {
      let fraction = String(cents % 100)
      return "$\(cents / 100).\(fraction.count < 2 ? "0" + fraction : fraction)"
    }
    // Performance: digits written into the string's own bytes (a small string up to $99,999,999.99);
    // interpolating `String(Int)`s cost ten times as much, and a hybrid auction writes a price per skip.
    let whole = cents / 100
    var digits = 1
    var rest = whole
    while rest >= 10 {
      rest /= 10
      digits += 1
    }
    return String(unsafeUninitializedCapacity: digits + 4) { buffer in
      buffer[0] = UInt8(ascii: "$")
      var value = whole
      for index in stride(from: digits, through: 1, by: -1) {
        buffer[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10)
        value /= 10
      }
      let fraction = cents % 100
      buffer[digits + 1] = UInt8(ascii: ".")
      buffer[digits + 2] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: fraction / 10)
      buffer[digits + 3] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: fraction % 10)
      return digits + 4
    }
  }
}
