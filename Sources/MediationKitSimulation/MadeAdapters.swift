import MediationKit

/// The adapters a mediator made from a registry, kept by whoever built the registry.
///
/// The simulator asks each participating network's adapter what it would have answered for an
/// auction (``SimulatedNetwork/quote(_:)``), and tools read a simulated SDK's state (its keys, the
/// callbacks its server built). Both need the adapter instance a mediator made; rather than the
/// mediator handing its adapters out, wrap the registry before creating the mediator:
/// ```swift
/// let made = MadeAdapters()
/// let mediator = try Mediator(config: config, registry: made.recording(registry), scheduler: scheduler)
/// let oracle = made[MaxNetwork.id] as? any SimulatedNetwork
/// ```
/// Use one per mediator: a second mediator made from the same recording registry replaces the
/// adapters the first one made.
public final class MadeAdapters: Sendable {
  private let adapters = Locked<[NetworkID: any RewardedAdapter]>([:])

  /// Creates an empty record.
  public init() {}

  /// `registry` with each registration's factory wrapped so the adapter it makes is kept here;
  /// the adapters, their ids, order and random streams are those `registry` itself would give.
  public func recording(_ registry: AdapterRegistry) -> AdapterRegistry {
    let recording = AdapterRegistry()
    for registration in registry.all {
      let id = registration.info.id
      let wrapped = AdapterRegistry.Registration(info: registration.info) { [adapters] environment in
        let adapter = registration.makeAdapter(environment)
        adapters.withLock { $0[id] = adapter }
        return adapter
      }
      do {
        try recording.register(wrapped)
      } catch {
        // `registry` accepted the same info under distinct ids, so this one does too.
        preconditionFailure("a registration the source registry accepted was refused: \(error)")
      }
    }
    return recording
  }

  /// The adapter made for `network`, once a mediator has been created from ``recording(_:)``.
  public subscript(network: NetworkID) -> (any RewardedAdapter)? { adapters.withLock { $0[network] } }
}
