/// Why a loaded ad went away before it was shown: the SDK no longer has it.
public struct AdapterWithdrawal: Sendable, Equatable, CustomStringConvertible {
  /// What happened to the ad on the SDK's side.
  public enum Kind: String, Sendable, Equatable, Codable {
    /// The SDK's availability for the placement turned false (an availability-based SDK).
    case availabilityLost = "availability_lost"
    /// The SDK expired the ad on its own, before the zone's expiry.
    case expired
    /// The SDK invalidated the ad (replaced it, released it, or lost its creative).
    case invalidated
    /// Not from an SDK: the core withdrew the ad because the running mediator's configuration
    /// removed or switched off its line item, network or zone (``Mediator/apply(_:)``), or its
    /// network was unregistered (``AdapterRegistry/unregister(_:)``).
    case configurationChanged = "configuration_changed"
  }

  /// What happened.
  public var kind: Kind
  /// The SDK's own words, for the diagnostic.
  public var message: String

  /// Creates a withdrawal of `kind`, with the SDK's `message`.
  public init(_ kind: Kind, message: String) {
    self.kind = kind
    self.message = message
  }

  public var description: String { "\(kind.rawValue): \(message)" }
}
