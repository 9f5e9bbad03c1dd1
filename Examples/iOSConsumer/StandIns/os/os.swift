// A stand-in for Apple's `os` module, for type-checking on Linux only: it declares exactly what
// MediationKit's `#if canImport(os)` logging uses (`Logger`, `OSLogType`, and `OSLogMessage`'s
// string interpolation with a privacy), with the SDK's signatures. It does nothing: an app links
// the real module, and nothing here runs — the package only builds.

/// A log level (`os_log_type_t`).
public struct OSLogType: Equatable, RawRepresentable, Sendable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  public static let `default` = OSLogType(rawValue: 0x00)
  public static let info = OSLogType(rawValue: 0x01)
  public static let debug = OSLogType(rawValue: 0x02)
  public static let error = OSLogType(rawValue: 0x10)
  public static let fault = OSLogType(rawValue: 0x11)
}

/// How an interpolated value is shown in the log.
public struct OSLogPrivacy: Equatable, Sendable {
  private let mask: UInt8
  public static let `public` = OSLogPrivacy(mask: 0)
  public static let `private` = OSLogPrivacy(mask: 1)
  public static let sensitive = OSLogPrivacy(mask: 2)
  public static let auto = OSLogPrivacy(mask: 3)
}

/// How an interpolated string is aligned.
public struct OSLogStringAlignment: Sendable {
  public static let none = OSLogStringAlignment()
}

public struct OSLogInterpolation: StringInterpolationProtocol {
  public init(literalCapacity: Int, interpolationCount: Int) {}
  public mutating func appendLiteral(_ literal: String) {}
  public mutating func appendInterpolation(
    _ argumentString: @autoclosure @escaping () -> String, align: OSLogStringAlignment = .none,
    privacy: OSLogPrivacy = .auto
  ) {}
}

/// A log message: a string literal, with interpolations the system formats lazily.
public struct OSLogMessage: ExpressibleByStringInterpolation, ExpressibleByStringLiteral {
  public init(stringInterpolation: OSLogInterpolation) {}
  public init(stringLiteral value: String) {}
}

/// Writes messages to the unified log under a subsystem and category.
public struct Logger {
  public init(subsystem: String, category: String) {}
  public func log(level: OSLogType, _ message: OSLogMessage) {}
}
