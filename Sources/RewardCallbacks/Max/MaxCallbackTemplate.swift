import RewardCrypto

/// A MAX S2S rewarded callback URL template, e.g.
/// `https://example.com/reward?user={USER_ID}&event={EVENT_ID}&token={EVENT_TOKEN}`: the network
/// side expands it (``expand(_:eventKey:)``), the publisher side uses it to know which query
/// parameter carries which macro (``MaxCallbackVerifier``).
///
/// Rules, checked at init: an absolute `http`/`https` URL without fragment; each macro is the whole
/// value of one query parameter (`name={MACRO}`) and appears once; macros are known
/// ``MaxMacro`` names.
///
/// `{EVENT_TOKEN_ALL}` is defined by AppLovin as "sha256(all macros sorted alphabetically,
/// URL-decoded + event key)". This library reads "all macros" as **the macros present in the
/// template, except `{EVENT_TOKEN}` and `{EVENT_TOKEN_ALL}` themselves**: their decoded values,
/// in byte order of the macro names, concatenated without separator, then the event key; SHA-256;
/// lowercase hex. A macro with no value counts as the empty string.
public struct MaxCallbackTemplate: Sendable, Equatable, CustomStringConvertible {
  /// A query parameter whose value is a macro.
  public struct MacroParameter: Sendable, Equatable {
    /// The parameter name, percent-decoded.
    public let name: String
    /// The macro it carries.
    public let macro: MaxMacro
  }

  private enum Piece: Sendable, Equatable {
    case literal(String)
    case macro(MaxMacro)
  }

  /// The template text.
  public let template: String
  /// The parameters that carry macros, in template order.
  public let macroParameters: [MacroParameter]
  private let pieces: [Piece]

  /// The template MediationKit's simulated MAX server uses by default: every macro the verifier
  /// reports, on a receiver at `http://127.0.0.1:8080/max/reward`.
  ///
  /// `http://127.0.0.1:8080/max/reward?event_id={EVENT_ID}&token={EVENT_TOKEN}&token_all={EVENT_TOKEN_ALL}&user_id={USER_ID}&amount={AMOUNT}&currency={CURRENCY}&custom_data={CUSTOM_DATA}&ad_unit_id={AD_UNIT_ID}&network={NETWORK_NAME}&placement={PLACEMENT}&timestamp={IMPRESSION_TIMESTAMP}`
  public static let standard: MaxCallbackTemplate = {
    do {
      return try MaxCallbackTemplate(standardText)
    } catch {
      fatalError("the built-in MAX template does not parse: \(error)")
    }
  }()

  /// The text of ``standard``.
  public static let standardText =
    "http://127.0.0.1:8080/max/reward?event_id={EVENT_ID}&token={EVENT_TOKEN}&token_all={EVENT_TOKEN_ALL}"
    + "&user_id={USER_ID}&amount={AMOUNT}&currency={CURRENCY}&custom_data={CUSTOM_DATA}"
    + "&ad_unit_id={AD_UNIT_ID}&network={NETWORK_NAME}&placement={PLACEMENT}&timestamp={IMPRESSION_TIMESTAMP}"

