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

extension AdapterWithdrawal {
  /// Where an adapter tells the core that an ad it loaded went away before it was shown. Each load
  /// gets its own, in ``AdapterLoadRequest/withdrawals``; keep it with the ad the load makes.
  ///
  /// Calling ``withdrawn(_:)`` before the ad is shown makes the core stop reporting it ready at once,
  /// publish `expired` (after an `ad_withdrawn` diagnostic with the reason), discard it and, in a
  /// zone with auto-reload, load again. After the show started, a withdrawal changes nothing about
  /// the show: it is reported as a diagnostic. Safe to call from any thread, any number of times.
  public struct Sink: Sendable {
    private let deliver: (@Sendable (AdapterWithdrawal) -> Void)?

    /// Creates a sink that hands each withdrawal to `deliver`.
    public init(_ deliver: @escaping @Sendable (AdapterWithdrawal) -> Void) {
      self.deliver = deliver
    }

    private init() { self.deliver = nil }

    /// A sink that ignores withdrawals: the default of a request built outside the core (a bid
    /// request, a test).
    public static var ignored: AdapterWithdrawal.Sink { AdapterWithdrawal.Sink() }

    /// Tells the core that the SDK no longer has the ad this load made, and why.
    public func withdrawn(_ reason: AdapterWithdrawal) { deliver?(reason) }
  }
}
