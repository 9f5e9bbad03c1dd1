/// The identifier of an ad network, e.g. `"empower"`, `"max"`, `"google"`.
///
/// Lower-case, stable, and the key adapters are registered under and line items refer to.
public struct NetworkID: RawRepresentable, Hashable, Comparable, Codable, Sendable,
  ExpressibleByStringLiteral, CustomStringConvertible
{
  public let rawValue: String

  /// Creates the id `rawValue` (`RawRepresentable`).
  public init(rawValue: String) { self.rawValue = rawValue }
  /// Creates the id `rawValue`, the name configuration files use (`"max"`).
  public init(_ rawValue: String) { self.rawValue = rawValue }
  /// Creates the id a string literal spells.
  public init(stringLiteral value: String) { self.rawValue = value }

  /// Reads the id from a single string.
  public init(from decoder: any Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(String.self)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }

  public var description: String { rawValue }
  public static func < (lhs: NetworkID, rhs: NetworkID) -> Bool { lhs.rawValue < rhs.rawValue }
}
