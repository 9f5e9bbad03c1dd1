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
    let fraction = String(cents % 100)
    return "$\(cents / 100).\(fraction.count < 2 ? "0" + fraction : fraction)"
  }
}
