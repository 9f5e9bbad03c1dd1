import Foundation

/// Engine settings that are not per zone.
public struct MediatorOptions: Sendable {
  /// How long the network has to report the ad on screen after `show` before the show fails.
  ///
  /// 45 s by default: longer than a rewarded video and its end card, so that an SDK which plays
  /// the ad without ever reporting the display (its later reward or dismissal implies it) does not
  /// lose the user's reward; an SDK that never shows anything holds the screen that long at most.
  public var displayTimeout: Duration
  /// The seed of every random draw the mediator and its adapters make.
  public var seed: UInt64
  /// How long each adapter has to start before it is marked timed out and skipped.
  public var startTimeout: Duration
  /// When each network is started; a network not named here starts at launch.
  ///
  /// No load or bid reaches a network before its start has completed: requests that come
  /// meanwhile wait, within their line item's timeout. Name a network ``MediatorOptions/NetworkStart/onFirstUse``
  /// to start it with the first load that needs it (that load waits for the start), or
  /// ``MediatorOptions/NetworkStart/never`` for an SDK the app does not start in this session: its line items are
  /// skipped, `not_started`. Naming a network that is not registered is an error.
  public var networkStarts: [NetworkID: MediatorOptions.NetworkStart]
  /// How long after a show ends its ad is kept, so the network's late callbacks still arrive and
  /// are reported as diagnostics; then the ad is discarded.
  public var lateSignalWindow: Duration
  /// The longest a show may stay open without the network reporting the dismissal; then the core
  /// ends it as if dismissed (with a diagnostic), so the screen is never held for ever.
  public var maxShowDuration: Duration
  /// The wall clock, in milliseconds since 1970, that stamps rewards in the ``RewardLedger``
  /// (the scheduler's time restarts with the process; the ledger outlives it). Injected so tests
  /// and the simulator stay deterministic.
  public var wallClockMilliseconds: @Sendable () -> Int64
  /// Where reward transaction ids come from: unique across runs by default.
  public var transactionIDs: MediatorOptions.TransactionIDSource
  /// Where the ``RewardLedger`` is written and read, off the scheduler's executor:
  /// ``MediatorOptions/LedgerQueue/automatic`` (a background queue; the executor itself on a `VirtualScheduler`)
  /// by default. Unused without a ledger.
  public var ledgerQueue: MediatorOptions.LedgerQueue
  /// What the mediator records of each zone, for export and replay: nothing by default.
  public var flightRecorder: MediatorOptions.FlightRecorder
  /// Where the mediator logs its events (`os.Logger`, a handler): nowhere by default.
  public var logging: MediatorOptions.Logging

  public init(
    displayTimeout: Duration = .seconds(45), seed: UInt64 = 0, startTimeout: Duration = .seconds(10),
    networkStarts: [NetworkID: MediatorOptions.NetworkStart] = [:],
    lateSignalWindow: Duration = .seconds(60), maxShowDuration: Duration = .seconds(300),
    wallClockMilliseconds: @escaping @Sendable () -> Int64 = MediatorOptions.systemWallClock,
    transactionIDs: MediatorOptions.TransactionIDSource = .systemRandom,
    ledgerQueue: MediatorOptions.LedgerQueue = .automatic,
    flightRecorder: MediatorOptions.FlightRecorder = MediatorOptions.FlightRecorder(),
    logging: MediatorOptions.Logging = .off
  ) {
    self.logging = logging
    self.flightRecorder = flightRecorder
    self.ledgerQueue = ledgerQueue
    self.transactionIDs = transactionIDs
    self.wallClockMilliseconds = wallClockMilliseconds
    self.maxShowDuration = maxShowDuration
    self.displayTimeout = displayTimeout
    self.seed = seed
    self.startTimeout = startTimeout
    self.networkStarts = networkStarts
    self.lateSignalWindow = lateSignalWindow
  }
}

extension MediatorOptions {
  /// The system's wall clock, in milliseconds since 1970.
  public static let systemWallClock: @Sendable () -> Int64 = {
    Int64((Date().timeIntervalSince1970 * 1000).rounded())
  }
}

extension MediatorOptions {
  /// When a mediator starts a network's adapter (``MediatorOptions/networkStarts``).
  public enum NetworkStart: String, Sendable, Equatable, Codable {
    /// With the mediator, in parallel with the others (the default).
    case atLaunch = "at_launch"
    /// With the first load or bid that needs it, which waits for the start.
    case onFirstUse = "on_first_use"
    /// Never: its line items are skipped, `not_started` (an SDK the app leaves off).
    case never
  }
}

extension MediatorOptions {
  /// Where a mediator's reward transaction ids come from.
  public enum TransactionIDSource: Sendable, Equatable {
    /// Random version-4 UUIDs from the system's generator: unique across runs, processes and
    /// devices, which a ``RewardLedger`` and the app's server rely on to credit each reward once.
    case systemRandom
    /// UUID-shaped ids drawn from the mediator's seeded stream: the same seed gives the same ids,
    /// so output is reproducible byte for byte. Two runs with one seed repeat ids: use it for tests
    /// and simulation, never with a ledger that outlives the run.
    case seeded
  }
}
