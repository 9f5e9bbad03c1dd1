import Foundation

/// The query of a callback URL, read the way `java.net.URI` reads it: the text between the first
/// `?` and any `#`, split on `&`, each part split at its first `=`, names and values
/// percent-decoded (`+` stays `+`).
///
/// Accepts an absolute `http`/`https` URL or an HTTP request target starting with `/` (what a
/// server sees on its request line).
struct CallbackQuery {
  /// The raw (still percent-encoded) query, without `?` and fragment.
  let raw: Substring
  /// The raw `&`-separated segments of the query, empty ones included.
  let segments: [Substring]
  /// The decoded parameters, in order (empty segments left out).
  let parameters: [QueryParameter]

  /// Characters `java.net.URI` refuses in a URL (besides controls and space): they must be
  /// percent-encoded.
  private static let refused = Set("\"<>\\^`{|}".utf8)

  /// Reads `url`.
  ///
  /// - Throws: ``CallbackRejection/Reason/malformed`` naming the offset and what was expected.
  init(_ url: String) throws(CallbackRejection) {
    guard !url.isEmpty else {
      throw CallbackRejection(.malformed, "empty URL; expected an http(s) URL with a query string")
    }
    for (offset, byte) in url.utf8.enumerated()
    where byte <= 0x20 || byte == 0x7f || Self.refused.contains(byte) {
      let shown =
        byte == 0x20
        ? "a space"
        : (byte < 0x20 || byte == 0x7f) ? "a control character" : "'\(Character(Unicode.Scalar(byte)))'"
      throw CallbackRejection(
        .malformed, "\(shown) at offset \(offset) is not allowed in a URL; expected it percent-encoded")
    }
    let lowercased = url.lowercased()
    if lowercased.hasPrefix("http://") || lowercased.hasPrefix("https://") {
      let afterScheme = url[url.range(of: "://")!.upperBound...]
      let host = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
      guard !host.isEmpty else {
        throw CallbackRejection(
          .malformed, "the URL has no host after '://'; expected http(s)://host/path?query")
      }
    } else if !url.hasPrefix("/") {
      let shown = url.count > 40 ? url.prefix(40) + "…" : Substring(url)
      throw CallbackRejection(
        .malformed,
        "'\(shown)' is neither an http(s) URL nor a request target; expected http(s)://host/path?query or /path?query"
      )
    }
    guard let question = url.firstIndex(of: "?") else {
      throw CallbackRejection(
        .malformed, "the URL has no query string; expected '?' followed by the callback's parameters")
    }
    let afterQuestion = url[url.index(after: question)...]
    raw = afterQuestion.prefix { $0 != "#" }
    if let bad = PercentEncoding.firstBadEscape(raw) {
      let offset = url.utf8.distance(from: url.startIndex, to: raw.startIndex) + bad
      let escape = String(decoding: raw.utf8.dropFirst(bad).prefix(3), as: UTF8.self)
      throw CallbackRejection(
        .malformed, "bad percent-escape '\(escape)' at offset \(offset); expected '%' and two hex digits")
    }
    segments = raw.split(separator: "&", omittingEmptySubsequences: false)
    var parameters: [QueryParameter] = []
    for segment in segments where !segment.isEmpty {
      let name = segment.prefix { $0 != "=" }
      let value = name.endIndex < segment.endIndex ? segment[segment.index(after: name.endIndex)...] : ""
      guard let decodedName = PercentEncoding.decode(name), let decodedValue = PercentEncoding.decode(value)
      else {
        throw CallbackRejection(
          .malformed, parameter: PercentEncoding.decode(name),
          "parameter '\(name)' does not decode to UTF-8 text; expected percent-encoded UTF-8")
      }
      parameters.append(QueryParameter(name: decodedName, value: decodedValue))
    }
    self.parameters = parameters
  }

  /// The decoded value of the parameter named `name`, nil when absent.
  ///
  /// - Throws: ``CallbackRejection/Reason/malformed`` when the parameter appears more than once
  ///   (which one counts would be ambiguous).
  func value(_ name: String) throws(CallbackRejection) -> String? {
    let matches = parameters.filter { $0.name == name }
    guard matches.count <= 1 else {
      throw CallbackRejection(
        .malformed, parameter: name, "parameter '\(name)' appears \(matches.count) times; expected it once")
    }
    return matches.first?.value
  }
}
