#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The shape AppLovin documents for a MAX macro's value, checked after the tokens.
///
/// `{EVENT_TOKEN_ALL}` hashes the macro values back to back, without separators, so text can move
/// across the boundary of two neighbouring macros (in name order) with the token still valid:
/// `ad_unit_id=…0789&amount=10` and `ad_unit_id=…07&amount=8910` have the same token. A macro with
/// a fixed shape (16 hex digits, digits only, a known name) pins the boundaries it borders; the
/// boundary between two free-text macros (e.g. `{CURRENCY}` and `{CUSTOM_DATA}`) stays unpinned.
///
/// The macros AppLovin always fills (``isRequired``) must not be empty; the others may be (a user
/// without advertising id, an unknown country).
struct MaxFieldFormat: Sendable {
  /// What the value must look like, for messages ("16 hex digits").
  let expected: String
  /// Whether an empty value is refused.
  let isRequired: Bool
  private let matches: @Sendable (String) -> Bool

  /// The format of `macro`, or nil for free text (`{AD_UNIT_NAME}`, `{CURRENCY}`,
  /// `{CUSTOM_DATA}`, `{PLACEMENT}`, `{USER_ID}`) and the two tokens.
  static func of(_ macro: MaxMacro, networkNames: Set<String>) -> MaxFieldFormat? {
    switch macro {
    case .AD_UNIT_ID:
      MaxFieldFormat(expected: "16 hex digits", isRequired: true) { Self.isHex($0, count: 16) }
    case .AMOUNT:
      MaxFieldFormat(
        expected: "digits, optionally with a '.' and decimal digits (e.g. 100 or 2.5)", isRequired: true
      ) {
        Self.isDecimal($0)
      }
    case .CC:
      MaxFieldFormat(expected: "a two-letter country code (e.g. gb)", isRequired: false) {
        $0.utf8.count == 2 && $0.utf8.allSatisfy(UTF8Text.isASCIILetter)
      }
    case .EVENT_ID:
      MaxFieldFormat(expected: "40 hex digits", isRequired: true) { Self.isHex($0, count: 40) }
    case .IDFA, .IDFV:
      MaxFieldFormat(expected: "a UUID (8-4-4-4-12 hex digits)", isRequired: false) { Self.isUUID($0) }
    case .IMPRESSION_TIMESTAMP:
      MaxFieldFormat(expected: "digits (milliseconds since 1970)", isRequired: true) {
        UTF8Text.isDigits($0) && Int64($0) != nil
      }
    case .IP:
      MaxFieldFormat(expected: "an IPv4 or IPv6 address", isRequired: false) { Self.isIPAddress($0) }
    case .NETWORK_NAME:
      MaxFieldFormat(
        expected:
          "a MAX network name (e.g. APPLOVIN_BIDDING or AppLovin; MaxCallbackVerifier(networkNames:) lists them)",
        isRequired: true
      ) { name in networkNames.contains { UTF8Text.same($0, name) } }
    case .PACKAGE_NAME:
      MaxFieldFormat(
        expected: "a package name or bundle id (letters, digits, '.', '_', '-')", isRequired: false
      ) {
        $0.utf8.allSatisfy { UTF8Text.isASCIILetter($0) || UTF8Text.isDigit($0) || ".-_".utf8.contains($0) }
      }
    case .PLATFORM:
      MaxFieldFormat(expected: "ios, android or fireos", isRequired: false) {
        ["ios", "android", "fireos"].contains(String(decoding: UTF8Text.asciiLowercased($0), as: UTF8.self))
      }
    case .AD_UNIT_NAME, .CURRENCY, .CUSTOM_DATA, .EVENT_TOKEN, .EVENT_TOKEN_ALL, .PLACEMENT, .USER_ID:
      nil
    }
  }

  private init(expected: String, isRequired: Bool, matches: @escaping @Sendable (String) -> Bool) {
    self.expected = expected
    self.isRequired = isRequired
    self.matches = matches
  }

  /// Throws ``CallbackRejection/Reason/invalidParameter`` naming `parameter`, `macro` and the
  /// expected shape when `value` does not have it.
  func check(_ value: String, of macro: MaxMacro, parameter: String) throws(CallbackRejection) {
    if value.isEmpty && !isRequired { return }
    guard !value.isEmpty, matches(value) else {
      throw CallbackRejection(
        .invalidParameter, parameter: parameter,
        "parameter '\(parameter)' (\(macro.placeholder)) is '\(UTF8Text.shown(value))'; expected \(expected)")
    }
  }

  private static func isHex(_ text: String, count: Int) -> Bool {
    text.utf8.count == count && text.utf8.allSatisfy(isHexDigit)
  }

  private static func isHexDigit(_ byte: UInt8) -> Bool {
    UTF8Text.isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
  }

  /// `digits` or `digits.digits`.
  private static func isDecimal(_ text: String) -> Bool {
    let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    return (1...2).contains(parts.count)
      && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(UTF8Text.isDigit) }
  }

  private static func isUUID(_ text: String) -> Bool {
    let groups = text.utf8.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
    return groups.map(\.count) == [8, 4, 4, 4, 12] && groups.allSatisfy { $0.allSatisfy(isHexDigit) }
  }

  /// Whether the C library reads `text` as an IPv4 or IPv6 address.
  private static func isIPAddress(_ text: String) -> Bool {
    // A NUL would end the C string early: "1.2.3.4\0…" must not read as 1.2.3.4.
    guard !text.utf8.contains(0) else { return false }
    var buffer = [UInt8](repeating: 0, count: 16)
    return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
  }
}
