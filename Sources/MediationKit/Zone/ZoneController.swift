/// Runs one zone: its loads (one auction at a time), its one ready ad, expiry, preload and retry,
/// frequency caps, and its shows.
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
    /// The ready ad's expiry.
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

  let zone: ZoneConfig
  let planner: any LoadPlanner.Type
  let plan: LoadPlan
  /// Each plan entry's adapter (`nil` when its network is not registered), looked up once.
  let adapters: [(any RewardedAdapter)?]
  /// For each plan entry, whether its network reports impression revenue itself.
  let reportsRevenue: [Bool]
  let context: EngineContext
  /// The zone's timeouts as durations, converted from the configured seconds once.
  let budget: LoadBudget
  let adExpiry: Duration
  let rewardGrace: Duration
  let state = Locked(State())
  /// Where this zone's loads' withdrawal sinks deliver (one object per zone, not a closure per load).
  let withdrawals = ZoneWithdrawals()
  /// The learned eCPMs, when the zone learns them (``ZoneConfig/autoECPM``).
  let learned: Locked<LearnedECPMs>?

  init(zone: ZoneConfig, context: EngineContext) {
    self.zone = zone
    self.budget = LoadBudget(loadTimeout: zone.loadTimeout, auctionTimeout: zone.auctionTimeout)
    self.adExpiry = zone.adExpiry
    self.rewardGrace = zone.rewardGrace
    let planner = LoadPlanners.planner(for: zone)
    self.planner = planner
    let plan = planner.plan(for: zone)
    self.plan = plan
    self.adapters = plan.entries.map { context.adapters[$0.item.network] }
    self.reportsRevenue = adapters.map { $0?.info.capabilities.contains(.impressionRevenue) ?? false }
    self.context = context
    self.learned = Self.learnedECPMs(zone: zone, plan: plan, context: context)
    let scheduler = context.scheduler
    let timers = Timers(
      load: scheduler.makeTimer { [weak self] in self?.loadAttemptTimedOut() },
      expiry: scheduler.makeTimer { [weak self] in self?.expire() },
      display: scheduler.makeTimer { [weak self] in self?.receive(.displayTimeoutEnded, show: nil) },
      showDuration: scheduler.makeTimer { [weak self] in self?.receive(.showTimeoutEnded, show: nil) },
      grace: scheduler.makeTimer { [weak self] in self?.receive(.graceWindowEnded, show: nil) },
      linger: scheduler.makeTimer { [weak self] in self?.endLateSignalWindows() })
    state.withLock { $0.timers = timers }
    withdrawals.attach(self)
  }

  var isReady: Bool {
    let now = context.scheduler.now
    return state.withLock { state in state.lifecycle.slot.ready.map { $0.expiresAt > now } ?? false }
  }

  var isLoading: Bool { state.withLock { $0.lifecycle.isLoading } }
}
