/// Runs one zone: its loads (one auction at a time), its queue of ready ads (up to its
/// `queueDepth`, each with its own expiry), preload and retry, frequency caps, and its shows.
///
/// Public methods may be called from any thread. Every event is published from a scheduler
/// action, so a zone's events come out in order on the scheduler's executor.
final class ZoneController: Sendable {
  /// A loaded ad waiting to be shown; shared by the zone's state and the show session made from it.
  final class ReadyAd: Sendable {
    let info: AdInfo
    let loaded: AdapterLoadedAd
    let expiresAt: Duration
    /// How the impression's one revenue is chosen: the network's figure, else the core's
    /// estimate from the winning price.
    let revenue: ShowStateMachine.RevenueRule
    /// The load that made it, which its ``AdapterWithdrawalSink`` names.
    let loadID: Int

    init(info: AdInfo, loaded: AdapterLoadedAd, expiresAt: Duration, networkReportsRevenue: Bool, loadID: Int)
    {
      self.info = info
      self.loaded = loaded
      self.expiresAt = expiresAt
      self.revenue = ShowStateMachine.RevenueRule(
        estimate: ImpressionRevenue(usd: info.ecpm / 1000, precision: info.precision),
        networkReportsRevenue: networkReportsRevenue)
      self.loadID = loadID
    }
  }

  /// The zone's deadlines, made once and armed again for every load, fill and show; a disarmed
  /// one leaves nothing queued.
  struct Timers {
    /// The load attempt's timeout (one attempt at a time: ``LoadAttempt``).
    let load: any SchedulerTimer
    /// The bid round's deadline of the load under way.
    let auction: any SchedulerTimer
    /// The expiry of the queued ad that expires first (``State/armExpiry(now:)``).
    let expiry: any SchedulerTimer
    /// The show's display timeout, maximum duration and reward grace window (one show at a time).
    let display: any SchedulerTimer
    let showDuration: any SchedulerTimer
    let grace: any SchedulerTimer
    /// The end of the late-signal window of the oldest ended show (``Lingering``).
    let linger: any SchedulerTimer
  }

  /// The load attempt the load timer is armed for.
  struct LoadAttempt {
    let loadID: Int
    let entry: Int
    let request: AdapterLoadRequest
  }

  /// A load's winning answer, which the zone makes its ad from. (A struct, not a tuple: a tuple
  /// holding references is copied through the runtime's generic witnesses.)
  struct Fill {
    let entry: Int
    let loaded: AdapterLoadedAd
    let price: Double
    let precision: RevenuePrecision
  }

  /// An ended show kept for its late-signal window, which turns late signals into diagnostics:
  /// when the window ends, its ad is discarded and the show forgotten.
  struct Lingering {
    let until: Duration
    var session: ShowSession
  }

  /// The zone's state: its lifecycle (load, slot, retry) as one pure value, the caches loads
  /// read, and the shows.
  struct State {
    var lifecycle = ZoneLifecycle()
    /// The networks loads cannot ask, and the adapter-status version it was computed at.
    var unavailable: (version: Int, networks: [NetworkID: LoadPlan.Unavailable]) = (-1, [:])
    /// For each plan entry, whether its network had started at that version: a start never
    /// reverts, so `true` lets a request skip the start gate and its lock.
    var started: [Bool] = []
    /// The setup `unavailable` and `started` were figured for: a configuration change makes the
    /// next load figure them again for its plan.
    var availabilityOf: ZoneSetup?
    /// Times of recent shows (at most a day's worth), for frequency caps.
    var showTimes: [Duration] = []
    /// The show on screen; then in `lingering` for the late-signal window.
    var session: ShowSession?
    /// The id of the zone's latest show (``ShowSession/id``).
    var lastShowID = 0
    /// Ended shows in their late-signal window, oldest first.
    var lingering: [Lingering] = []
    /// Set once, at the end of `init`.
    var timers: Timers?
  }

  /// The zone's id, which never changes.
  let id: String
  /// What the zone's configuration makes of it: `current` for the next load and for shows,
  /// `load` for the load in flight (or the last one), which keeps the setup it started with.
  struct Setups {
    var current: ZoneSetup
    var load: ZoneSetup
    /// Why the zone is out of the configuration, when it is (``retire(reason:)``).
    var removal: String?
  }

  /// A lock of its own, never held while taking `state`'s (the other way round is fine), so the
  /// setup can be read from inside `state.withLock`.
  let setups: Locked<Setups>
  let context: EngineContext
  let state = Locked(State())
  /// Where this zone's loads' withdrawal sinks deliver (one object per zone, not a closure per load).
  let withdrawals = ZoneWithdrawals()

  /// Whether the zone's current configuration reloads on its own (read without copying it).
  var autoReload: Bool { setups.withLock { $0.current.zone.autoReload } }

  init(zone: ZoneConfig, in config: MediationConfig, context: EngineContext) {
    self.id = zone.id
    let setup = ZoneSetup(
      zone: zone, in: config, userID: context.userID, adapters: context.adapters, seed: context.options.seed)
    self.setups = Locked(Setups(current: setup, load: setup))
    self.context = context
    let scheduler = context.scheduler
    let timers = Timers(
      load: scheduler.makeTimer { [weak self] in self?.loadAttemptTimedOut() },
      auction: scheduler.makeTimer { [weak self] in self?.auctionTimedOut() },
      expiry: scheduler.makeTimer { [weak self] in self?.expire() },
      display: scheduler.makeTimer { [weak self] in self?.receive(.displayTimeoutEnded, show: nil) },
      showDuration: scheduler.makeTimer { [weak self] in self?.receive(.showTimeoutEnded, show: nil) },
      grace: scheduler.makeTimer { [weak self] in self?.receive(.graceWindowEnded, show: nil) },
      linger: scheduler.makeTimer { [weak self] in self?.endLateSignalWindows() })
    state.withLock { $0.timers = timers }
    withdrawals.attach(self)
  }

  var isReady: Bool { readyAd != nil }

  /// The details of the ad a show would take now, if one is ready.
  var readyAd: AdInfo? {
    let now = context.scheduler.now
    return state.withLock { state in state.lifecycle.queue.best(now: now)?.info }
  }

  /// The most ads the zone's current configuration keeps ready.
  var queueDepth: Int { setups.withLock { $0.current.zone.queueDepth } }

  var isLoading: Bool { state.withLock { $0.lifecycle.isLoading } }
}

extension ZoneController.State {
  /// Arms the expiry timer at the earliest expiry in the queue, or disarms it when the queue is
  /// empty; after every change to the queue, in the same lock round.
  mutating func armExpiry(now: Duration) {
    if let earliest = lifecycle.queue.earliestExpiry {
      timers?.expiry.arm(after: max(.zero, earliest - now))
    } else {
      timers?.expiry.disarm()
    }
  }
}
