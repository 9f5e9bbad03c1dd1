// The withdrawal sink of adapter API 2, kept as deprecated declarations that still work: each
// loaded ad now has one sink, ``AdapterSignal/Sink``, for its withdrawal and its show's signals.
// The "Migrating to adapter API 2.0" article lists the change. MediationKit's own targets never
// use these.

extension AdapterWithdrawal {
  /// Where an adapter told the core that an ad it loaded went away before it was shown.
  @available(
    *, deprecated,
    message:
      "call withdraw(_:) on the ad's one sink, AdapterLoadRequest.sink (the same sink its show is given)"
  )
  public struct Sink: Sendable {
    private let deliver: (@Sendable (AdapterWithdrawal) -> Void)?

    /// Creates a sink that hands each withdrawal to `deliver`.
    public init(_ deliver: @escaping @Sendable (AdapterWithdrawal) -> Void) {
      self.deliver = deliver
    }

    private init() { self.deliver = nil }

    /// A sink that ignores withdrawals.
    public static var ignored: AdapterWithdrawal.Sink { AdapterWithdrawal.Sink() }

    /// Tells the core that the SDK no longer has the ad this load made, and why.
    public func withdrawn(_ reason: AdapterWithdrawal) { deliver?(reason) }
  }
}

extension AdapterLoadRequest {
  /// The withdrawals of the ad this load makes: a view of ``sink``. Setting it sends the ad's
  /// withdrawals to the new sink; its signals still go where ``sink`` sends them.
  @available(
    *, deprecated,
    message:
      "keep AdapterLoadRequest.sink with the ad and call its withdraw(_:); the show is given the same sink"
  )
  public var withdrawals: AdapterWithdrawal.Sink {
    get { AdapterWithdrawal.Sink { [sink] in sink.withdraw($0) } }
    set { sink = sink.replacingWithdrawals { newValue.withdrawn($0) } }
  }
}