  /// Parses a template.
  ///
  /// - Throws: ``CallbackFormatError`` naming the offset (in UTF-8 bytes) and what was expected:
  ///   not an http(s) URL, unbalanced braces, an unknown macro (the known ones are listed), a macro
  ///   outside a query value or sharing it with other text, a macro used twice, a fragment, a
  ///   character not allowed in a URL.
  public init(_ template: String) throws(CallbackFormatError) {
    let bytes = Array(template.utf8)
    let lowered = UTF8Text.asciiLowercased(template)
    guard UTF8Text.hasPrefix(lowered, "http://") || UTF8Text.hasPrefix(lowered, "https://") else {
      throw CallbackFormatError(
        at: "offset 0",
        "a MAX callback template is an absolute http(s) URL; found '\(UTF8Text.shown(template, limit: 20))'")
    }
    let schemeLength = UTF8Text.hasPrefix(lowered, "https://") ? 8 : 7
    let hostLength = bytes[schemeLength...].prefix {
      ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains($0)
    }.count
    guard hostLength > 0 else {
      throw CallbackFormatError(
        at: "offset \(schemeLength)", "the template has no host; expected http(s)://host/path?query")
    }
    let refused = Set("\"<>\\^`|".utf8)
    for (offset, byte) in bytes.enumerated() {
      if byte <= 0x20 || byte == 0x7f || refused.contains(byte) {
        throw CallbackFormatError(
          at: "offset \(offset)",
          "character not allowed in a URL (\(byte == 0x20 ? "a space" : "byte \(byte)")); expected it percent-encoded"
        )
      }
      if byte == UInt8(ascii: "#") {
        throw CallbackFormatError(
          at: "offset \(offset)", "a callback template has no fragment ('#'); expected none")
      }
    }
    let known = MaxMacro.allCases.map(\.placeholder).joined(separator: ", ")
    // Braces: every '{' closes with '}' around a known macro name.
    var macroOffsets: [Int: (macro: MaxMacro, end: Int)] = [:]
    var index = 0
    while index < bytes.count {
      if bytes[index] == UInt8(ascii: "}") {
        throw CallbackFormatError(
          at: "offset \(index)", "unbalanced '}'; expected {MACRO}. Known macros: \(known)")
      }
      guard bytes[index] == UInt8(ascii: "{") else {
        index += 1
        continue
      }
      guard
        let close = bytes[(index + 1)...].firstIndex(where: {
          $0 == UInt8(ascii: "}") || $0 == UInt8(ascii: "{")
        }),
        bytes[close] == UInt8(ascii: "}")
      else {
        throw CallbackFormatError(
          at: "offset \(index)", "unbalanced '{'; expected {MACRO}. Known macros: \(known)")
      }
      let name = String(decoding: bytes[(index + 1)..<close], as: UTF8.self)
      // By bytes: `MaxMacro(rawValue:)` compares by canonical equivalence, so "{PAC\u{212A}AGE_NAME}"
      // (a Kelvin sign for the K) would name {PACKAGE_NAME}.
      guard let macro = MaxMacro.allCases.first(where: { UTF8Text.same($0.rawValue, name) }) else {
        throw CallbackFormatError(at: "offset \(index)", "unknown macro {\(name)}; known macros: \(known)")
      }
      macroOffsets[index] = (macro, close + 1)
      index = close + 1
    }
    guard let question = bytes.firstIndex(of: UInt8(ascii: "?")) else {
      if let first = macroOffsets.keys.min() {
        throw CallbackFormatError(
          at: "offset \(first)",
          "macro \(macroOffsets[first]!.macro.placeholder) is outside the query string; macros go in query values (name={MACRO})"
        )
      }
      throw CallbackFormatError("the template has no query string; expected ?name={MACRO}&…")
    }
    if let outside = macroOffsets.keys.filter({ $0 < question }).min() {
      throw CallbackFormatError(
        at: "offset \(outside)",
        "macro \(macroOffsets[outside]!.macro.placeholder) is outside the query string; macros go in query values (name={MACRO})"
      )
    }
    // Query parameters: a macro is the whole value of its parameter.
    var pieces: [Piece] = []
    var parameters: [MacroParameter] = []
    var literal = Array(bytes[...question])
    var segmentStart = question + 1
    while segmentStart <= bytes.count {
      let segmentEnd = bytes[segmentStart...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
      let segment = bytes[segmentStart..<segmentEnd]
      let equals = segment.firstIndex(of: UInt8(ascii: "="))
      let macrosHere = macroOffsets.keys.filter { $0 >= segmentStart && $0 < segmentEnd }.sorted()
      if let first = macrosHere.first {
        let (macro, end) = macroOffsets[first]!
        guard let equals, first == equals + 1, end == segmentEnd, macrosHere.count == 1 else {
          throw CallbackFormatError(
            at: "offset \(first)",
            "macro \(macro.placeholder) must be the whole value of a query parameter, as in name=\(macro.placeholder)"
          )
        }
        guard let name = PercentEncoding.decode(String(decoding: segment[..<equals], as: UTF8.self)),
          !name.isEmpty
        else {
          throw CallbackFormatError(
            at: "offset \(segmentStart)",
            "the parameter carrying \(macro.placeholder) has no valid name; expected name=\(macro.placeholder)"
          )
        }
        if let earlier = parameters.first(where: { $0.macro == macro }) {
          throw CallbackFormatError(
            at: "offset \(first)",
            "macro \(macro.placeholder) appears twice (already in '\(earlier.name)'); expected each macro once"
          )
        }
        if let earlier = parameters.first(where: { UTF8Text.same($0.name, name) }) {
          throw CallbackFormatError(
            at: "offset \(segmentStart)",
            "parameter '\(name)' appears twice (already carries \(earlier.macro.placeholder)); expected each name once"
          )
        }
        literal += bytes[segmentStart...equals]
        pieces.append(.literal(String(decoding: literal, as: UTF8.self)))
        pieces.append(.macro(macro))
        literal = []
        parameters.append(MacroParameter(name: name, macro: macro))
      } else {
        if let bad = PercentEncoding.firstBadEscape(String(decoding: segment, as: UTF8.self)) {
          throw CallbackFormatError(
            at: "offset \(segmentStart + bad)", "bad percent-escape; expected '%' and two hex digits")
        }
        literal += segment
      }
      if segmentEnd < bytes.count { literal.append(UInt8(ascii: "&")) }
      segmentStart = segmentEnd + 1
    }
    if !literal.isEmpty { pieces.append(.literal(String(decoding: literal, as: UTF8.self))) }
    self.template = template
    self.pieces = pieces
    self.macroParameters = parameters
  }

  /// The macros the template uses, in template order.
  public var macros: [MaxMacro] { macroParameters.map(\.macro) }

  /// The query parameter that carries `macro`, nil when the template does not use it.
  public func parameterName(for macro: MaxMacro) -> String? {
    macroParameters.first { $0.macro == macro }?.name
  }

  public var description: String { template }

  // MARK: The network side

  /// The callback URL for one reward: every macro replaced by its value, percent-encoded for a query
  /// component (see ``PercentEncoding/encodeQueryComponent(_:)``).
  ///
  /// `{EVENT_TOKEN}` and `{EVENT_TOKEN_ALL}` are computed here from the other values and
  /// `eventKey`; values given for them are ignored. A macro with no value expands to the empty
  /// string.
  ///
  /// - Parameters:
  ///   - values: The decoded value of each macro (`.EVENT_ID` is 40 hex digits from the network).
  ///   - eventKey: The ad unit's S2S event key, shared with the publisher.
  public func expand(_ values: [MaxMacro: String], eventKey: String) -> String {
    var url = ""
    for piece in pieces {
      switch piece {
      case .literal(let text): url += text
      case .macro(let macro):
        let value: String
        switch macro {
        case .EVENT_TOKEN: value = Self.eventToken(eventID: values[.EVENT_ID] ?? "", eventKey: eventKey)
        case .EVENT_TOKEN_ALL: value = eventTokenAll(values, eventKey: eventKey)
        default: value = values[macro] ?? ""
        }
        url += PercentEncoding.encodeQueryComponent(value)
      }
    }
    return url
  }

  /// `{EVENT_TOKEN}`: the lowercase hex SHA-1 of the event id followed by the event key.
  public static func eventToken(eventID: String, eventKey: String) -> String {
    Digest.sha1Hex(eventID + eventKey)
  }

  /// `{EVENT_TOKEN_ALL}` for this template: the lowercase hex SHA-256 of the decoded values of the
  /// template's macros other than the two tokens, in byte order of the macro names, concatenated,
  /// followed by the event key. A macro with no value counts as the empty string.
  public func eventTokenAll(_ values: [MaxMacro: String], eventKey: String) -> String {
    let hashed = macros.filter(\.isHashedInTokenAll).sorted()
    return Digest.sha256Hex(hashed.map { values[$0] ?? "" }.joined() + eventKey)
  }
}
