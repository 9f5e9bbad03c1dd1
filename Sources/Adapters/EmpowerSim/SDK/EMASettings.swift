import Foundation
import MediationKit

/// How much the SDK logs, from ``none`` to ``all``.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
  /// Nothing.
  case none = 0
  /// Errors only.
  case error
  /// Errors and warnings (e.g. a show that was refused).
  case warning
  /// Load and show outcomes.
  case info
  /// Every status change.
  case debug
  /// Everything.
  case all

  /// Orders levels from ``none`` to ``all``.
  public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// SDK settings: logging and the user's privacy signals.
///
/// ```swift
/// EMASettings.shared.logLevel = .all
/// EMASettings.shared.hasUserConsent = false  // GDPR: no consent, non-personalized ads
/// EMASettings.shared.doNotSell = true        // CCPA opt-out
/// EMASettings.shared.isChildDirected = true  // COPPA
/// ```
///
/// ``shared`` belongs to ``EMAManager/shared``. A manager made with
/// ``EMAManager/init(scheduler:random:profile:settings:)`` has its own settings (``EMAManager/settings``),
/// so two SDK instances in one process do not see each other's. Privacy signals apply from the next
/// ad or bid request; their effect is described in ``EmpowerBehaviorProfile``.
public final class EMASettings: Sendable {
  /// The settings of ``EMAManager/shared``.
  public static let shared = EMASettings()

  private let level = Locked(LogLevel.none)
  private let privacySignals = Locked(PrivacySettings())

  /// Creates settings with logging off and no privacy signal set.
  public init() {}

  /// How much the SDK writes to standard error. Defaults to ``LogLevel/none``.
  public var logLevel: LogLevel {
    get { level.get() }
    set { level.set(newValue) }
  }

  /// GDPR: whether the user consented to personalized ads; `nil` (the default) when consent was
  /// not asked for (the user is not in scope). `false` gets non-personalized ads: fewer fills, lower
  /// prices.
  public var hasUserConsent: Bool? {
    get { privacySignals.withLock { $0.hasUserConsent } }
    set { privacySignals.withLock { $0.hasUserConsent = newValue } }
  }

  /// CCPA: whether the user opted out of the sale of personal information; `nil` (the default)
  /// when unknown. `true` lowers prices.
  public var doNotSell: Bool? {
    get { privacySignals.withLock { $0.doNotSell } }
    set { privacySignals.withLock { $0.doNotSell = newValue } }
  }

  /// COPPA: whether the user is a child or the app is child-directed. Defaults to `false`. `true`
  /// gets fewer fills, lower prices and no bids.
  public var isChildDirected: Bool {
    get { privacySignals.withLock { $0.isChildDirected } }
    set { privacySignals.withLock { $0.isChildDirected = newValue } }
  }

  /// The CMP's IAB consent strings (TCF v2, GPP, US Privacy). A real SDK reads them from the app's
  /// `UserDefaults` (`IABTCF_TCString`, …); this simulated one, which has no process-wide state, is
  /// given them. Where GDPR applies, a TC string without TCF purpose 1 consent gets
  /// non-personalized ads, as refused consent does.
  public var iabConsent: IABConsent {
    get { privacySignals.withLock { $0.iab } }
    set { privacySignals.withLock { $0.iab = newValue } }
  }

  /// The privacy signals at once, read or written under one lock.
  var privacy: PrivacySettings {
    get { privacySignals.withLock { $0 } }
    set { privacySignals.withLock { $0 = newValue } }
  }

  /// Whether `level` is enabled (cheap: one relaxed atomic load).
  func logs(_ level: LogLevel) -> Bool {
    level != .none && level.rawValue <= self.level.get().rawValue
  }

  /// Writes `message` to standard error when `level` is enabled; `message` is only built then.
  func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
    guard logs(level) else { return }
    FileHandle.standardError.write(Data("[EmpowerMobileAds] \(message())\n".utf8))
  }
}
