/// The zone's load and its queue of ready ads as a pure value: which load runs (if any), what it
/// waits for, and the queue it fills (``AdQueue``, up to the zone's `queueDepth` ads, each with
/// its own expiry). Each input is one `mutating` call that returns what the controller must
/// do after it (network requests, events, handles to cancel), so ``ZoneController`` takes its lock
/// once per input and acts outside it. No timers, threads or clocks here: the controller passes
/// `now` and arms its timers from the results.
///
/// Still one load at a time: a load starts while fewer than `depth` unexpired ads are ready, and
/// a fill that leaves room asks for the next one (``Finish/refill``) unless a retry's backoff is
/// pending. With a depth of 1 this is the zone's one ad.
///
/// What may coexist, and so is kept in separate fields rather than one enum: a load may run while
/// the queue holds ready ads (below the depth), ads past their expiry (whose timer has not fired
/// yet) or none with the reason the last one left; a retry timer may be pending while a load runs
/// (a load the app asked for) or while ads are ready (a withdrawal's backoff).
struct ZoneLifecycle {
  /// One load, from its start until ``ZoneLifecycle/finish(_:filledEntry:ready:)`` stores its outcome. It
  /// stays here after its planner decides (``LoadPlanner/isFinished``) until then, so that a
  /// withdrawal landing in between still finds its load and is applied to the fill.
  struct LoadInProgress {
    let id: Int
    let startedAt: Duration
    var planner: any LoadPlanner
    /// The request every network call of the load shares (a configuration change cancels some
    /// of them and goes on with the load).
    let request: AdapterLoadRequest
    /// Open network requests (bids and loads), by plan entry.
    var inFlight = InFlightRequests()
    /// The load attempt the controller's load timer is armed for.
    var attempt: ZoneController.LoadAttempt?
    /// Whether the zone's auction timer is armed for this load.
    var auctionTimerArmed = false
    /// A withdrawal of this load's ad that reached the core before its fill was stored.
    var earlyWithdrawal: EarlyWithdrawal?
  }

  struct EarlyWithdrawal {
    let entry: Int
    let reason: AdapterWithdrawal
  }

  /// The load under way; `nil` when the zone is idle. An optional rather than an enum with a
  /// payload: optional chaining mutates it in place, where a payload would be copied out and back.
  /// Set only with ``loadingID``. (No `didSet`: an observer would make every in-place change
  /// of the load a copy out and back.)
  private(set) var loading: LoadInProgress?
  /// ``loading``'s id, 0 when idle: the load is address-only (its planner is an existential), so
  /// reading its id through the optional would copy the whole load.
  private(set) var loadingID = 0
  var queue = AdQueue()
  /// The id of the latest load (0 before the first).
  private(set) var lastLoadID = 0
  /// Consecutive failed loads, for the retry backoff; reset by a fill.
  private(set) var consecutiveFailures = 0
  /// Ads withdrawn in a row without a show in between, for the reload backoff.
  var consecutiveWithdrawals = 0
  /// The ad the last load filled with, to recognise an SDK reporting the same load twice. Held
  /// (not just its identifier, which a new ad could reuse) until the next fill.
  private(set) var acceptedAd: (any AdapterAd)?
  /// The pending retry of a failed or withdrawn load; independent of ``loading`` and ``queue``.
  var retryTimer: Cancellable?
  /// The last load's emptied request list, whose storage the next load reuses.
  private var spareRequests = InFlightRequests()

  var isLoading: Bool { loadingID != 0 }

  /// Runs `body` on load `loadID` in place; `nil` when that load is not the one under way.
  private mutating func withLoad<R>(loadID: Int, _ body: (inout LoadInProgress) -> R) -> R? {
    guard loadID != 0, loadingID == loadID else { return nil }
    return body(&loading!)
  }

  // MARK: Load start

  enum Start {
    case alreadyLoading
    case alreadyReady(AdInfo)
    /// The zone is out of the configuration (decided by the controller, not here).
    case refused(String)
    case start(loadID: Int, [LoadAction], AdapterLoadRequest)
  }

