/// The IAB consent strings a consent-management platform (CMP) stored for the user: the TCF v2
/// TC string, the GPP string with its applicable sections, and the US Privacy (CCPA) string.
///
/// Part of ``PrivacySettings`` (``PrivacySettings/iab``), so every adapter receives them with
/// each request and through ``RewardedAdapter/privacyDidChange(_:)``. Fill it yourself or let
/// ``IABConsent/Reader`` read the CMP's standard `UserDefaults` keys.
public struct IABConsent: Sendable, Equatable, Codable {
  /// The fields, with the TC string decoded once.
  private struct Fields: Sendable, Equatable {
    var tcString: String?
    var gdprApplies: Bool?
    var gppString: String?
    var gppSectionIDs: [Int] = []
    var usPrivacyString: String?
    var tcf: TCFConsent?
  }

  /// The fields behind one reference, `nil` when all are empty: every request carries the privacy
  /// settings, and copying one reference (or none) is cheaper than copying strings and sets.
  /// Immutable; a setter replaces it.
  private final class Box: Sendable {
    let fields: Fields
    init(_ fields: Fields) { self.fields = fields }
  }

  private var box: Box?

  private var fields: Fields {
    get { box?.fields ?? Fields() }
    set { box = newValue == Fields() ? nil : Box(newValue) }
  }

  /// The TCF v2 TC string (`IABTCF_TCString`); `nil` when none.
  public var tcString: String? {
    get { box?.fields.tcString }
    set {
      var fields = self.fields
      fields.tcString = newValue
      fields.tcf = Self.decode(newValue)
      self.fields = fields
    }
  }
  /// Whether GDPR applies to the user (`IABTCF_gdprApplies`: 1 yes, 0 no); `nil` when unknown.
  public var gdprApplies: Bool? {
    get { box?.fields.gdprApplies }
    set { fields.gdprApplies = newValue }
  }
  /// The GPP string (`IABGPP_HDR_GppString`); `nil` when none.
  public var gppString: String? {
    get { box?.fields.gppString }
    set { fields.gppString = newValue }
  }
  /// The GPP sections that apply (`IABGPP_GppSID`, e.g. `[2]` for the EU TCF section, `[7]` for
  /// the US national one).
  public var gppSectionIDs: [Int] {
    get { box?.fields.gppSectionIDs ?? [] }
    set { fields.gppSectionIDs = newValue }
  }
  /// The US Privacy string (`IABUSPrivacy_String`, e.g. `"1YNN"`); `nil` when none.
  public var usPrivacyString: String? {
    get { box?.fields.usPrivacyString }
    set { fields.usPrivacyString = newValue }
  }
  /// ``tcString`` decoded, kept with it so requests do not decode it again; `nil` when there is
  /// no TC string or it is not a valid TCF v2 string.
  package var tcf: TCFConsent? { box?.fields.tcf }

  /// Creates consent from the IAB strings a CMP stored; `nil` means the key is absent.
  public init(
    tcString: String? = nil, gdprApplies: Bool? = nil, gppString: String? = nil, gppSectionIDs: [Int] = [],
    usPrivacyString: String? = nil
  ) {
    fields = Fields(
      tcString: tcString, gdprApplies: gdprApplies, gppString: gppString, gppSectionIDs: gppSectionIDs,
      usPrivacyString: usPrivacyString, tcf: Self.decode(tcString))
  }

  /// Whether nothing is set.
  public var isEmpty: Bool { box == nil }

  /// TCF purpose 1 consent (store and access information on a device, which personalised ads
  /// need), when the TC string tells: `nil` without a valid TC string or when GDPR does not apply.
  public var tcfPurposeOneConsent: Bool? {
    guard let fields = box?.fields, fields.gdprApplies != false, let tcf = fields.tcf else { return nil }
    return tcf.consents(toPurpose: 1)
  }

  public static func == (lhs: IABConsent, rhs: IABConsent) -> Bool {
    lhs.box === rhs.box || lhs.fields == rhs.fields
  }

  private static func decode(_ tcString: String?) -> TCFConsent? {
    guard let tcString else { return nil }
    return try? TCFConsent(decoding: tcString)
  }

  private enum CodingKeys: String, CodingKey {
    case tcString, gdprApplies, gppString, gppSectionIDs, usPrivacyString
  }

  /// Reads the strings; absent keys stay `nil`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      tcString: try container.decodeIfPresent(String.self, forKey: .tcString),
      gdprApplies: try container.decodeIfPresent(Bool.self, forKey: .gdprApplies),
      gppString: try container.decodeIfPresent(String.self, forKey: .gppString),
      gppSectionIDs: try container.decodeIfPresent([Int].self, forKey: .gppSectionIDs) ?? [],
      usPrivacyString: try container.decodeIfPresent(String.self, forKey: .usPrivacyString))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encodeIfPresent(tcString, forKey: .tcString)
    try container.encodeIfPresent(gdprApplies, forKey: .gdprApplies)
    try container.encodeIfPresent(gppString, forKey: .gppString)
    if !gppSectionIDs.isEmpty { try container.encode(gppSectionIDs, forKey: .gppSectionIDs) }
    try container.encodeIfPresent(usPrivacyString, forKey: .usPrivacyString)
  }
}
