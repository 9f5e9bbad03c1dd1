import MediationKit

/// Collects the signals an adapter sends for one show, with the time each arrived. Safe from any
/// thread; hand its ``sink`` to `AdapterAd.show(_:from:signals:)`.
public final class SignalRecorder: Sendable {
  private let storage = Locked<[(time: Duration, signal: AdapterSignal)]>([])
  private let clock: (any Scheduler)?

  /// Creates a recorder; with a `clock`, each signal is stamped with its time.
  public init(clock: (any Scheduler)? = nil) { self.clock = clock }

  /// The sink to pass to the adapter.
  public var sink: AdapterSignal.Sink {
    AdapterSignalSink { [self] signal in
      let now = clock?.now ?? .zero
      storage.withLock { $0.append((now, signal)) }
    }
  }

  /// Every signal so far, in arrival order.
  public var signals: [AdapterSignal] { storage.withLock { $0.map(\.signal) } }

  /// When the first signal matching `predicate` arrived.
  public func time(of predicate: (AdapterSignal) -> Bool) -> Duration? {
    storage.withLock { $0.first { predicate($0.signal) }?.time }
  }
}

/// Captures what an adapter's load completion reports. Safe from any thread.
public final class LoadRecorder: Sendable {
  private let storage = Locked<[Result<AdapterLoadedAd, AdapterError>]>([])

  public init() {}

  /// Every completion so far (an adapter must call at most once).
  public var results: [Result<AdapterLoadedAd, AdapterError>] { storage.withLock { $0 } }

  /// The completion to pass to `RewardedAdapter.load(_:completion:)`.
  public var completion: @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void {
    { [self] result in storage.withLock { $0.append(result) } }
  }

  /// The loaded ad, when the first completion was a success.
  public var ad: AdapterLoadedAd? {
    guard case .success(let loaded)? = results.first else { return nil }
    return loaded
  }

  /// The error, when the first completion was a failure.
  public var error: AdapterError? {
    guard case .failure(let error)? = results.first else { return nil }
    return error
  }
}
