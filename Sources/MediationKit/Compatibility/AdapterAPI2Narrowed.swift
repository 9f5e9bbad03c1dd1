// Public API that no app or adapter needs, kept for one major version as deprecated declarations
// that still work: code using it compiles with a warning saying what to use instead. The
// "Migrating to adapter API 2.0" article lists each one. MediationKit's own targets use the
// `package` declarations these forward to, never these.

extension Mediator {
  /// The id of the auction started last: 1, 2, 3… in the order loads start (0 before the first).
  @available(
    *, deprecated,
    message: "read the id of the auction that loaded an ad from AdInfo.auctionID (ready and shown events)"
  )
  public var lastAuctionID: UInt64 { latestAuctionID }

  /// The adapter this mediator made for `network`, if it is registered.
  @available(
    *, deprecated,
    message:
      "keep the adapter your registration's factory makes (in tests, a registry wrapped to record the adapters a mediator makes); the engine alone calls an adapter"
  )
  public func adapter(for network: NetworkID) -> (any RewardedAdapter)? { madeAdapter(for: network) }

  /// The scheduler every delay and event of this mediator goes through.
  @available(*, deprecated, message: "keep the scheduler you passed to Mediator.init")
  public var scheduler: any Scheduler { engineScheduler }
}

extension AdInfo.NetworkResponse {
  /// Creates the outcome of one line item.
  @available(
    *, deprecated,
    message:
      "the mediator makes network responses; to test a handler, read them from a mediator run on a VirtualScheduler, or make an AdInfo with responses: []"
  )
  public init(
    network: NetworkID, placementID: String, priority: Int, ecpm: Double, state: State,
    latency: Duration? = nil, bid: Double? = nil, error: String? = nil
  ) {
    self.init(
      of: network, placementID: placementID, priority: priority, ecpm: ecpm, state: state, latency: latency,
      bid: bid, error: error)
  }
}

extension Mediator.AdapterStatus {
  /// Creates the status of `network`'s start-up.
  @available(*, deprecated, message: "the mediator makes adapter statuses: read Mediator.adapterStatuses")
  public init(
    network: NetworkID, state: State, description: String, latency: Duration? = nil,
    start: MediatorOptions.NetworkStart = .atLaunch
  ) {
    self.init(of: network, state: state, description: description, latency: latency, start: start)
  }
}

extension AdapterCompatibility {
  /// What is wrong and what to upgrade, naming both versions, for `info`'s adapter; `nil` when
  /// compatible.
  @available(
    *, deprecated,
    message:
      "AdapterRegistry.register(_:) throws incompatibleAdapter with this text as its message; the case of check(_:coreAPI:) carries the versions"
  )
  public func problem(for info: AdapterInfo) -> String? { explanation(for: info) }

  /// `13.0.0..<14.0.0` as ">= 13.0.0, < 14.0.0".
  @available(
    *, deprecated, message: "format the range yourself, e.g. \"\\(range.lowerBound)..<\\(range.upperBound)\""
  )
  public static func describe(_ range: Range<SemanticVersion>) -> String { rangeText(range) }
}
