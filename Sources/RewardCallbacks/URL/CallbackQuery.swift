/// The query of a callback URL, read the way `java.net.URI` reads it: the text between the first
/// `?` and any `#`, split on `&`, each part split at its first `=`, names and values
/// percent-decoded (`+` stays `+`).
///
/// Every split and search works on the URL's UTF-8 bytes (see ``UTF8Text``), so a combining mark
/// next to `&` or `=` never hides a separator. The segments are read once; the Google verifier
/// checks its signature over the same segments it takes the fields from.
///
/// Accepts an absolute `http`/`https` URL or an HTTP request target starting with `/` (what a
/// server sees on its request line).
struct CallbackQuery {
  /// One `&`-separated segment of the raw query.
  struct Segment {
    /// The raw (still percent-encoded) bytes, without the separating `&`.
    let raw: ArraySlice<UInt8>
    /// The decoded name: the bytes before the first `=` (all of them when there is none).
    let name: String
    /// The decoded value: the bytes after the first `=` (empty when there is none).
    let value: String

    /// Whether the segment is empty (`&&`, or a `&` at either end).
    var isEmpty: Bool { raw.isEmpty }
  }

  /// The raw (still percent-encoded) query bytes, without `?` and fragment.
  let raw: [UInt8]
  /// The `&`-separated segments of the query, in order, empty ones included.
  let segments: [Segment]

  /// The decoded parameters, in order (empty segments left out).
  var parameters: [QueryParameter] {
    segments.filter { !$0.isEmpty }.map { QueryParameter(name: $0.name, value: $0.value) }
  }

  /// Bytes `java.net.URI` refuses in a URL (besides controls and space): they must be
  /// percent-encoded.
  private static let refused = Set("\"<>\\^`{|}".utf8)

  /// Reads `url`.
  ///
  /// - Throws: ``CallbackRejection/Reason/malformed`` naming the offset and what was expected.
  init(_ url: String) throws(CallbackRejection) {
    let bytes = Array(url.utf8)
    guard !bytes.isEmpty else {
      throw CallbackRejection(.malformed, "empty URL; expected an http(s) URL with a query string")
    }
    for (offset, byte) in bytes.enumerated()
    where byte <= 0x20 || byte == 0x7f || Self.refused.contains(byte) {
      let shown =
        byte == 0x20
        ? "a space"
        : (byte < 0x20 || byte == 0x7f) ? "a control character" : "'\(Character(Unicode.Scalar(byte)))'"
      throw CallbackRejection(
        .malformed, "\(shown) at offset \(offset) is not allowed in a URL; expected it percent-encoded")
    }
    let lowered = UTF8Text.asciiLowercased(url)
    if let schemeLength = ["http://", "https://"].first(where: { UTF8Text.hasPrefix(lowered, $0) })?.utf8
      .count
    {
      let host = bytes[schemeLength...].prefix { !"/?#".utf8.contains($0) }
      guard !host.isEmpty else {
        throw CallbackRejection(
          .malformed, "the URL has no host after '://'; expected http(s)://host/path?query")
      }
    } else if bytes[0] != UInt8(ascii: "/") {
      throw CallbackRejection(
        .malformed,
        "'\(UTF8Text.shown(url, limit: 40))' is neither an http(s) URL nor a request target; expected http(s)://host/path?query or /path?query"
      )
    }
    guard let question = bytes.firstIndex(of: UInt8(ascii: "?")) else {
      throw CallbackRejection(
        .malformed, "the URL has no query string; expected '?' followed by the callback's parameters")
    }
    let raw = Array(bytes[(question + 1)...].prefix { $0 != UInt8(ascii: "#") })
    if let bad = PercentEncoding.firstBadEscape(raw) {
      let escape = String(decoding: raw.dropFirst(bad).prefix(3), as: UTF8.self)
      throw CallbackRejection(
        .malformed,
        "bad percent-escape '\(escape)' at offset \(question + 1 + bad); expected '%' and two hex digits")
    }
    var segments: [Segment] = []
    for part in raw.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
      let equals = part.firstIndex(of: UInt8(ascii: "=")) ?? part.endIndex
      let rawName = part[..<equals]
      let rawValue = equals < part.endIndex ? part[(equals + 1)...] : []
      guard let name = Self.decode(rawName), let value = Self.decode(rawValue) else {
        let shownName = String(decoding: rawName, as: UTF8.self)
        throw CallbackRejection(
          .malformed, parameter: Self.decode(rawName),
          "parameter '\(UTF8Text.shown(shownName))' does not decode to UTF-8 text; expected percent-encoded UTF-8"
        )
      }
      segments.append(Segment(raw: part, name: name, value: value))
    }
    self.raw = raw
    self.segments = segments
  }

  /// The decoded value of the parameter whose decoded name is byte for byte `name`, nil when
  /// absent.
  ///
  /// - Throws: ``CallbackRejection/Reason/malformed`` when the parameter appears more than once
  ///   (which one counts would be ambiguous).
  func value(_ name: String) throws(CallbackRejection) -> String? {
    let matches = segments.filter { !$0.isEmpty && UTF8Text.same($0.name, name) }
    guard matches.count <= 1 else {
      throw CallbackRejection(
        .malformed, parameter: name, "parameter '\(name)' appears \(matches.count) times; expected it once")
    }
    return matches.first?.value
  }

  private static func decode(_ raw: ArraySlice<UInt8>) -> String? {
    PercentEncoding.decodeBytes(raw).flatMap(UTF8Text.text(validating:))
  }
}
