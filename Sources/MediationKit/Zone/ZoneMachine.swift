/// Everything one zone decides, as one pure value: its load (planned by a ``LoadPlanner``), its
/// queue of ready ads (``AdQueue``) with their expiry, the retry backoff, the frequency caps, the
/// show on screen (``ShowStateMachine``) and the late-signal windows of ended shows, withdrawals
/// and configuration swaps.
///
/// One entry point, ``handle(_:now:)``: an input in, the effects to perform out. No clock, lock,
/// thread or callback in here: ``ZoneController`` holds the machine under its one lock, passes
/// `now`, and performs the effects after releasing it. Timers are effects with ids
/// (``TimerID``): every arming has its own generation, and a firing of an arming that was
/// disarmed or replaced is ignored.
///
/// What may coexist, and so is kept in separate fields rather than one enum: a load may run while
/// the queue holds ready ads (below the depth), ads past their expiry (whose timer has not fired
/// yet) or none; one retry may be pending while ads are ready (a withdrawal's backoff) or while a
/// load runs (armed by a withdrawal during it; a load that starts cancels it); a show may be on
/// screen during all of it, and ended shows wait out their late-signal windows.
struct ZoneMachine: Sendable {
  /// The engine-wide show timings (``MediatorOptions``).
  struct Timings: Sendable, Equatable {
    var displayTimeout: Duration
    var maxShowDuration: Duration
    var lateSignalWindow: Duration
  }

  /// One load, from its start until its planner's `finish`.
  struct Load: Sendable {
    let id: Int
    let startedAt: Duration
    var planner: any LoadPlanner
    /// The request every network call of the load shares.
    var request: AdapterLoadRequest
    /// Whether the load has its auction id and its requests went out.
    var auctionStarted = false
    /// The setup the load started on, which it keeps to its end.
    let setup: ZoneSetup
    /// The learned eCPMs' epoch at the start: the load's outcome teaches them only if it is
    /// still the current one.
    let learningEpoch: Int
    /// The requests out (or waiting for their network's start), by plan entry.
    var open: [Open] = []
    /// The entry whose attempt the load timer is armed for.
    var attempt: Int?
    /// A withdrawal of this load's ad that arrived before its fill was stored.
    var earlyWithdrawal: (entry: Int, reason: AdapterWithdrawal)?
  }

  /// A request out, or waiting for its network's start.
  struct Open: Sendable {
    let entry: Int
    let kind: ZoneEffect.Request.Kind
    let bid: AdapterBid?
    /// `nil` until the adapter (or the start gate) returns it.
    var handle: Cancellable?
    var waitingForStart = false
  }

  /// An ended show kept for its late-signal window: late signals become diagnostics, and when the
  /// window ends its ad is discarded.
  struct Lingering: Sendable {
    let until: Duration
    var session: ShowSession
  }

  private struct Armed: Sendable {
    let generation: Int
    var handle: Cancellable?
  }

  /// The zone's id, which never changes.
  let id: String
  let timings: Timings
  /// The setup the next load and the next show use.
  var setup: ZoneSetup
  /// The setup of the last load (the one under way, if any): the queued ads were made on it or
  /// on earlier ones, whose adapters it still holds.
  var lastLoadSetup: ZoneSetup
  /// Why the zone is out of the configuration, when it is.
  var removal: String?
  var queue = AdQueue()
  /// The load under way; `nil` when the zone is idle.
  var load: Load?
  /// The id of the latest load (0 before the first).
  var lastLoadID = 0
  /// Consecutive failed loads, for the retry backoff; reset by a fill, and by a show (new demand:
  /// refills that failed while ads were ready must not slow the reload after the queue empties).
  var consecutiveFailures = 0
  /// Ads withdrawn in a row without a show in between, for the reload backoff.
  var consecutiveWithdrawals = 0
  /// The ad the last load filled with, to recognise an SDK reporting the same load twice. Held
  /// (not just an identifier, which a new ad could reuse) until the next fill.
  var acceptedAd: (any AdapterAd)?
  /// The learned eCPMs (``ZoneConfig/autoECPM``), and how many times a configuration replaced
  /// them.
  var learned: LearnedECPMs?
  var learningEpoch = 0
  /// Times of recent shows (at most a day's worth), for frequency caps.
  var showTimes: [Duration] = []
  /// The show on screen; then in `lingering` for its late-signal window.
  var session: ShowSession?
  var lastShowID = 0
  /// Ended shows in their late-signal window, oldest first.
  var lingering: [Lingering] = []
  private var timers: [TimerID.Kind: Armed] = [:]
  private var lastTimerGeneration = 0

