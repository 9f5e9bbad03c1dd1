/// How error messages, diagnostics and network responses write durations and money.
enum MessageFormat {
  /// Whole seconds as "5 s", anything else in milliseconds ("1500 ms").
  static func duration(_ duration: Duration) -> String {
    let ms = duration.milliseconds
    return ms % 1000 == 0 ? "\(ms / 1000) s" : "\(ms) ms"
  }

  /// US dollars to the cent: "$12.50".
  static func usd(_ value: Double) -> String {
    let cents = Int((value * 100).rounded())
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
