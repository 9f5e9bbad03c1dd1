extension AdapterRegistry {
  /// How to make one network's adapter: its info, and a factory called once per ``Mediator``.
  public struct Registration: Sendable {
    /// The adapter's network and versions.
    public var info: AdapterInfo
    /// Makes an adapter for a mediator's environment.
    public var makeAdapter: @Sendable (AdapterEnvironment) -> any RewardedAdapter

    /// Registers the network `info` describes, made by `makeAdapter` for each mediator.
    public init(
      info: AdapterInfo, makeAdapter: @escaping @Sendable (AdapterEnvironment) -> any RewardedAdapter
    ) {
      self.info = info
      self.makeAdapter = makeAdapter
    }
  }
}

/// The adapters available to mediation, by network id.
///
/// An instance you create and pass to a ``Mediator``; ``shared`` is a convenience for apps that
/// register their adapters once at launch. Tests make their own. Safe to use from any thread.
///
/// The registry stays live: every mediator made from it follows its changes. A network registered
/// later is made and started by each such mediator and used by their next loads that name it; a
/// network unregistered has its loads cancelled and its ready ads withdrawn, and later loads skip
/// its line items, saying why in ``AdInfo/responses``.
public final class AdapterRegistry: Sendable {
  /// A change the registry's observers (the mediators made from it) are told about.
  package enum Change: Sendable {
    case registered(AdapterRegistry.Registration)
    case unregistered(NetworkID)
  }

  /// The registrations, the observers, and the changes not yet delivered to them: one value
  /// behind one lock, so a change is taken off the queue together with the observers it goes to.
  fileprivate struct State {
    var registrations: [NetworkID: AdapterRegistry.Registration] = [:]
    /// The observers by token, a token larger than every earlier one, so sorting by token is
    /// the order they subscribed in.
    var handlers: [Int: @Sendable (Change) -> Void] = [:]
    var nextToken = 0
    /// One change delivered at a time: a change made meanwhile (on another thread, or by an
    /// observer) waits its turn, so every observer sees the changes in the order they were made,
    /// and no observer runs under the lock.
    var changes = TurnQueue<Change>()
  }

  private let state = Locked(State())

  /// The process-wide default registry, for apps that want one.
  public static let shared = AdapterRegistry()

  /// Creates an empty registry.
  public init() {}

  /// Creates a registry holding `registrations`.
  /// - Throws: ``MediationError`` `duplicateNetwork` if two share an id, `incompatibleAdapter`
  ///   for an adapter that does not fit (see ``register(_:)``).
  public convenience init(_ registrations: [Registration]) throws(MediationError) {
    self.init()
    for registration in registrations { try register(registration) }
  }

  /// Adds an adapter, after checking it fits this MediationKit and its linked SDK
  /// (``AdapterCompatibility``), so an incompatible adapter is refused here, with what to
  /// upgrade, rather than failing when the mediator starts.
  /// - Throws: ``MediationError`` `incompatibleAdapter`, naming the adapter's and the core's (or
  ///   the SDK's) versions and what to upgrade; `duplicateNetwork` if the id is already registered.
  public func register(_ registration: Registration) throws(MediationError) {
    let info = registration.info
    if let problem = AdapterCompatibility.check(info).explanation(for: info) {
      throw MediationError(.incompatibleAdapter, problem)
    }
    let change = Change.registered(registration)
    let (existing, observers) = state.withLock { state -> (AdapterInfo?, Observers?) in
      if let existing = state.registrations[registration.info.id] { return (existing.info, nil) }
      state.registrations[registration.info.id] = registration
      return (nil, state.startDelivering(change))
    }
    if let existing {
      throw MediationError(
        .duplicateNetwork,
        "network '\(registration.info.id)' is already registered (\(existing.displayName) adapter \(existing.adapterVersion))"
      )
    }
    if let observers { deliver(change, to: observers) }
  }

  /// Removes a network. Every running mediator made from this registry cancels its loads and
  /// bids, withdraws its ready ads (`expired`, after an `ad_withdrawn` diagnostic naming the
  /// change) and skips its line items from then on (``AdInfo/NetworkResponse/State/disabled``); a show
  /// already on screen finishes, reward included. Registering it again brings it back, started
  /// afresh.
  /// - Throws: ``MediationError`` `unknownNetwork`, naming the registered ids.
  public func unregister(_ id: NetworkID) throws(MediationError) {
    let change = Change.unregistered(id)
    let found = state.withLock { state -> Observers?? in
      guard state.registrations.removeValue(forKey: id) != nil else { return nil }
      return .some(state.startDelivering(change))
    }
    guard let found else { throw MediationError.unknownNetwork(id, known: networkIDs) }
    if let observers = found { deliver(change, to: observers) }
  }

  /// Calls `handler` with every later change, in order: on the thread that makes it, or (while
  /// another thread is delivering a change) on that thread, after the changes before it.
  package func observe(_ handler: @escaping @Sendable (Change) -> Void) -> Cancellable {
    let token = state.withLock { state -> Int in
      state.nextToken += 1
      state.handlers[state.nextToken] = handler
      return state.nextToken
    }
    return Cancellable { [weak self] in
      _ = self?.state.withLock { $0.handlers.removeValue(forKey: token) }
    }
  }

  /// Delivers `change` to `observers`, then every change queued meanwhile, oldest first, outside
  /// the lock; until none is left. Each change is taken with the observers subscribed when it is
  /// taken, in the order they subscribed.
  private func deliver(_ change: Change, to observers: Observers) {
    for handler in observers { handler(change) }
    while let (change, observers) = state.withLock({ state in
      state.changes.next().map { ($0, state.observers) }
    }) {
      for handler in observers { handler(change) }
    }
  }

  /// The registered network ids, sorted.
  public var networkIDs: [NetworkID] { state.withLock { $0.registrations.keys.sorted() } }

  /// Every registration, sorted by network id.
  public var all: [Registration] {
    state.withLock { $0.registrations.values.sorted { $0.info.id < $1.info.id } }
  }

  /// The registration for `id`.
  /// - Throws: ``MediationError`` `unknownNetwork`, naming the registered ids.
  public func registration(for id: NetworkID) throws(MediationError) -> Registration {
    if let registration = state.withLock({ $0.registrations[id] }) { return registration }
    throw MediationError.unknownNetwork(id, known: networkIDs)
  }

  /// A registry holding only the networks in `ids`, for running with a subset.
  /// - Throws: ``MediationError`` `unknownNetwork` for an id that is not registered.
  public func subset(_ ids: [NetworkID]) throws(MediationError) -> AdapterRegistry {
    let subset = AdapterRegistry()
    for id in ids where !subset.networkIDs.contains(id) {
      try subset.register(try registration(for: id))
    }
    return subset
  }
}

extension AdapterRegistry {
  fileprivate typealias Observers = [@Sendable (AdapterRegistry.Change) -> Void]
}

extension AdapterRegistry.State {
  /// The observers, in the order they subscribed.
  fileprivate var observers: AdapterRegistry.Observers { handlers.sorted { $0.key < $1.key }.map(\.value) }

  /// Starts delivering `change`, returning the observers to hand it to, or queues it behind the
  /// change being delivered (`nil`).
  fileprivate mutating func startDelivering(_ change: AdapterRegistry.Change) -> AdapterRegistry.Observers? {
    changes.startOrQueue(change) ? observers : nil
  }
}
