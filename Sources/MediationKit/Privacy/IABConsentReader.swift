import Foundation

extension Mediator {
  /// Follows the IAB consent strings a CMP stores in `defaults` (``IABConsent/Reader``): each
  /// reading replaces ``PrivacySettings/iab`` and reaches the adapters at once; the app's booleans
  /// stay as set. Keep the returned reader — following stops when it is released — and check its
  /// ``IABConsent/Reader/issues`` for malformed strings.
  public func followIABConsent(
    in defaults: UserDefaults = .standard, notificationCenter: NotificationCenter = .default
  ) -> IABConsent.Reader {
    IABConsent.Reader(defaults: defaults, notificationCenter: notificationCenter) { [weak self] reading in
      self?.updatePrivacy { $0.iab = reading.consent }
    }
  }
}

extension IABConsent {
  /// Reads the IAB consent strings a consent-management platform (CMP) stored in `UserDefaults`
  /// under the standard keys, and follows their changes.
  ///
  /// ```swift
  /// // At launch, after creating the mediator; keep the reader for as long as it should follow.
  /// let consent = mediator.followIABConsent()
  /// for issue in consent.issues { log(issue) }   // a malformed string, by key
  /// ```
  ///
  /// Each reading replaces ``PrivacySettings/iab`` (the app's booleans stay as they are), and the
  /// mediator hands the new settings to every adapter at once. A value that is not what its key's
  /// specification says is left out of the reading and reported as a `malformed_consent`
  /// ``RewardedAdEvent/Diagnostic`` naming the key — never a crash.
  ///
  /// Changes are picked up when `UserDefaults.didChangeNotification` is posted for the defaults
  /// (Apple platforms post it on every write). Foundation on Linux does not post it for every
  /// write, so there call ``refresh()`` after the CMP has written, or on a timer.
  public final class Reader: Sendable {
    /// `IABTCF_TCString`: the TCF v2 TC string.
    public static let tcStringKey = "IABTCF_TCString"
    /// `IABTCF_gdprApplies`: 1 when GDPR applies, 0 when it does not.
    public static let gdprAppliesKey = "IABTCF_gdprApplies"
    /// `IABGPP_HDR_GppString`: the GPP string.
    public static let gppStringKey = "IABGPP_HDR_GppString"
    /// `IABGPP_GppSID`: the applicable GPP section ids, separated by `_` (e.g. `"2_7"`).
    public static let gppSectionIDsKey = "IABGPP_GppSID"
    /// `IABUSPrivacy_String`: the US Privacy string (e.g. `"1YNN"`).
    public static let usPrivacyKey = "IABUSPrivacy_String"

    /// One reading of the keys: the strings that passed their checks, and what was wrong with the
    /// others.
    public struct Reading: Sendable, Equatable {
      /// The strings that passed their checks.
      public var consent: IABConsent
      /// One `malformed_consent` diagnostic per malformed key, naming it.
      public var issues: [RewardedAdEvent.Diagnostic]

      /// Creates a reading of `consent` with `issues`.
      public init(consent: IABConsent = IABConsent(), issues: [RewardedAdEvent.Diagnostic] = []) {
        self.consent = consent
        self.issues = issues
      }
    }

    /// The defaults, the latest reading and the notification observer, behind one lock: a
    /// refresh reads the defaults and compares with the latest reading in one round, so two
    /// refreshes racing cannot leave an older reading as the latest. (`UserDefaults` is not
    /// `Sendable` in every Foundation, so it is read only under the lock.)
    private struct State {
      let defaults: UserDefaults
      var last: Reading?
      var observer: (any NSObjectProtocol)?
    }

    private let notificationCenter: NotificationCenter
    private let onChange: @Sendable (Reading) -> Void
    private let state: Locked<State>

    /// Reads `defaults` now, calls `onChange` with the reading, and again whenever a later reading
    /// differs.
    ///
    /// - Parameters:
    ///   - defaults: Where the CMP writes (`.standard` in an app; a suite in tests).
    ///   - notificationCenter: Where `UserDefaults.didChangeNotification` is posted.
    ///   - onChange: Called with each new reading, on the thread that read it.
    public init(
      defaults: UserDefaults = .standard, notificationCenter: NotificationCenter = .default,
      onChange: @escaping @Sendable (Reading) -> Void
    ) {
      self.state = Locked(State(defaults: defaults))
      self.notificationCenter = notificationCenter
      self.onChange = onChange
      // Any defaults instance: a CMP may write through another instance of the same suite. A
      // reading that did not change is not reported, so unrelated changes cost one read.
      let observer = notificationCenter.addObserver(
        forName: UserDefaults.didChangeNotification, object: nil, queue: nil
      ) { [weak self] _ in self?.refresh() }
      state.withLock { $0.observer = observer }
      refresh()
    }

    deinit { stop() }