  /// A load is asked for: starts one unless one is under way or `depth` unexpired ads are ready
  /// (then the answer names the ad a show would take). A depth lowered below the ads already
  /// ready keeps them and starts nothing. `makeLoad` is called only when a load starts (the home
  /// of per-load planning: the setup and learned order it runs on, its shared request).
  mutating func begin(
    now: Duration, depth: Int = 1, makeLoad: () -> (any LoadPlanner, AdapterLoadRequest)
  ) -> Start {
    if isLoading { return .alreadyLoading }
    if queue.unexpiredCount(now: now) >= max(1, depth), let best = queue.best(now: now) {
      return .alreadyReady(best.info)
    }
    lastLoadID += 1
    var (planner, request) = makeLoad()
    let actions = planner.start(now: now)
    loading = LoadInProgress(
      id: lastLoadID, startedAt: now, planner: planner, request: request, inFlight: spareRequests.take())
    loadingID = lastLoadID
    return .start(loadID: lastLoadID, actions, request)
  }

  // MARK: The load's requests

  /// Gives the planner of load `loadID` an input; `[]` when that load is not under way or its
  /// planner has already decided.
  mutating func plan(
    _ loadID: Int, now: Duration, _ body: (inout any LoadPlanner, Duration) -> [LoadAction]
  ) -> [LoadAction] {
    withLoad(loadID: loadID) { load in load.planner.isFinished ? [] : body(&load.planner, now) } ?? []
  }

  /// What a fill from the network told the zone.
  enum Answer {
    /// The SDK reported the load that already filled again.
    case twice
    /// The load it answers is no longer under way.
    case stale
    case actions([LoadAction], stopLoadTimer: Bool)
  }

  /// Load `loadID`'s request to `entry` filled with `loaded`.
  mutating func loaded(_ loadID: Int, entry: Int, _ loaded: AdapterLoadedAd, now: Duration) -> Answer {
    if acceptedAd === loaded.ad { return .twice }
    return withLoad(loadID: loadID) { load -> Answer in
      guard !load.planner.isFinished else { return .stale }
      _ = load.inFlight.remove(entry)
      let stop = load.stopAttempt(entry: entry)
      return .actions(load.planner.loaded(entry: entry, ad: loaded, now: now), stopLoadTimer: stop)
    } ?? .stale
  }

  /// Records `entry`'s open request (its cancellation handle); `false` when load `loadID` is no
  /// longer under way, and the caller cancels the handle.
  mutating func opened(_ handle: Cancellable, entry: Int, loadID: Int) -> Bool {
    let current: Void? = withLoad(loadID: loadID) { $0.inFlight.insert(handle, for: entry) }
    return current != nil
  }

  /// `entry`'s request waits for its network's start.
  mutating func awaitingStart(_ handle: Cancellable, entry: Int, loadID: Int) -> Bool {
    let current: Void? = withLoad(loadID: loadID) { load in
      load.inFlight.insert(handle, for: entry)
      load.planner.awaitingStart(entry: entry)
    }
    return current != nil
  }

  /// The start `entry` waited for ended; `false` when its wait had already ended. Returns whether
  /// the load timer must be disarmed (a refused load request).
  mutating func startEnded(entry: Int, loadID: Int, refused: Bool, isLoad: Bool) -> (
    waiting: Bool, stopLoadTimer: Bool
  ) {
    withLoad(loadID: loadID) { load -> (Bool, Bool) in
      guard load.inFlight.remove(entry) != nil else { return (false, false) }
      if !refused {
        load.planner.startCompleted(entry: entry)
        return (true, false)
      }
      return (true, isLoad && load.stopAttempt(entry: entry))
    } ?? (false, false)
  }

  /// Forgets `entry`'s open request of load `loadID`; its handle, to cancel.
  mutating func closed(entry: Int, loadID: Int) -> Cancellable? {
    withLoad(loadID: loadID) { $0.inFlight.remove(entry) } ?? nil
  }

