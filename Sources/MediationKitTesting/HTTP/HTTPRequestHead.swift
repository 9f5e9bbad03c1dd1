/// The head of one HTTP/1.x request, as ``LoopbackHTTPReceiver`` received it: the request line and
/// the header fields.
public struct HTTPRequestHead: Sendable, Equatable {
  /// The method, e.g. `GET`.
  public var method: String
  /// The request target as sent: the path and query, e.g. `/rewards?user=u%201`.
  public var target: String
  /// The protocol version, e.g. `HTTP/1.1`.
  public var version: String
  /// The header fields, names lower-cased; a repeated field keeps its last value.
  public var headers: [String: String]

  /// Creates a request head.
  public init(method: String, target: String, version: String, headers: [String: String] = [:]) {
    self.method = method
    self.target = target
    self.version = version
    self.headers = headers
  }

  /// The target's path, before any `?`.
  public var path: String {
    target.firstIndex(of: "?").map { String(target[..<$0]) } ?? target
  }

  /// The target's raw query, after the first `?` (still percent-encoded); `nil` without one.
  public var query: String? {
    target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) }
  }

  /// Why a request head could not be parsed.
  public enum ParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request line is not `METHOD SP TARGET SP HTTP/x.y`; the line as received.
    case badRequestLine(String)
    /// A header line has no `:`; the line as received.
    case badHeaderLine(String)
    /// The head is not valid UTF-8 text.
    case notText

    public var description: String {
      switch self {
      case .badRequestLine(let line):
        "request line must be 'METHOD TARGET HTTP/x.y', found \"\(line.prefix(200))\""
      case .badHeaderLine(let line): "header line must be 'Name: value', found \"\(line.prefix(200))\""
      case .notText: "request head is not UTF-8 text"
      }
    }
  }

  /// Parses a request head: the bytes up to, not including, the blank line that ends it.
  ///
  /// - Parameter bytes: The request line and header lines, separated by CRLF (a bare LF is accepted).
  /// - Returns: The parsed head.
  /// - Throws: ``ParseError`` saying what was wrong.
  public static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(ParseError) -> HTTPRequestHead {
    // Decoding replaces invalid UTF-8 with U+FFFD, so the bytes are text exactly when the decoded
    // string encodes back to them (`String(validating:as:)` would say so directly, from iOS 18).
    let text = String(decoding: bytes, as: UTF8.self)
    guard text.utf8.elementsEqual(bytes) else { throw .notText }
    // "\r\n" is one Character in Swift, so split on it and on a bare "\n".
    var lines = text.split(omittingEmptySubsequences: false) { $0 == "\r\n" || $0 == "\n" }
    let requestLine = lines.isEmpty ? "" : String(lines.removeFirst())
    let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
    guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy({ $0.isASCII && $0.isUppercase }),
      !parts[1].isEmpty, parts[2].hasPrefix("HTTP/1.")
    else { throw .badRequestLine(requestLine) }
    var headers: [String: String] = [:]
    for line in lines where !line.isEmpty {
      guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
        throw .badHeaderLine(String(line))
      }
      let name = line[..<colon].lowercased()
      headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: [" ", "\t"])
    }
    return HTTPRequestHead(
      method: String(parts[0]), target: String(parts[1]), version: String(parts[2]), headers: headers)
  }
}

extension Substring {
  fileprivate func trimmingCharacters(in set: Set<Character>) -> String {
    var slice = self[...]
    while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
    while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
    return String(slice)
  }
}