  init(setup: ZoneSetup, timings: Timings) {
    self.id = setup.zone.id
    self.timings = timings
    self.setup = setup
    self.lastLoadSetup = setup
    self.learned = setup.initialLearnedECPMs
  }

  /// Feeds one input and returns what to do about it, in order.
  mutating func handle(_ input: ZoneInput, now: Duration) -> [ZoneEffect] {
    var out: [ZoneEffect] = []
    switch input {
    case .load(let requested, let networks, let privacy):
      startLoad(requested: requested, networks: networks, privacy: privacy, now: now, &out)
    case .auctionStarted(let load, let auctionID):
      auctionStarted(load: load, auctionID: auctionID, now: now, &out)
    case .sent(let request, let handle):
      opened(request, handle.cancellable, waiting: false, &out)
    case .awaitingStart(let request, let handle):
      opened(request, handle.cancellable, waiting: true, &out)
    case .startEnded(let request, let refusal):
      startEnded(request, refusal: refusal, now: now, &out)
    case .notStarted(let request, let reason):
      notStarted(request, reason: reason, now: now, &out)
    case .bidAnswered(let request, let result):
      bidAnswered(request, result, now: now, &out)
    case .loaded(let request, let loaded):
      self.loaded(request, loaded.value, now: now, &out)
    case .loadFailed(let request, let error):
      plan(request.load, now: now, &out) { $0.failed(entry: request.entry, error: error, now: now) }
    case .withdrawn(let request, let reason):
      withdrawn(request, reason: reason, now: now, &out)
    case .show(let customData, let screen):
      show(customData: customData, screen: screen, now: now, &out)
    case .signal(let ad, let signal):
      // Before its show an ad has no session, and its signals are ignored.
      guard let show = showID(ofAd: ad) else { break }
      showInput(.signal(signal), show: show, now: now, &out)
    case .timerArmed(let id, let handle):
      if timers[id.kind]?.generation == id.generation {
        timers[id.kind]?.handle = handle.cancellable
      } else {
        out.append(.cancel(handle.cancellable))
      }
    case .timerFired(let id):
      guard timers[id.kind]?.generation == id.generation else { break }
      timers[id.kind] = nil
      fired(id.kind, now: now, &out)
    case .apply(let change):
      apply(change, now: now, &out)
    }
    return out
  }

  // MARK: Reading

  /// The details of the ad a show at `now` would take, if one is ready.
  func readyAd(now: Duration) -> AdInfo? { queue.best(now: now)?.info }

  var isLoading: Bool { load != nil }

  /// Whether the timer of `kind` is armed (for tests and the zone's own rules).
  func isArmed(_ kind: TimerID.Kind) -> Bool { timers[kind] != nil }

  /// Whether `id` is the arming in force of its kind (a firing of any other is ignored).
  func isCurrent(_ id: TimerID) -> Bool { timers[id.kind]?.generation == id.generation }

  /// The generation of the latest arming (each arming gets the next one).
  var timerGeneration: Int { lastTimerGeneration }

  /// The armings in force, by kind.
  var armedTimers: [TimerID] {
    TimerID.Kind.allCases.compactMap { kind in
      timers[kind].map { TimerID(kind: kind, generation: $0.generation) }
    }
  }

