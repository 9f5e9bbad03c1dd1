/// Byte-level operations on UTF-8 text.
///
/// Callback URLs are split, searched and compared as UTF-8 bytes, never as Swift `Character`s:
/// `Character` comparison works on grapheme clusters, so `=` followed by a combining mark (U+0301)
/// is one `Character` that is not `=`, and a search for `&user_id=` would not find it. Equality of
/// `String`s is canonical equivalence (`é` == `e` + U+0301), which would let two different byte
/// strings name one parameter. A signature covers bytes; these helpers read bytes.
enum UTF8Text {
  /// `bytes` as text when they are valid UTF-8, else nil.
  ///
  /// Decoding replaces invalid UTF-8 with U+FFFD, so the bytes are text exactly when the decoded
  /// string encodes back to them (`String(validating:as:)` says so directly, but only from iOS 18).
  static func text(validating bytes: some Collection<UInt8>) -> String? {
    let text = String(decoding: bytes, as: UTF8.self)
    return text.utf8.elementsEqual(bytes) ? text : nil
  }

  /// Whether `text` and `other` are the same bytes.
  static func same(_ text: some StringProtocol, _ other: some StringProtocol) -> Bool {
    text.utf8.elementsEqual(other.utf8)
  }

  /// Whether `bytes` starts with the UTF-8 of `prefix`.
  static func hasPrefix(_ bytes: some Collection<UInt8>, _ prefix: String) -> Bool {
    bytes.starts(with: prefix.utf8)
  }

  /// Whether `text` contains the byte `byte`.
  static func contains(_ text: String, byte: UInt8) -> Bool { text.utf8.contains(byte) }

  /// Whether the bytes of `text` contain the bytes of `needle`.
  static func contains(_ text: some Collection<UInt8>, _ needle: String) -> Bool {
    occurrences(of: needle, in: text) > 0
  }

  /// How many times the bytes of `needle` (not empty) start in the bytes of `text`.
  static func occurrences(of needle: String, in text: some Collection<UInt8>) -> Int {
    let needle = Array(needle.utf8)
    let haystack = Array(text)
    guard !needle.isEmpty, needle.count <= haystack.count else { return 0 }
    return (0...(haystack.count - needle.count)).count { start in
      haystack[start] == needle[0] && haystack[start..<start + needle.count].elementsEqual(needle)
    }
  }

  /// `text` with ASCII `A`–`Z` lowered, other bytes unchanged (unlike `String.lowercased()`, which
  /// maps non-ASCII letters too, and may change the length).
  static func asciiLowercased(_ text: some StringProtocol) -> [UInt8] {
    text.utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }
  }

  /// Whether every byte of `text` is an ASCII digit (and there is at least one).
  static func isDigits(_ text: some StringProtocol) -> Bool {
    !text.utf8.isEmpty && text.utf8.allSatisfy(isDigit)
  }

  static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

  static func isASCIILetter(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
  }

  /// At most `limit` Unicode scalars of `text`, for messages (never a cut through a scalar).
  static func shown(_ text: some StringProtocol, limit: Int = 60) -> String {
    let scalars = text.unicodeScalars
    guard scalars.count > limit else { return String(text) }
    var shown = String.UnicodeScalarView()
    shown.append(contentsOf: scalars.prefix(limit))
    return String(shown) + "…"
  }
}
