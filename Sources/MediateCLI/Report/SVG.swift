import Foundation

/// Small pieces of SVG and HTML text: escaping, numbers, axis ticks. The report's markup is also
/// well-formed XML, so tests can parse it.
enum SVG {
  /// Text escaped for an element's content or an attribute value.
  static func escape(_ text: String) -> String {
    var escaped = ""
    for character in text {
      switch character {
      case "&": escaped += "&amp;"
      case "<": escaped += "&lt;"
      case ">": escaped += "&gt;"
      case "\"": escaped += "&quot;"
      case "'": escaped += "&#39;"
      default: escaped.append(character)
      }
    }
    return escaped
  }

  /// A coordinate with at most one decimal; one that is not finite (a chart of values no `Double`
  /// holds) is 0, never a trap.
  static func n(_ value: Double) -> String {
    guard value.isFinite else { return "0" }
    let rounded = (value * 10).rounded() / 10
    if rounded == rounded.rounded(), let whole = Int(exactly: rounded) { return String(whole) }
    return String(format: "%.1f", rounded)
  }

  /// A number for a `data-value` attribute: enough digits for tests to compare with the run.
  static func data(_ value: Double) -> String { String(format: "%.6f", value) }

  /// Axis ticks from 0 to at least `maximum`, at a step of 1, 2 or 5 × 10ⁿ (about `count` of them).
  static func ticks(upTo maximum: Double, count: Int = 5) -> [Double] {
    guard maximum > 0, maximum.isFinite else { return [0, 1] }
    let rough = maximum / Double(count)
    let magnitude = pow(10, floor(log10(rough)))
    let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= rough } ?? 10 * magnitude
    let last = (maximum / step).rounded(.up)
    // A maximum too small for its step to be a `Double` (a subnormal) has no ticks of its own.
    guard step > 0, let count = Int(exactly: last), count <= 100 else { return [0, maximum] }
    return (0...count).map { Double($0) * step }
  }

  /// A tick label: thousands separated, no needless decimals.
  static func tickLabel(_ value: Double) -> String {
    if value == value.rounded() && abs(value) < 1e15 {
      let formatter = NumberFormatter()
      formatter.numberStyle = .decimal
      formatter.usesGroupingSeparator = true
      formatter.groupingSeparator = ","
      formatter.maximumFractionDigits = 0
      return formatter.string(from: NSNumber(value: value)) ?? String(Int(value))
    }
    return String(format: abs(value) < 1 ? "%.2f" : "%.1f", value)
  }

  /// `<text>` at a point.
  static func text(
    _ content: String, x: Double, y: Double, anchor: String = "start", className: String? = nil,
    extra: String = ""
  ) -> String {
    let classAttribute = className.map { " class=\"\($0)\"" } ?? ""
    return
      "<text x=\"\(n(x))\" y=\"\(n(y))\" text-anchor=\"\(anchor)\"\(classAttribute)\(extra)>\(escape(content))</text>"
  }

  /// A legend: a swatch and a name per entry, in a row starting at (x, y).
  static func legend(_ entries: [(name: String, color: String)], x: Double, y: Double, maxWidth: Double)
    -> String
  {
    var parts = ["<g class=\"legend\">"]
    var cursorX = x
    var cursorY = y
    for entry in entries {
      let width = 22 + Double(entry.name.count) * 7
      if cursorX + width > x + maxWidth && cursorX > x {
        cursorX = x
        cursorY += 18
      }
      parts.append(
        "<rect x=\"\(n(cursorX))\" y=\"\(n(cursorY - 10))\" width=\"12\" height=\"12\" rx=\"2\" fill=\"\(entry.color)\"/>"
      )
      parts.append(text(entry.name, x: cursorX + 17, y: cursorY, className: "legend-label"))
      cursorX += width + 12
    }
    parts.append("</g>")
    return parts.joined()
  }
}
