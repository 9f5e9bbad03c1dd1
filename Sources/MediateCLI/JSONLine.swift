import Foundation

/// One JSON object on one line, keys sorted so the same input gives the same bytes.
enum JSONLine {
  static func encode(_ object: [String: Any]) -> String {
    serialize(object) ?? "{}"
  }

  /// An array of objects on one line, each object's keys sorted.
  static func encode(array: [[String: Any]]) -> String {
    serialize(array) ?? "[]"
  }

  /// A number that is not finite (read from a file, or overflowed) becomes `null`: JSON has no
  /// such numbers, and on Apple platforms `JSONSerialization` raises an exception for them.
  private static func serialize(_ value: Any) -> String? {
    let valid = JSONSerialization.isValidJSONObject(value) ? value : finite(value)
    guard
      JSONSerialization.isValidJSONObject(valid),
      let data = try? JSONSerialization.data(
        withJSONObject: valid, options: [.sortedKeys, .withoutEscapingSlashes])
    else { return nil }
    return String(data: data, encoding: .utf8)
  }

  private static func finite(_ value: Any) -> Any {
    switch value {
    case let number as Double: number.isFinite ? number : NSNull()
    case let object as [String: Any]: object.mapValues(finite)
    case let array as [Any]: array.map(finite)
    default: value
    }
  }

  /// A number rounded to `places` decimals, so floating-point noise does not reach the output.
  static func rounded(_ value: Double, _ places: Int = 4) -> Double {
    let scale = pow(10, Double(places))
    return (value * scale).rounded() / scale
  }
}
