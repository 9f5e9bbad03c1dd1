/// The identifier of an ad network, e.g. `"empower"`, `"max"`, `"google"`.
///
/// Lower-case, stable, and the key adapters are registered under and line items refer to.
public struct NetworkID: RawRepresentable, Hashable, Comparable, Codable, Sendable,
  ExpressibleByStringLiteral, CustomStringConvertible
{
  public let rawValue: String

  public init(rawValue: String) { self.rawValue = rawValue }
  public init(_ rawValue: String) { self.rawValue = rawValue }
  public init(stringLiteral value: String) { self.rawValue = value }

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
