import Foundation

/// One value of a JSON document read with `JSONSerialization`, with its path, so every check names
/// where it failed, what it found and what it expected:
/// `market.json: lineItems[2].fill.probability: must be a number from 0 to 1, found 1.3`.
struct JSONField {
  /// Where a value sits in its document: the chain of keys and indices to it, turned into text
  /// only for a message (reading a value then costs no string building).
  final class Place: Sendable {
    let parent: Place?
    let key: String?
    let index: Int

    init(parent: Place?, key: String?, index: Int = 0) {
      self.parent = parent
      self.key = key
      self.index = index
    }

    var path: String {
      let step = key ?? "[\(index)]"
      guard let parent else { return step }
      let above = parent.path
      return key == nil ? above + step : above + "." + step
    }
  }

  /// The file, and for a JSON Lines file the line, as messages name them (`events.jsonl: line 3`).
  private let file: String
  private let line: Int?
  let place: Place?
  /// The value; `nil` when the key or index is missing.
  let value: Any?

  init(source: String, line: Int? = nil, place: Place? = nil, value: Any?) {
    self.file = source
    self.line = line
    self.place = place
    self.value = value
  }

  var source: String { line.map { "\(file): line \($0)" } ?? file }

  /// The value's path in the document (`lineItems[2].fill`); empty for the document itself.
  var path: String { place?.path ?? "" }

  /// Reads `data` as one JSON document (a UTF-8 byte order mark is skipped).
  static func document(_ data: Data, source: String, line: Int? = nil) throws(CLIError) -> JSONField {
    let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
    do {
      return JSONField(source: source, line: line, value: try JSONSerialization.jsonObject(with: Data(body)))
    } catch {
      throw .data(
        "\(JSONField(source: source, line: line, value: nil).source): not valid JSON (\(Self.reason(error)))")
    }
  }

  /// The reason `JSONSerialization` gives, without Foundation's boilerplate.
  static func reason(_ error: any Error) -> String {
    let info = (error as NSError).userInfo
    return (info[NSDebugDescriptionErrorKey] as? String) ?? error.localizedDescription
  }

  var isMissing: Bool { value == nil || value is NSNull }

  subscript(key: String) -> JSONField {
    JSONField(
      source: file, line: line, place: Place(parent: place, key: key), value: (value as? [String: Any])?[key])
  }

  /// The fields of an object, by key, sorted.
  func objectFields() throws(CLIError) -> [(key: String, field: JSONField)] {
    guard let object = value as? [String: Any] else { throw mismatch("must be an object") }
    return object.keys.sorted().map { ($0, self[$0]) }
  }

  func array() throws(CLIError) -> [JSONField] {
    guard let array = value as? [Any] else { throw mismatch("must be an array") }
    return array.enumerated().map {
      JSONField(
        source: file, line: line, place: Place(parent: place, key: nil, index: $0.offset), value: $0.element)
    }
  }

  func string() throws(CLIError) -> String {
    guard let text = value as? String else { throw mismatch("must be a string") }
    return text
  }

  func optionalString() throws(CLIError) -> String? { isMissing ? nil : try string() }

  /// A non-empty string.
  func name() throws(CLIError) -> String {
    let text = try string()
    guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
      throw mismatch("must be a non-empty string")
    }
    return text
  }

  func number(in range: ClosedRange<Double>) throws(CLIError) -> Double {
    guard let number = value as? NSNumber, !Self.isBool(number), number.doubleValue.isFinite,
      range.contains(number.doubleValue)
    else {
      throw mismatch(
        "must be a number from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))")
    }
    return number.doubleValue
  }

  func optionalNumber(in range: ClosedRange<Double>) throws(CLIError) -> Double? {
    isMissing ? nil : try number(in: range)
  }

  /// A whole number ≥ 0 (at most 10^15).
  func count() throws(CLIError) -> Int {
    guard let number = value as? NSNumber, !Self.isBool(number), number.doubleValue >= 0,
      number.doubleValue <= 1e15, number.doubleValue == number.doubleValue.rounded()
    else { throw mismatch("must be a whole number ≥ 0") }
    return Int(number.int64Value)
  }

  func optionalCount() throws(CLIError) -> Int? { isMissing ? nil : try count() }

  /// A bad-data error at this field: `source: path: requirement, found X`.
  func mismatch(_ requirement: String) -> CLIError {
    .data("\(source): \(path.isEmpty ? "the document" : path): \(requirement), found \(Self.describe(value))")
  }

  /// Whether `number` is a JSON `true` or `false` (JSONSerialization's booleans are NSNumbers of
  /// Objective-C type `c`).
  static func isBool(_ number: NSNumber) -> Bool { number.objCType.pointee == CChar(UInt8(ascii: "c")) }

  static func describe(_ value: Any?) -> String {
    switch value {
    case nil: return "nothing"
    case is NSNull: return "null"
    case let text as String: return "\"\(text.count > 40 ? String(text.prefix(40)) + "…" : text)\""
    case let number as NSNumber: return isBool(number) ? (number.boolValue ? "true" : "false") : "\(number)"
    case is [Any]: return "an array"
    case is [String: Any]: return "an object"
    default: return "\(value!)"
    }
  }

  static func format(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
  }
}
