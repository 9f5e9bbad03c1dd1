/// A JSON document (RFC 8259) read strictly, byte by byte: a member repeated in one object is an
/// error (`JSONSerialization` and `JSONDecoder` silently keep one of them, so two readers of one
/// file could see two different key sets), and numbers keep the literal as written (so `1.0` is
/// not mistaken for the integer 1).
///
/// Small on purpose: it reads what the verifier-keys file needs and nothing else.
indirect enum StrictJSON: Sendable, Equatable {
  /// An object's members, in file order, names unique.
  case object([Member])
  case array([StrictJSON])
  case string(String)
  /// A number, as its literal (e.g. `1e0`).
  case number(String)
  case bool(Bool)
  case null

  /// One member of an object.
  struct Member: Sendable, Equatable {
    let name: String
    let value: StrictJSON
  }

  /// What the value is, for messages ("an object", "a number").
  var kind: String {
    switch self {
    case .object: "an object"
    case .array: "an array"
    case .string: "a string"
    case .number: "a number"
    case .bool: "a boolean"
    case .null: "null"
    }
  }

  /// The value of member `name`, when this is an object that has it.
  subscript(name: String) -> StrictJSON? {
    guard case .object(let members) = self else { return nil }
    return members.first { UTF8Text.same($0.name, name) }?.value
  }

  /// A document that does not read: where (a JSON path, or nil for the document) and what.
  struct ReadError: Error, Equatable {
    let path: String?
    let message: String
  }

  /// Reads `bytes` as one JSON value, with nothing but whitespace around it.
  ///
  /// - Throws: ``ReadError``: the path of a repeated member, or the byte offset of invalid syntax.
  static func read(_ bytes: [UInt8]) throws(ReadError) -> StrictJSON {
    var reader = Reader(bytes: bytes)
    reader.skipWhitespace()
    let value = try reader.value(path: "")
    reader.skipWhitespace()
    guard reader.index == bytes.count else { throw reader.syntaxError("expected the end of the document") }
    return value
  }

  private struct Reader {
    let bytes: [UInt8]
    var index = 0
    var depth = 0
    static let maximumDepth = 64
    /// The one-character escapes after `\\` and the bytes they stand for.
    static let escapes: [UInt8: UInt8] = [
      UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5c, UInt8(ascii: "/"): 0x2f, UInt8(ascii: "b"): 0x08,
      UInt8(ascii: "f"): 0x0c, UInt8(ascii: "n"): 0x0a, UInt8(ascii: "r"): 0x0d, UInt8(ascii: "t"): 0x09,
    ]

    init(bytes: [UInt8]) { self.bytes = bytes }

    func syntaxError(_ message: String) -> ReadError {
      ReadError(path: nil, message: "not valid JSON at byte \(index): \(message)")
    }

    mutating func skipWhitespace() {
      while index < bytes.count {
        switch bytes[index] {
        case 0x20, 0x09, 0x0a, 0x0d: index += 1
        default: return
        }
      }
    }

    mutating func expect(_ literal: String) throws(ReadError) {
      guard bytes[index...].starts(with: literal.utf8) else { throw syntaxError("expected '\(literal)'") }
      index += literal.utf8.count
    }

    mutating func value(path: String) throws(ReadError) -> StrictJSON {
      guard index < bytes.count else { throw syntaxError("expected a value, found the end") }
      switch bytes[index] {
      case UInt8(ascii: "{"): return try object(path: path)
      case UInt8(ascii: "["): return try array(path: path)
      case UInt8(ascii: "\""): return .string(try string())
      case UInt8(ascii: "t"):
        try expect("true")
        return .bool(true)
      case UInt8(ascii: "f"):
        try expect("false")
        return .bool(false)
      case UInt8(ascii: "n"):
        try expect("null")
        return .null
      default: return .number(try number())
      }
    }

    /// Reads the elements of an object or array from its opening bracket to `close`: nothing, or
    /// `element`s separated by commas. `element` gets the element's position.
    mutating func elements(
      close: UInt8, _ element: (inout Reader, Int) throws(ReadError) -> Void
    ) throws(ReadError) {
      depth += 1
      defer { depth -= 1 }
      guard depth <= Self.maximumDepth else {
        throw syntaxError("nested deeper than \(Self.maximumDepth) levels")
      }
      index += 1  // '{' or '['
      skipWhitespace()
      if index < bytes.count, bytes[index] == close {
        index += 1
        return
      }
      var position = 0
      while true {
        try element(&self, position)
        position += 1
        skipWhitespace()
        guard index < bytes.count else {
          throw syntaxError("expected ',' or '\(Character(Unicode.Scalar(close)))'")
        }
        if bytes[index] == close {
          index += 1
          return
        }
        try expect(",")
        skipWhitespace()
      }
    }

    mutating func object(path: String) throws(ReadError) -> StrictJSON {
      var members: [Member] = []
      var names = Set<[UInt8]>()
      try elements(close: UInt8(ascii: "}")) { (reader: inout Reader, _) throws(ReadError) in
        guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "\"") else {
          throw reader.syntaxError("expected a member name in quotes")
        }
        let name = try reader.string()
        let memberPath = path.isEmpty ? name : path + "." + name
        guard names.insert(Array(name.utf8)).inserted else {
          throw ReadError(
            path: memberPath, message: "member appears more than once; expected each member once")
        }
        reader.skipWhitespace()
        try reader.expect(":")
        reader.skipWhitespace()
        members.append(Member(name: name, value: try reader.value(path: memberPath)))
      }
      return .object(members)
    }

    mutating func array(path: String) throws(ReadError) -> StrictJSON {
      var values: [StrictJSON] = []
      try elements(close: UInt8(ascii: "]")) { (reader: inout Reader, position) throws(ReadError) in
        values.append(try reader.value(path: "\(path)[\(position)]"))
      }
      return .array(values)
    }

    /// A string starting at the opening quote; escapes decoded, the result valid UTF-8.
    mutating func string() throws(ReadError) -> String {
      index += 1
      var output: [UInt8] = []
      while true {
        guard index < bytes.count else { throw syntaxError("unterminated string") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""):
          guard let text = UTF8Text.text(validating: output) else {
            throw syntaxError("a string is not UTF-8")
          }
          return text
        case UInt8(ascii: "\\"):
          guard index < bytes.count else { throw syntaxError("unterminated escape") }
          let escape = bytes[index]
          index += 1
          if let decoded = Self.escapes[escape] {
            output.append(decoded)
          } else if escape == UInt8(ascii: "u") {
            output += Array(String(try unicodeEscape()).utf8)
          } else {
            throw syntaxError("unknown escape '\\\(Character(Unicode.Scalar(escape)))'")
          }
        case 0..<0x20:
          throw syntaxError("a control character in a string; expected it escaped")
        default:
          output.append(byte)
        }
      }
    }

    /// The scalar of `XXXX` after `\u` (and of a low surrogate's `\uXXXX` after a high one).
    mutating func unicodeEscape() throws(ReadError) -> Character {
      let high = try hex4()
      if (0xD800...0xDBFF).contains(high) {
        guard bytes[index...].starts(with: "\\u".utf8) else { throw syntaxError("a lone surrogate") }
        index += 2
        let low = try hex4()
        guard (0xDC00...0xDFFF).contains(low),
          let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        else { throw syntaxError("a lone surrogate") }
        return Character(scalar)
      }
      guard let scalar = Unicode.Scalar(high) else { throw syntaxError("a lone surrogate") }
      return Character(scalar)
    }

    mutating func hex4() throws(ReadError) -> UInt32 {
      guard index + 4 <= bytes.count,
        let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16),
        bytes[index..<index + 4].allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") })
      else { throw syntaxError("expected 4 hex digits after '\\u'") }
      index += 4
      return value
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, kept as written.
    mutating func number() throws(ReadError) -> String {
      let start = index
      func digits(_ reader: inout Reader) -> Int {
        let first = reader.index
        while reader.index < reader.bytes.count, UTF8Text.isDigit(reader.bytes[reader.index]) {
          reader.index += 1
        }
        return reader.index - first
      }
      if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
      let integerStart = index
      let integerDigits = digits(&self)
      guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else {
        index = start
        throw syntaxError("expected a value")
      }
      if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
        index += 1
        guard digits(&self) > 0 else { throw syntaxError("expected digits after '.'") }
      }
      if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
        index += 1
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
          index += 1
        }
        guard digits(&self) > 0 else { throw syntaxError("expected digits in the exponent") }
      }
      return String(decoding: bytes[start..<index], as: UTF8.self)
    }
  }
}
