import Foundation
import Synchronization

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

/// Process-wide SDK settings: `EMASettings.shared.logLevel = .all`.
public final class EMASettings: Sendable {
  /// The process-wide settings.
  public static let shared = EMASettings()

  private let level = Mutex(LogLevel.none)

  /// Creates settings with logging off.
  public init() {}

  /// How much the SDK writes to standard error. Defaults to ``LogLevel/none``.
  public var logLevel: LogLevel {
    get { level.withLock { $0 } }
    set { level.withLock { $0 = newValue } }
  }

  /// Writes `message` to standard error when `level` is enabled.
  func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
    guard level != .none, level <= logLevel else { return }
    FileHandle.standardError.write(Data("[EmpowerMobileAds] \(message())\n".utf8))
  }
}
