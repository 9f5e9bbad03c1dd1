/// A pass over a configuration's JSON before it is decoded, for what `JSONDecoder` gets wrong or
/// reports without a path:
/// - a member repeated in one object is an error at its path (the decoder silently keeps one of
///   them, so two readers of one file could see two different configurations);
/// - a number no `Double` holds (`1e400`, `1e-400`) is an error at its path (the decoder calls the
///   whole document "not valid JSON").
///
/// Syntax errors are left to the decoder, which reports them; so is nesting deeper than
/// ``maximumDepth``.
enum ConfigJSONScan {
  /// Deeper than this the scan stops looking (a configuration is a few levels deep).
  static let maximumDepth = 256

  /// The problems found in `bytes`, in document order; empty when there are none or when the
  /// document does not parse (the decoder then says why).
  static func issues(in bytes: [UInt8]) -> [MediationConfig.Issue] {
    var scanner = Scanner(bytes: bytes)
    scanner.skipWhitespace()
    guard scanner.value(path: "") else { return [] }
    scanner.skipWhitespace()
    guard scanner.index == bytes.count else { return [] }
    return Array(scanner.issues.prefix(maximumIssues))
  }

  /// A document listing more problems than this reports the first ones.
  static let maximumIssues = 100

  private struct Scanner {
    let bytes: [UInt8]
    var index = 0
    var depth = 0
    var issues: [MediationConfig.Issue] = []

    /// The one-character escapes after a backslash and the bytes they stand for.
    static let escapes: [UInt8: UInt8] = [
      UInt8(ascii: "b"): 0x08, UInt8(ascii: "f"): 0x0c, UInt8(ascii: "n"): 0x0a, UInt8(ascii: "r"): 0x0d,
      UInt8(ascii: "t"): 0x09,
    ]

    init(bytes: [UInt8]) { self.bytes = bytes }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
      while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d { index += 1 }
    }

    /// Scans one value at `path`; `false` when the document does not parse (or nests too deep).
    mutating func value(path: String) -> Bool {
      guard let byte = current else { return false }
      switch byte {
      case UInt8(ascii: "{"): return container(path: path, object: true)
      case UInt8(ascii: "["): return container(path: path, object: false)
      case UInt8(ascii: "\""): return string() != nil
      case UInt8(ascii: "t"): return literal("true")
      case UInt8(ascii: "f"): return literal("false")
      case UInt8(ascii: "n"): return literal("null")
      default: return number(path: path)
      }
    }

    mutating func literal(_ text: String) -> Bool {
      let utf8 = Array(text.utf8)
      guard bytes[index...].starts(with: utf8) else { return false }
      index += utf8.count
      return true
    }

    /// An object (`object`) or array from its opening bracket to its closing one.
    mutating func container(path: String, object: Bool) -> Bool {
      depth += 1
      defer { depth -= 1 }
      guard depth <= ConfigJSONScan.maximumDepth else { return false }
      let close = object ? UInt8(ascii: "}") : UInt8(ascii: "]")
      index += 1
      skipWhitespace()
      if current == close {
        index += 1
        return true
      }
      var names = Set<[UInt8]>()
      var position = 0
      while true {
        let elementPath: String
        if object {
          guard current == UInt8(ascii: "\""), let name = string() else { return false }
          let text = String(decoding: name, as: UTF8.self)
          elementPath = MediationConfig.joined(path, member: text)
          if !names.insert(name).inserted {
            issues.append(
              MediationConfig.Issue(
                path: elementPath, message: "appears more than once in its object; expected each field once"))
          }
          skipWhitespace()
          guard current == UInt8(ascii: ":") else { return false }
          index += 1
          skipWhitespace()
        } else {
          elementPath = "\(path)[\(position)]"
        }
        guard value(path: elementPath) else { return false }
        position += 1
        skipWhitespace()
        if current == close {
          index += 1
          return true
        }
        guard current == UInt8(ascii: ",") else { return false }
        index += 1
        skipWhitespace()
      }
    }

    /// A string from its opening quote, its bytes with escapes decoded (enough to compare member
    /// names); `nil` when it does not end.
    mutating func string() -> [UInt8]? {
      index += 1
      var output: [UInt8] = []
      while let byte = current {
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return output
        case UInt8(ascii: "\\"):
          guard let escape = current else { return nil }
          index += 1
          if escape == UInt8(ascii: "u") {
            guard index + 4 <= bytes.count,
              let unit = UInt16(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
            else { return nil }
            index += 4
            if let scalar = Unicode.Scalar(unit) {
              output += Array(String(Character(scalar)).utf8)
            } else {  // half of a surrogate pair: kept as its code unit, so names still compare
              output += [0xFF, UInt8(truncatingIfNeeded: unit >> 8), UInt8(truncatingIfNeeded: unit)]
            }
          } else {
            output.append(Self.escapes[escape] ?? escape)
          }
        default: output.append(byte)
        }
      }
      return nil
    }

    /// A number; one no `Double` holds is an issue at `path`.
    mutating func number(path: String) -> Bool {
      let start = index
      var significant = false
      var exponent = false
      while let byte = current,
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
          || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte | 0x20 == UInt8(ascii: "e")
      {
        if byte | 0x20 == UInt8(ascii: "e") { exponent = true }
        if !exponent, (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(byte) { significant = true }
        index += 1
      }
      guard index > start else { return false }
      let literal = String(decoding: bytes[start..<index], as: UTF8.self)
      guard let value = Double(literal) else { return false }
      if !value.isFinite || (value == 0 && significant) {
        let shown = literal.count > 40 ? "\(literal.prefix(40))… (\(literal.count) digits)" : literal
        let problem =
          value == 0
          ? "too small to be held as a number (it rounds to 0)"
          : "too large to be held as a number"
        issues.append(
          MediationConfig.Issue(path: path, message: "\(problem), found \(shown) (see the field's range)"))
      }
      return true
    }
  }
}