  /// Arms `ids` again as a restored zone had them (their handles come with ``ZoneInput/timerArmed(_:_:)``).
  mutating func restoreTimers(_ ids: [TimerID], lastGeneration: Int) {
    for id in ids { timers[id.kind] = Armed(generation: id.generation, handle: nil) }
    lastTimerGeneration = lastGeneration
  }

  /// Whether the current setup reloads on its own.
  var autoReload: Bool { setup.zone.autoReload }

  // MARK: Timers

  /// Arms the timer of `kind` for `delay` from now, replacing its earlier arming.
  mutating func arm(_ kind: TimerID.Kind, after delay: Duration, _ out: inout [ZoneEffect]) {
    disarm(kind, &out)
    lastTimerGeneration += 1
    timers[kind] = Armed(generation: lastTimerGeneration, handle: nil)
    out.append(.arm(TimerID(kind: kind, generation: lastTimerGeneration), after: delay))
  }

  /// Disarms the timer of `kind`: its handle is cancelled, and a firing already on its way ignored.
  mutating func disarm(_ kind: TimerID.Kind, _ out: inout [ZoneEffect]) {
    guard let armed = timers.removeValue(forKey: kind) else { return }
    if let handle = armed.handle { out.append(.cancel(handle)) }
  }

  /// Arms the expiry timer at the earliest expiry in the queue, or disarms it when the queue is
  /// empty; after every change to the queue.
  mutating func rearmExpiry(now: Duration, _ out: inout [ZoneEffect]) {
    if let earliest = queue.earliestExpiry {
      arm(.expiry, after: max(.zero, earliest - now), &out)
    } else {
      disarm(.expiry, &out)
    }
  }

  private mutating func fired(_ kind: TimerID.Kind, now: Duration, _ out: inout [ZoneEffect]) {
    switch kind {
    case .load:
      guard let entry = load?.attempt, let id = load?.id else { return }
      load?.attempt = nil
      plan(id, now: now, &out) { $0.timedOut(entry: entry, now: now) }
    case .auction:
      guard let id = load?.id else { return }
      plan(id, now: now, &out) { $0.auctionTimedOut(now: now) }
    case .expiry: expire(now: now, &out)
    case .retry: out.append(.reload)
    case .display: showInput(.displayTimeoutEnded, show: nil, now: now, &out)
    case .showDuration: showInput(.showTimeoutEnded, show: nil, now: now, &out)
    case .grace: showInput(.graceWindowEnded, show: nil, now: now, &out)
    case .linger: endLateSignalWindows(now: now, &out)
    }
  }

  /// The wait before retrying after `failures` consecutive failed loads: 2^min(6, n) seconds,
  /// so 2, 4, 8, … and at most 64 s.
  static func retryDelay(afterFailures failures: Int) -> Duration {
    .seconds(1 << min(6, max(1, failures)))
  }

  // MARK: Learned eCPMs

  /// Learns from load `load`'s outcome, if the learned eCPMs it was planned with are current.
  mutating func learn(from outcome: LoadOutcome, epoch: Int) {
    guard epoch == learningEpoch else { return }
    switch outcome {
    case .filled(_, _, _, let precision, let responses):
      learned?.record(responses, fillPrecision: precision)
    case .failed(_, let responses):
      learned?.record(responses, fillPrecision: nil)
    }
  }

  /// Learns a show's paid revenue, if the learned eCPMs of its start are current.
  mutating func learn(paid revenue: AdapterSignal.ImpressionRevenue, of ready: ReadyAd, epoch: Int) {
    guard epoch == learningEpoch else { return }
    learned?.paid(network: ready.info.network, placementID: ready.info.placementID, revenue: revenue)
  }

  /// Swaps `new` in as the current setup, keeping the learned eCPMs when it plans the same way.
  mutating func swapSetup(_ new: ZoneSetup) {
    if !new.keepsLearnedECPMs(of: setup) {
      learned = new.initialLearnedECPMs
      learningEpoch += 1
    }
    setup = new
  }
}
