/// The IAB consent strings a consent-management platform (CMP) stored for the user: the TCF v2
/// TC string, the GPP string with its applicable sections, and the US Privacy (CCPA) string.
///
/// Part of ``PrivacySettings`` (``PrivacySettings/iab``), so every adapter receives them with
/// each request and through ``RewardedAdapter/privacyDidChange(_:)``. Fill it yourself or let
/// ``IABConsent/Reader`` read the CMP's standard `UserDefaults` keys.
public struct IABConsent: Sendable, Equatable, Codable {
  /// The TCF v2 TC string (`IABTCF_TCString`); `nil` when none.
  public var tcString: String? {
    didSet { tcf = Self.decode(tcString) }
  }
  /// Whether GDPR applies to the user (`IABTCF_gdprApplies`: 1 yes, 0 no); `nil` when unknown.
  public var gdprApplies: Bool?
  /// The GPP string (`IABGPP_HDR_GppString`); `nil` when none.
  public var gppString: String?
  /// The GPP sections that apply (`IABGPP_GppSID`, e.g. `[2]` for the EU TCF section, `[7]` for
  /// the US national one).
  public var gppSectionIDs: [Int]
  /// The US Privacy string (`IABUSPrivacy_String`, e.g. `"1YNN"`); `nil` when none.
  public var usPrivacyString: String?
  /// ``tcString`` decoded, kept with it so requests do not decode it again; `nil` when there is
  /// no TC string or it is not a valid TCF v2 string.
  package private(set) var tcf: TCFConsent?

  /// Creates consent from the IAB strings a CMP stored; `nil` means the key is absent.
  public init(
    tcString: String? = nil, gdprApplies: Bool? = nil, gppString: String? = nil, gppSectionIDs: [Int] = [],
    usPrivacyString: String? = nil
  ) {
    self.tcString = tcString
    self.gdprApplies = gdprApplies
    self.gppString = gppString
    self.gppSectionIDs = gppSectionIDs
    self.usPrivacyString = usPrivacyString
    self.tcf = Self.decode(tcString)
  }

  /// Whether nothing is set.
  public var isEmpty: Bool {
    tcString == nil && gdprApplies == nil && gppString == nil && gppSectionIDs.isEmpty
      && usPrivacyString == nil
  }

  /// TCF purpose 1 consent (store and access information on a device, which personalised ads
  /// need), when the TC string tells: `nil` without a valid TC string or when GDPR does not apply.
  public var tcfPurposeOneConsent: Bool? {
    guard gdprApplies != false, let tcf else { return nil }
    return tcf.consents(toPurpose: 1)
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
