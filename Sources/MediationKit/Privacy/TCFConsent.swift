import Foundation

/// The core segment of an IAB TCF v2 TC string (`IABTCF_TCString`), decoded: who wrote it and
/// which purposes the user consented to.
///
/// A TC string is base64url (no padding) over a bit field; its core segment (before the first
/// `.`) starts with these fields, most significant bit first:
///
/// | bits | field |
/// |---|---|
/// | 6 | version (2) |
/// | 36 + 36 | created, last updated (deciseconds since 1970) |
/// | 12 + 12 | CMP id, CMP version |
/// | 6 | consent screen |
/// | 12 | consent language (two letters, 6 bits each, A = 0) |
/// | 12 | vendor list version |
/// | 6 | TCF policy version |
/// | 1 + 1 | is service specific, use non-standard texts |
/// | 12 | special feature opt-ins |
/// | 24 | purpose consents (bit *n* − 1 is purpose *n*) |
/// | 24 | purpose legitimate interests |
/// | 1 | purpose one treatment |
/// | 12 | publisher country code |
///
/// The vendor sections that follow are not decoded: mediation needs the purposes.
package struct TCFConsent: Sendable, Equatable {
  package var version: Int
  /// When the string was created and last updated, in deciseconds since 1970.
  package var created: Int64
  package var lastUpdated: Int64
  package var cmpID: Int
  package var cmpVersion: Int
  package var consentScreen: Int
  /// Two upper-case letters, e.g. `"EN"`.
  package var consentLanguage: String
  package var vendorListVersion: Int
  package var policyVersion: Int
  package var isServiceSpecific: Bool
  /// The purposes (1...24) the user consented to.
  package var purposeConsents: Set<Int>
  /// The purposes (1...24) the publisher may pursue on legitimate interest.
  package var purposeLegitimateInterests: Set<Int>
  /// Purpose 1 was not disclosed (a publisher in a country that does not require it).
  package var purposeOneTreatment: Bool
  /// Two upper-case letters, e.g. `"DE"`.
  package var publisherCountryCode: String

  /// The bits the decoded fields span.
  static let coreBits = 213

  /// Decodes the core segment of `tcString`.
  /// - Throws: ``TCFDecodingError`` saying what is wrong (not base64url, wrong version, too short).
  package init(decoding tcString: String) throws(TCFDecodingError) {
    let core = tcString.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    guard !core.isEmpty else { throw TCFDecodingError("the core segment is empty") }
    guard let bytes = Self.base64URLDecoded(core) else {
      throw TCFDecodingError("the core segment is not base64url (A–Z, a–z, 0–9, '-', '_', no padding)")
    }
    var reader = BitReader(bytes)
    let version = reader.int(6)
    guard version == 2 else { throw TCFDecodingError("version \(version ?? 0), expected 2 (TCF v2)") }
    guard bytes.count * 8 >= Self.coreBits else {
      throw TCFDecodingError(
        "the core segment has \(bytes.count * 8) bits; TCF v2 needs at least \(Self.coreBits)")
    }
    // Safe to force from here on: the length was checked for every field below.
    self.version = 2
    created = reader.int64(36)!
    lastUpdated = reader.int64(36)!
    cmpID = reader.int(12)!
    cmpVersion = reader.int(12)!
    consentScreen = reader.int(6)!
    consentLanguage = reader.letters(2)!
    vendorListVersion = reader.int(12)!
    policyVersion = reader.int(6)!
    isServiceSpecific = reader.int(1)! == 1
    _ = reader.int(1)  // use non-standard texts
    _ = reader.int(12)  // special feature opt-ins
    purposeConsents = reader.flags(24)!
    purposeLegitimateInterests = reader.flags(24)!
    purposeOneTreatment = reader.int(1)! == 1
    publisherCountryCode = reader.letters(2)!
  }

  /// Whether the user consented to `purpose` (1: store and access information on a device, the
  /// purpose personalised ads need).
  package func consents(toPurpose purpose: Int) -> Bool { purposeConsents.contains(purpose) }

  /// Base64url without padding, through Foundation's decoder.
  static func base64URLDecoded(_ text: Substring) -> [UInt8]? {
    guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
      return nil
    }
    var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    let remainder = standard.count % 4
    if remainder == 1 { return nil }
    if remainder > 0 { standard += String(repeating: "=", count: 4 - remainder) }
    return Data(base64Encoded: standard).map(Array.init)
  }
}

/// Why a TC string could not be decoded.
package struct TCFDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
  package var reason: String

  package init(_ reason: String) { self.reason = reason }

  package var description: String { "not a TCF v2 TC string: \(reason)" }
}

/// Reads a byte array as a stream of bits, most significant first.
struct BitReader {
  private let bytes: [UInt8]
  private(set) var position = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  /// The next `count` bits as a number; `nil` past the end.
  mutating func int64(_ count: Int) -> Int64? {
    guard position + count <= bytes.count * 8 else { return nil }
    var value: Int64 = 0
    for _ in 0..<count {
      let bit = (bytes[position / 8] >> (7 - UInt8(position % 8))) & 1
      value = value << 1 | Int64(bit)
      position += 1
    }
    return value
  }

  mutating func int(_ count: Int) -> Int? { int64(count).map { Int($0) } }

  /// `count` letters of 6 bits each (0 = "A").
  mutating func letters(_ count: Int) -> String? {
    var text = ""
    for _ in 0..<count {
      guard let value = int(6), let scalar = Unicode.Scalar(65 + value) else { return nil }
      text.unicodeScalars.append(scalar)
    }
    return text
  }

  /// `count` flags; the numbers (1-based) of those set.
  mutating func flags(_ count: Int) -> Set<Int>? {
    var set: Set<Int> = []
    for number in 1...count {
      guard let bit = int(1) else { return nil }
      if bit == 1 { set.insert(number) }
    }
    return set
  }
}