    /// Stops following changes.
    public func stop() {
      if let observer = state.withLock({ $0.observer.take() }) { notificationCenter.removeObserver(observer) }
    }

    /// The latest reading.
    public var current: Reading { state.withLock { $0.last } ?? Reading() }

    /// The latest reading's problems: one `malformed_consent` diagnostic per malformed key.
    public var issues: [RewardedAdEvent.Diagnostic] { current.issues }

    /// Reads the keys again and reports the reading if it changed.
    public func refresh() {
      let changed = state.withLock { state -> Reading? in
        let reading = Self.read(from: state.defaults)
        guard state.last != reading else { return nil }
        state.last = reading
        return reading
      }
      if let changed { onChange(changed) }
    }

    /// Reads the keys from `defaults` once.
    public static func read(from defaults: UserDefaults) -> Reading { read { defaults.object(forKey: $0) } }

    /// Reads the keys through `value` (a key's stored object, `nil` when absent), checking each
    /// against its specification.
    public static func read(_ value: (String) -> Any?) -> Reading {
      var reading = Reading()
      func malformed(_ key: String, _ problem: String) {
        reading.issues.append(RewardedAdEvent.Diagnostic(.malformedConsent, "\(key): \(problem); left out"))
      }
      if let raw = value(tcStringKey) {
        if let text = raw as? String {
          do {
            _ = try TCFConsent(decoding: text)
            reading.consent.tcString = text
          } catch {
            malformed(tcStringKey, error.description)
          }
        } else {
          malformed(tcStringKey, "expected a string, found \(describe(raw))")
        }
      }
      if let raw = value(gdprAppliesKey) {
        switch raw {
        case let number as Int where number == 0 || number == 1: reading.consent.gdprApplies = number == 1
        case let flag as Bool: reading.consent.gdprApplies = flag
        case let text as String where text == "0" || text == "1": reading.consent.gdprApplies = text == "1"
        default: malformed(gdprAppliesKey, "expected 0 or 1, found \(describe(raw))")
        }
      }
      if let raw = value(gppStringKey) {
        if let text = raw as? String, let problem = gppProblem(text) {
          malformed(gppStringKey, problem)
        } else if let text = raw as? String {
          reading.consent.gppString = text
        } else {
          malformed(gppStringKey, "expected a string, found \(describe(raw))")
        }
      }
      if let raw = value(gppSectionIDsKey) {
        if let ids = sectionIDs(raw) {
          reading.consent.gppSectionIDs = ids
        } else {
          malformed(
            gppSectionIDsKey, "expected section ids separated by '_' (e.g. \"2_7\"), found \(describe(raw))")
        }
      }
      if let raw = value(usPrivacyKey) {
        if let text = raw as? String, isUSPrivacyString(text) {
          reading.consent.usPrivacyString = text
        } else {
          malformed(
            usPrivacyKey,
            "expected version 1 and three of Y, N or - (e.g. \"1YNN\"), found \(describe(raw))")
        }
      }
      return reading
    }

    /// What is wrong with a GPP string, if anything: its header (the first `~` section) must be
    /// base64url whose first 6 bits are the header type, 3.
    static func gppProblem(_ text: String) -> String? {
      guard
        !text.isEmpty,
        text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_~.".contains($0)) })
      else { return "not a GPP string (base64url sections separated by '~')" }
      let header = text.split(separator: "~", omittingEmptySubsequences: false)[0]
      guard let bytes = TCFConsent.base64URLDecoded(header), let first = bytes.first else {
        return "not a GPP string: its header section is not base64url"
      }
      let type = first >> 2
      return type == 3 ? nil : "not a GPP string: header type \(type), expected 3"
    }

    /// `"2_7"` (or a single number) as `[2, 7]`; `nil` when malformed.
    static func sectionIDs(_ raw: Any) -> [Int]? {
      if let number = raw as? Int { return number >= 0 ? [number] : nil }
      guard let text = raw as? String else { return nil }
      if text.isEmpty { return [] }
      var ids: [Int] = []
      for part in text.split(separator: "_", omittingEmptySubsequences: false) {
        guard !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }), let id = Int(part) else {
          return nil
        }
        ids.append(id)
      }
      return ids
    }

    static func isUSPrivacyString(_ text: String) -> Bool {
      let characters = Array(text)
      return characters.count == 4 && characters[0] == "1"
        && characters.dropFirst().allSatisfy { "YN-".contains($0) }
    }

    /// A stored value as a diagnostic quotes it: a string in quotes, anything else as written
    /// with its type; at most ``MessageFormat/quoteLimit`` characters of either.
    static func describe(_ raw: Any) -> String {
      if let text = raw as? String { return "\"\(MessageFormat.excerpt(text))\"" }
      return "\(MessageFormat.excerpt("\(raw)")) (\(type(of: raw)))"
    }
  }
}
