/// The user's privacy signals, set on the ``Mediator`` and forwarded to every adapter: with each
/// request, and at once through ``RewardedAdapter/privacyDidChange(_:)`` when they change.
public struct PrivacySettings: Sendable, Equatable, Codable {
  /// GDPR: whether the user consented to personalized ads; `nil` when not asked (not in scope).
  public var hasUserConsent: Bool?
  /// CCPA: whether the user opted out of the sale of personal information; `nil` when unknown.
  public var doNotSell: Bool?
  /// COPPA / age-restricted: the user is a child or the app is child-directed.
  public var isChildDirected: Bool
  /// The IAB consent strings (TCF v2, GPP, US Privacy), alongside the booleans above.
  public var iab: IABConsent

  /// Creates privacy settings; a `nil` flag means the app has not said.
  public init(
    hasUserConsent: Bool? = nil, doNotSell: Bool? = nil, isChildDirected: Bool = false,
    iab: IABConsent = IABConsent()
  ) {
    self.hasUserConsent = hasUserConsent
    self.doNotSell = doNotSell
    self.isChildDirected = isChildDirected
    self.iab = iab
  }

  /// Consent to personalised ads as a network should apply it, from the app's flag and the TC
  /// string: `false` when either says no (``hasUserConsent`` is `false`, or GDPR applies and the
  /// TC string does not consent to TCF purpose 1); `true` when one says yes and none says no;
  /// `nil` when neither tells. No consent means non-personalised demand only.
  public var personalizedAdsConsent: Bool? {
    let tcf = iab.tcfPurposeOneConsent
    if hasUserConsent == false || tcf == false { return false }
    if hasUserConsent == true || tcf == true { return true }
    return nil
  }

  private enum CodingKeys: String, CodingKey { case hasUserConsent, doNotSell, isChildDirected, iab }

  /// Reads the settings; absent fields take the defaults.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      hasUserConsent: try container.decodeIfPresent(Bool.self, forKey: .hasUserConsent),
      doNotSell: try container.decodeIfPresent(Bool.self, forKey: .doNotSell),
      isChildDirected: try container.decodeIfPresent(Bool.self, forKey: .isChildDirected) ?? false,
      iab: try container.decodeIfPresent(IABConsent.self, forKey: .iab) ?? IABConsent())
  }
}
