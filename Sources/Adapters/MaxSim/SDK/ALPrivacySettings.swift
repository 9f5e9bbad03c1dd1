import MediationKit

/// The user's privacy signals for AppLovin: GDPR consent, CCPA do-not-sell and age restriction.
///
/// The vendor guide calls the class methods (`ALPrivacySettings.setHasUserConsent(true)`), which
/// here act on ``ALSdk/shared()``. Every ``ALSdk`` instance has its own settings,
/// ``ALSdk/privacySettings``, so two mediators in one process never see each other's signals.
///
/// The simulated network honours them as ``MaxBehaviorProfile`` describes: refused consent lowers
/// fill and price (non-personalized ads), do-not-sell lowers price, and an age-restricted user
/// gets fewer, cheaper ads and no bids. A TC string without TCF purpose 1 consent, where GDPR
/// applies, counts as refused consent, as the real SDK reads it from the CMP's keys.
public final class ALPrivacySettings: Sendable {
  private let state = Locked(MaxPrivacy())

  init() {}

  /// The signals as one value, for a load's draws.
  var current: MaxPrivacy { state.withLock { $0 } }

  /// Sets every signal at once, the way the mediation adapter forwards a request's signals.
  /// Simulation wiring: the real SDK cannot unset a signal once set.
  func replace(with privacy: MaxPrivacy) {
    state.withLock { $0 = privacy }
  }

  // MARK: Per SDK instance

  /// Records whether the user consented to personalized ads (GDPR).
  public func setHasUserConsent(_ hasUserConsent: Bool) {
    state.withLock { $0.hasUserConsent = hasUserConsent }
  }

  /// Whether the user consented; `false` when never set.
  public func hasUserConsent() -> Bool { state.withLock { $0.hasUserConsent ?? false } }

  /// Whether consent was set at all (the user is in GDPR scope).
  public func isUserConsentSet() -> Bool { state.withLock { $0.hasUserConsent != nil } }

  /// Records whether the user opted out of the sale of personal information (CCPA).
  public func setDoNotSell(_ doNotSell: Bool) {
    state.withLock { $0.doNotSell = doNotSell }
  }

  /// Whether the user opted out of the sale; `false` when never set.
  public func isDoNotSell() -> Bool { state.withLock { $0.doNotSell ?? false } }

  /// Whether do-not-sell was set at all.
  public func isDoNotSellSet() -> Bool { state.withLock { $0.doNotSell != nil } }

  /// Records whether the user is age-restricted (a child, or the app is child-directed).
  public func setIsAgeRestrictedUser(_ isAgeRestrictedUser: Bool) {
    state.withLock { $0.isAgeRestrictedUser = isAgeRestrictedUser }
  }

  /// Whether the user is age-restricted.
  public func isAgeRestrictedUser() -> Bool { state.withLock { $0.isAgeRestrictedUser } }

  // MARK: The vendor guide's class methods, on ALSdk.shared()

  /// Records GDPR consent on ``ALSdk/shared()``, as in `ALPrivacySettings.setHasUserConsent(true)`.
  public static func setHasUserConsent(_ hasUserConsent: Bool) {
    ALSdk.shared().privacySettings.setHasUserConsent(hasUserConsent)
  }

  /// Whether the user of ``ALSdk/shared()`` consented.
  public static func hasUserConsent() -> Bool { ALSdk.shared().privacySettings.hasUserConsent() }

  /// Records CCPA do-not-sell on ``ALSdk/shared()``, as in `ALPrivacySettings.setDoNotSell(true)`.
  public static func setDoNotSell(_ doNotSell: Bool) {
    ALSdk.shared().privacySettings.setDoNotSell(doNotSell)
  }

  /// Whether the user of ``ALSdk/shared()`` opted out of the sale.
  public static func isDoNotSell() -> Bool { ALSdk.shared().privacySettings.isDoNotSell() }

  /// Records an age-restricted user on ``ALSdk/shared()``.
  public static func setIsAgeRestrictedUser(_ isAgeRestrictedUser: Bool) {
    ALSdk.shared().privacySettings.setIsAgeRestrictedUser(isAgeRestrictedUser)
  }

  /// Whether the user of ``ALSdk/shared()`` is age-restricted.
  public static func isAgeRestrictedUser() -> Bool { ALSdk.shared().privacySettings.isAgeRestrictedUser() }
}

/// The privacy signals one load is drawn under (`nil`: not set, so no effect).
struct MaxPrivacy: Sendable, Equatable {
  var hasUserConsent: Bool?
  var doNotSell: Bool?
  var isAgeRestrictedUser = false
  /// The CMP's IAB strings. The real SDK reads them from the app's `UserDefaults` (`IABTCF_…`,
  /// `IABGPP_…`, `IABUSPrivacy_String`); the simulated one, which has no process-wide state, is
  /// given them by the adapter.
  var consentStrings = IABConsent()

  /// Whether ads may be personalised: not when consent was refused, nor when GDPR applies and the
  /// TC string does not consent to TCF purpose 1 (``PrivacySettings/personalizedAdsConsent``).
  var personalizedAds: Bool? {
    PrivacySettings(hasUserConsent: hasUserConsent, iab: consentStrings).personalizedAdsConsent
  }
}