  /// A load attempt starts: the load timer is armed for it.
  mutating func attempting(_ attempt: ZoneController.LoadAttempt) {
    let _: Void? = withLoad(loadID: attempt.loadID) { $0.attempt = attempt }
  }

  /// Ends `entry`'s attempt of load `loadID` (answered, cancelled, refused); whether it was the
  /// one the load timer is armed for, so the controller disarms it.
  mutating func stopAttempt(entry: Int, loadID: Int) -> Bool {
    withLoad(loadID: loadID) { $0.stopAttempt(entry: entry) } ?? false
  }

  /// The load timer fired: the attempt it was armed for, if it is still open.
  mutating func attemptTimedOut() -> ZoneController.LoadAttempt? {
    loading?.attempt.take()
  }

  /// The auction timer is to be armed for load `loadID`; `false` when that load is not under way.
  mutating func auctionTimerStarted(loadID: Int) -> Bool {
    let current: Void? = withLoad(loadID: loadID) { $0.auctionTimerArmed = true }
    return current != nil
  }

  /// The auction timer fired: the load it was armed for and its request, if still under way.
  mutating func auctionTimerFired() -> (loadID: Int, request: AdapterLoadRequest)? {
    withLoad(loadID: loadingID) { load in
      guard load.auctionTimerArmed else { return nil }
      load.auctionTimerArmed = false
      return (load.id, load.request)
    } ?? nil
  }

  /// A configuration change: closes the open requests `cancellation` gives a reason for (the
  /// load goes on without them). `nil` when no load is under way.
  mutating func switchOff(cancellation: (Int) -> String?) -> SwitchOff? {
    withLoad(loadID: loadingID) { load in
      var result = SwitchOff(loadID: load.id, request: load.request)
      for entry in load.inFlight.entries {
        guard let reason = cancellation(entry), let handle = load.inFlight.remove(entry) else { continue }
        if load.stopAttempt(entry: entry) { result.stopLoadTimer = true }
        result.stops.append(SwitchOff.Stop(entry: entry, reason: reason, handle: handle))
      }
      return result
    }
  }

  struct SwitchOff {
    struct Stop {
      let entry: Int
      let reason: String
      let handle: Cancellable
    }
    let loadID: Int
    let request: AdapterLoadRequest
    var stops: [Stop] = []
    var stopLoadTimer = false
  }

  /// The zone leaves the configuration: its load (if any) is dropped unfinished, every answer to it
  /// stale from now on, and the retry goes. Returns the handles to cancel, whether a load was
  /// dropped and whether the load timer must be disarmed.
  mutating func abandon() -> (
    handles: [Cancellable], cancelledLoad: Bool, stopLoadTimer: Bool, stopAuctionTimer: Bool
  ) {
    var handles: [Cancellable] = []
    var stopLoadTimer = false
    var stopAuctionTimer = false
    let cancelled = loadingID != 0
    loadingID = 0
    if let current = loading.take() {
      handles = current.inFlight.handles
      stopAuctionTimer = current.auctionTimerArmed
      stopLoadTimer = current.attempt != nil
    }
    if let timer = retryTimer.take() { handles.append(timer) }
    return (handles, cancelled, stopLoadTimer, stopAuctionTimer)
  }

  // MARK: Load end

  /// What ``finish(_:filledEntry:ready:)`` leaves the controller to do.
  struct Finish {
    /// Open requests, to cancel.
    var leftovers: [Cancellable] = []
    /// The load timer was armed for an open attempt: disarm it.
    var stopLoadTimer = false
    /// The auction timer was armed for the load: disarm it.
    var stopAuctionTimer = false
    /// The failures in a row after a failed load; `nil` after a fill.
    var failures: Int?
    /// A fill withdrawn before it was stored: the ad is never ready.
    var withdrawal: AdapterWithdrawal?
    /// The ad made from the fill, ready or (with ``withdrawal``) withdrawn; `nil` after a failure.
    var ready: ZoneController.ReadyAd?
    /// The fill was queued and the queue still has room below the depth with no retry pending:
    /// a zone that reloads on its own starts the next load.
    var refill = false
  }

