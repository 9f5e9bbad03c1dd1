import MediationKit

/// Collects the signals an adapter sends, with the time each arrived and the show it was sent to.
/// Safe from any thread; hand a ``sink`` to `AdapterAd.show(_:from:signals:)` for each show.
public final class SignalRecorder: Sendable {
  private struct Entry {
    var time: Duration
    var show: AdapterSignal.Sink.ShowID
    var signal: AdapterSignal
  }

  private let storage = Locked<(entries: [Entry], shows: Int)>(([], 0))
  private let clock: (any Scheduler)?
  private let zoneID: String

  /// Creates a recorder; with a `clock`, each signal is stamped with its time.
  ///
  /// - Parameters:
  ///   - clock: Stamps each signal with its time; `nil`: every time is zero.
  ///   - zoneID: The zone the sinks' show ids name.
  public init(clock: (any Scheduler)? = nil, zoneID: String = "recorded") {
    self.clock = clock
    self.zoneID = zoneID
  }

  /// A new show's sink to pass to the adapter: each one read names the next show of ``init(clock:zoneID:)``'s
  /// zone (`recorded#1`, `recorded#2`, …), as the core's sinks do, so an adapter that routes
  /// callbacks by ``AdapterSignal/Sink/show`` can be tested with it.
  public var sink: AdapterSignal.Sink {
    let number = storage.withLock { state in
      state.shows += 1
      return state.shows
    }
    let show = AdapterSignal.Sink.ShowID(zoneID: zoneID, number: number)
    return AdapterSignal.Sink(show: show) { [self] signal in
      let now = clock?.now ?? .zero
      storage.withLock { $0.entries.append(Entry(time: now, show: show, signal: signal)) }
    }
  }

  /// Every signal so far, in arrival order, whichever show's sink it was sent to.
  public var signals: [AdapterSignal] { storage.withLock { $0.entries.map(\.signal) } }

  /// The signals sent to `show`'s sink, in arrival order.
  public func signals(show: AdapterSignal.Sink.ShowID) -> [AdapterSignal] {
    storage.withLock { $0.entries.filter { $0.show == show }.map(\.signal) }
  }

  /// When the first signal matching `predicate` arrived.
  public func time(of predicate: (AdapterSignal) -> Bool) -> Duration? {
    storage.withLock { $0.entries.first { predicate($0.signal) }?.time }
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
