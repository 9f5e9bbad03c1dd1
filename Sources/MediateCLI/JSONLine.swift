import Foundation

/// One JSON object on one line, keys sorted so the same input gives the same bytes.
enum JSONLine {
  static func encode(_ object: [String: Any]) -> String {
    guard
      let data = try? JSONSerialization.data(
        withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]),
      let line = String(data: data, encoding: .utf8)
    else { return "{}" }
    return line
  }

  /// An array of objects on one line, each object's keys sorted.
  static func encode(array: [[String: Any]]) -> String {
    guard
      let data = try? JSONSerialization.data(
        withJSONObject: array, options: [.sortedKeys, .withoutEscapingSlashes]),
      let line = String(data: data, encoding: .utf8)
    else { return "[]" }
    return line
  }

  /// A number rounded to `places` decimals, so floating-point noise does not reach the output.
  static func rounded(_ value: Double, _ places: Int = 4) -> Double {
    let scale = pow(10, Double(places))
    return (value * scale).rounded() / scale
  }
}