  /// Load `loadID` ends: filled with `ready` (made by the caller from the load's start time), or
  /// failed when `ready` is `nil`. `nil` when that load is not under way. A fill joins the queue;
  /// `depth` and `now` decide ``Finish/refill``.
  /// `configurationWithdrawal` is asked for a fill the network did not withdraw: a configuration
  /// applied during the load that removed or switched off its line item withdraws it the same way.
  mutating func finish(
    _ loadID: Int, filledEntry: Int?, depth: Int = 1, now: Duration = .zero,
    ready: (_ startedAt: Duration) -> ZoneController.ReadyAd?,
    configurationWithdrawal: (ZoneController.ReadyAd) -> AdapterWithdrawal? = { _ in nil }
  ) -> Finish? {
    guard loadID != 0, loadingID == loadID else { return nil }
    var result = Finish()
    // Read in place and then dropped: copying the load out would retain every field of it.
    var startedAt = Duration.zero
    var early: EarlyWithdrawal?
    Self.close(&loading!, into: &result, spare: &spareRequests, startedAt: &startedAt, early: &early)
    loading = nil
    loadingID = 0
    spareRequests.removeAll()
    guard let entry = filledEntry, let ad = ready(startedAt) else {
      consecutiveFailures += 1
      result.failures = consecutiveFailures
      return result
    }
    consecutiveFailures = 0
    acceptedAd = ad.loaded.ad
    if let early, early.entry == entry {
      queue.lost(.withdrawn(early.reason))
      result.withdrawal = early.reason
    } else if let withdrawal = configurationWithdrawal(ad) {
      queue.lost(.withdrawn(withdrawal))
      result.withdrawal = withdrawal
    } else {
      queue.append(ad)
      result.refill = retryTimer == nil && queue.unexpiredCount(now: now) < depth
    }
    result.ready = ad
    return result
  }

  // MARK: The ad going away

  enum Withdrawn {
    /// The ready ad was taken out of the queue (the controller re-arms the expiry timer).
    case ready(ZoneController.ReadyAd)
    /// Its load has not stored its fill yet: applied when it does.
    case pending
    /// Neither: the ad may be on screen, or long gone.
    case notHere
  }

  /// The network withdrew load `loadID`'s ad, from `entry`.
  mutating func withdraw(loadID: Int, entry: Int, reason: AdapterWithdrawal) -> Withdrawn {
    if let ready = queue.withdraw(loadID: loadID, reason: reason) { return .ready(ready) }
    let pending: Void? = withLoad(loadID: loadID) {
      $0.earlyWithdrawal = EarlyWithdrawal(entry: entry, reason: reason)
    }
    if pending != nil { return .pending }
    return .notHere
  }

  /// The expiry timer fired: the ads it takes out (``AdQueue/expire(now:)``).
  mutating func expire(now: Duration) -> [ZoneController.ReadyAd] { queue.expire(now: now) }
}

extension ZoneLifecycle {
  /// What ``finish(_:filledEntry:depth:now:ready:configurationWithdrawal:)`` takes from the load
  /// it ends: its leftovers into `result`, its emptied request list into `spare`. (Out parameters,
  /// not a returned tuple: a tuple with a reference in it is copied through the runtime.)
  private static func close(
    _ load: inout LoadInProgress, into result: inout Finish, spare: inout InFlightRequests,
    startedAt: inout Duration, early: inout EarlyWithdrawal?
  ) {
    result.stopLoadTimer = load.attempt != nil
    result.leftovers = load.inFlight.handles
    result.stopAuctionTimer = load.auctionTimerArmed
    swap(&spare, &load.inFlight)
    startedAt = load.startedAt
    early = load.earlyWithdrawal
  }
}

extension ZoneLifecycle.LoadInProgress {
  /// Ends the attempt at `entry` if the load timer is armed for it (an answer for an attempt that
  /// already ended leaves the current attempt alone); whether it was.
  fileprivate mutating func stopAttempt(entry: Int) -> Bool {
    guard attempt?.entry == entry else { return false }
    attempt = nil
    return true
  }
}
