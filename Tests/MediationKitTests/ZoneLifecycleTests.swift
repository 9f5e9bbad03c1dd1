import Testing

@testable import MediationKit

/// The zone's lifecycle as a pure value: every input in every state, as a table of the result and
/// the state it leaves; the states include queues of ready ads at depths above 1.
@Suite("ZoneLifecycle")
struct ZoneLifecycleTests {
  private final class TestAd: AdapterAd {
    func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {}
    func discard() {}
  }

  /// A planner that asks for one load and decides on its first answer.
  private struct OneShotPlanner: LoadPlanner {
    static func plan(for zone: ZoneConfig) -> LoadPlan {
      LoadPlan(bidders: [], waterfallOf: [], where: { _ in true })
    }
    init(plan: LoadPlan, budget: LoadBudget, unavailable: [NetworkID: LoadPlan.Unavailable], now: Duration) {}
    init() {}
    var isFinished = false
    mutating func start(now: Duration) -> [LoadAction] { [.load(entry: 0, bid: nil, timeout: .seconds(5))] }
    mutating func bidAnswered(entry: Int, result: Result<AdapterBid, AdapterError>, now: Duration)
      -> [LoadAction]
    { [] }
    mutating func auctionTimedOut(now: Duration) -> [LoadAction] { [] }
    mutating func loaded(entry: Int, ad: AdapterLoadedAd, now: Duration) -> [LoadAction] {
      isFinished = true
      return [.finish(.filled(entry: entry, ad: ad, price: 1, precision: .exact, responses: []))]
    }
    mutating func failed(entry: Int, error: AdapterError, now: Duration) -> [LoadAction] {
      isFinished = true
      return [.finish(.failed(MediationError(.noFill, "none"), responses: []))]
    }
    mutating func timedOut(entry: Int, now: Duration) -> [LoadAction] { [] }
    mutating func awaitingStart(entry: Int) {}
    mutating func startCompleted(entry: Int) {}
    mutating func notStarted(entry: Int, reason: String, now: Duration) -> [LoadAction] { [] }
    mutating func switchedOff(entry: Int, reason: String, now: Duration) -> [LoadAction] { [] }
  }

  static let now = Duration.seconds(100)
  static let reason = AdapterWithdrawal(.expired, message: "gone")

  private static func ready(loadID: Int, _ loaded: AdapterLoadedAd, expiresAt: Duration, ecpm: Double = 1)
    -> ZoneController.ReadyAd
  {
    ZoneController.ReadyAd(
      info: AdInfo(zoneID: "z", network: "n", placementID: "p", ecpm: ecpm, responses: [], latency: .zero),
      loaded: loaded, expiresAt: expiresAt, networkReportsRevenue: false, loadID: loadID)
  }

  private static func begin(_ machine: inout ZoneLifecycle, depth: Int = 1) -> String {
    switch machine.begin(now: now, depth: depth, makeLoad: { (OneShotPlanner(), request) }) {
    case .alreadyLoading: "alreadyLoading"
    case .alreadyReady(let info): "alreadyReady(\(info.ecpm))"
    case .refused: "refused"
    case .start(let id, let actions, _): "start(\(id), \(actions.count) action)"
    }
  }

  private static func loaded(_ machine: inout ZoneLifecycle, ad: (any AdapterAd)? = nil) -> String {
    let loaded = AdapterLoadedAd(ad: ad ?? TestAd())
    switch machine.loaded(machine.lastLoadID, entry: 0, loaded, now: now) {
    case .twice: return "twice"
    case .stale: return "stale"
    case .actions(let actions, let stop):
      guard actions.count == 1, case .finish(.filled) = actions[0] else { return "unexpected" }
      return "finish(filled)\(stop ? " stopTimer" : "")"
    }
  }

  private static func finish(
    _ machine: inout ZoneLifecycle, filled: Bool, expiresAt: Duration = now + .seconds(60), ecpm: Double = 1,
    depth: Int = 1
  )
    -> String
  {
    let id = machine.lastLoadID
    guard
      let end = machine.finish(
        id, filledEntry: filled ? 0 : nil, depth: depth, now: now,
        ready: { _ in
          filled
            ? Self.ready(loadID: id, AdapterLoadedAd(ad: TestAd()), expiresAt: expiresAt, ecpm: ecpm) : nil
        })
    else { return "notLoading" }
    if let withdrawal = end.withdrawal { return "withdrawnEarly(\(withdrawal.kind.rawValue))" }
    if end.ready != nil { return end.refill ? "filled+refill" : "filled" }
    return "failed(\(end.failures ?? -1))"
  }

  /// A show's input: takes the ad ``AdQueue/best(now:)`` names, or says why there is none.
  private static func show(_ machine: inout ZoneLifecycle) -> String {
    do {
      let ad = try machine.queue.showable(zoneID: "z", now: now, loading: machine.isLoading)
      machine.queue.take(ad, leaving: .shown)
      return "shows(\(ad.loadID))"
    } catch {
      return "refused(\(error.code.rawValue))"
    }
  }

  /// A load filled into `machine` at `depth`, with its own price and expiry.
  private static func fill(
    _ machine: inout ZoneLifecycle, depth: Int, ecpm: Double = 1, expiresAt: Duration = now + .seconds(60)
  ) {
    _ = begin(&machine, depth: depth)
    _ = finish(&machine, filled: true, expiresAt: expiresAt, ecpm: ecpm, depth: depth)
  }

  private static func withdraw(_ machine: inout ZoneLifecycle, loadID: Int) -> String {
    switch machine.withdraw(loadID: loadID, entry: 0, reason: reason) {
    case .ready: "ready"
    case .pending: "pending"
    case .notHere: "notHere"
    }
  }

  /// Every state at depth 1, made by inputs from a new zone.
  static func states() -> [(String, ZoneLifecycle)] {
    var idle = ZoneLifecycle()
    var ready = idle
    _ = begin(&ready)
    _ = finish(&ready, filled: true)
    var pastExpiry = idle
    _ = begin(&pastExpiry)
    _ = finish(&pastExpiry, filled: true, expiresAt: now)
    var expired = ready
    _ = expired.expire(now: now)
    var loading = idle
    _ = begin(&loading)
    var decided = loading
    _ = loaded(&decided)
    var loadingOverExpired = expired
    _ = begin(&loadingOverExpired)
    var loadingOverPastExpiry = pastExpiry
    _ = begin(&loadingOverPastExpiry)
    _ = idle.expire(now: now)
    return [
      ("idle", idle), ("ready", ready), ("pastExpiry", pastExpiry), ("expired", expired),
      ("loading", loading),
      ("decided", decided), ("loadingOverExpired", loadingOverExpired),
      ("loadingOverPastExpiry", loadingOverPastExpiry),
    ]
  }

  /// The queue states, each with its depth: ads 1, 2, 3 of eCPM 1, 3, 2 (so the second is the
  /// best-priced) expiring in 60, 30 and 90 s (so the second expires first), made by inputs from
  /// a new zone.
  static func queueStates() -> [(String, ZoneLifecycle, depth: Int)] {
    var one = ZoneLifecycle()
    fill(&one, depth: 3, ecpm: 1, expiresAt: now + .seconds(60))
    var loadingSecond = one
    _ = begin(&loadingSecond, depth: 3)
    // A withdrawal's backoff is pending: a fill leaves the next load to the retry.
    var loadingSecondWithRetry = loadingSecond
    loadingSecondWithRetry.retryTimer = Cancellable.none
    var two = one
    fill(&two, depth: 3, ecpm: 3, expiresAt: now + .seconds(30))
    var full = two
    fill(&full, depth: 3, ecpm: 2, expiresAt: now + .seconds(90))
    var loadingThird = two
    _ = begin(&loadingThird, depth: 3)
    // The first ad past its expiry (its timer not yet fired), the second fresh.
    var partlyPastExpiry = ZoneLifecycle()
    fill(&partlyPastExpiry, depth: 2, ecpm: 5, expiresAt: now)
    fill(&partlyPastExpiry, depth: 2, ecpm: 1)
    // Three ready, then the configuration lowered the depth to 2.
    let lowered = full
    return [
      ("queueLoading2nd", loadingSecond, 3), ("queueLoading2ndWithRetry", loadingSecondWithRetry, 3),
      ("queue2of3", two, 3), ("queueFull3", full, 3), ("queueLoading3rd", loadingThird, 3),
      ("queuePartlyPastExpiry", partlyPastExpiry, 2), ("queueLoweredTo2", lowered, 2),
    ]
  }

  /// Every input at `depth`, applied to the latest load (or, for `withdraw(1)`, to the first
  /// load's ad).
  static func inputs(depth: Int = 1) -> [(String, (inout ZoneLifecycle) -> String)] {
    [
      ("begin", { begin(&$0, depth: depth) }),
      ("loaded", { loaded(&$0) }),
      ("duplicate", { loaded(&$0, ad: $0.acceptedAd) }),
      ("withdraw(1)", { withdraw(&$0, loadID: 1) }),
      ("withdraw(latest)", { withdraw(&$0, loadID: $0.lastLoadID) }),
      ("finishFilled", { finish(&$0, filled: true, depth: depth) }),
      ("finishFailed", { finish(&$0, filled: false, depth: depth) }),
      (
        "expire",
        { machine in
          let expired = machine.expire(now: now)
          return expired.isEmpty
            ? "none" : "expired(\(expired.map { String($0.loadID) }.joined(separator: ",")))"
        }
      ),
      ("show", { show(&$0) }),
    ]
  }

  static func describe(_ machine: ZoneLifecycle) -> String {
    let load: String
    if let current = machine.loading {
      load =
        "loading(\(current.id)\(current.planner.isFinished ? ",decided" : "")"
        + "\(current.earlyWithdrawal != nil ? ",withdrawn" : ""))"
    } else {
      load = "idle"
    }
    let queue: String
    if !machine.queue.isEmpty {
      queue = "ready(\(machine.queue.ads.map { String($0.loadID) }.joined(separator: ",")))"
    } else if case .withdrawn = machine.queue.lastGone {
      queue = "withdrawn"
    } else {
      queue = "\(machine.queue.lastGone)"
    }
    return "\(load) \(queue)"
  }

  /// Result and next state for each state × input.
  static let expected: [String: [String: String]] = {
    var table: [String: [String: String]] = [
      "idle": [
        "begin": "start(1, 1 action) -> loading(1) notLoaded",
        "loaded": "stale -> idle notLoaded",
        "duplicate": "stale -> idle notLoaded",
        "withdraw(1)": "notHere -> idle notLoaded",
        "withdraw(latest)": "notHere -> idle notLoaded",
        "finishFilled": "notLoading -> idle notLoaded",
        "finishFailed": "notLoading -> idle notLoaded",
        "expire": "none -> idle notLoaded",
        "show": "refused(not_ready) -> idle notLoaded",
      ],
      "ready": [
        "begin": "alreadyReady(1.0) -> idle ready(1)",
        "loaded": "stale -> idle ready(1)",
        "duplicate": "twice -> idle ready(1)",
        "withdraw(1)": "ready -> idle withdrawn",
        "withdraw(latest)": "ready -> idle withdrawn",
        "finishFilled": "notLoading -> idle ready(1)",
        "finishFailed": "notLoading -> idle ready(1)",
        "expire": "expired(1) -> idle expired",
        "show": "shows(1) -> idle shown",
      ],
      "expired": [
        "begin": "start(2, 1 action) -> loading(2) expired",
        "loaded": "stale -> idle expired",
        "duplicate": "twice -> idle expired",
        "withdraw(1)": "notHere -> idle expired",
        "withdraw(latest)": "notHere -> idle expired",
        "finishFilled": "notLoading -> idle expired",
        "finishFailed": "notLoading -> idle expired",
        "expire": "none -> idle expired",
        "show": "refused(expired) -> idle expired",
      ],
      "loading": [
        "begin": "alreadyLoading -> loading(1) notLoaded",
        "loaded": "finish(filled) -> loading(1,decided) notLoaded",
        "duplicate": "finish(filled) -> loading(1,decided) notLoaded",
        "withdraw(1)": "pending -> loading(1,withdrawn) notLoaded",
        "withdraw(latest)": "pending -> loading(1,withdrawn) notLoaded",
        "finishFilled": "filled -> idle ready(1)",
        "finishFailed": "failed(1) -> idle notLoaded",
        "expire": "none -> loading(1) notLoaded",
        "show": "refused(not_ready) -> loading(1) notLoaded",
      ],
      // The planner has decided; the zone has not stored the outcome yet.
      "decided": [
        "begin": "alreadyLoading -> loading(1,decided) notLoaded",
        "loaded": "stale -> loading(1,decided) notLoaded",
        "duplicate": "stale -> loading(1,decided) notLoaded",
        "withdraw(1)": "pending -> loading(1,decided,withdrawn) notLoaded",
        "withdraw(latest)": "pending -> loading(1,decided,withdrawn) notLoaded",
        "finishFilled": "filled -> idle ready(1)",
        "finishFailed": "failed(1) -> idle notLoaded",
        "expire": "none -> loading(1,decided) notLoaded",
        "show": "refused(not_ready) -> loading(1,decided) notLoaded",
      ],
      "loadingOverExpired": [
        "begin": "alreadyLoading -> loading(2) expired",
        "loaded": "finish(filled) -> loading(2,decided) expired",
        "duplicate": "twice -> loading(2) expired",
        "withdraw(1)": "notHere -> loading(2) expired",
        "withdraw(latest)": "pending -> loading(2,withdrawn) expired",
        "finishFilled": "filled -> idle ready(2)",
        "finishFailed": "failed(1) -> idle expired",
        "expire": "none -> loading(2) expired",
        "show": "refused(expired) -> loading(2) expired",
      ],
      "loadingOverPastExpiry": [
        "begin": "alreadyLoading -> loading(2) ready(1)",
        "loaded": "finish(filled) -> loading(2,decided) ready(1)",
        "duplicate": "twice -> loading(2) ready(1)",
        "withdraw(1)": "ready -> loading(2) withdrawn",
        "withdraw(latest)": "pending -> loading(2,withdrawn) ready(1)",
        // The fill joins the ad past its expiry, which its timer (due) takes out with `expired`.
        "finishFilled": "filled -> idle ready(1,2)",
        "finishFailed": "failed(1) -> idle ready(1)",
        "expire": "expired(1) -> loading(2) expired",
        "show": "refused(expired) -> loading(2) ready(1)",
      ],
    ]
    // An ad past its expiry (its timer not yet fired) is withdrawn and expired like a fresh one;
    // only a load request and a show see it as gone.
    table["pastExpiry"] = table["ready"]!.merging([
      "begin": "start(2, 1 action) -> loading(2) ready(1)", "show": "refused(expired) -> idle ready(1)",
    ]) { $1 }
    return table
  }()

  /// The queue states × every input (at each state's depth).
  static let expectedQueue: [String: [String: String]] = [
    "queueLoading2nd": [
      "begin": "alreadyLoading -> loading(2) ready(1)",
      "loaded": "finish(filled) -> loading(2,decided) ready(1)",
      "duplicate": "twice -> loading(2) ready(1)",
      "withdraw(1)": "ready -> loading(2) withdrawn",
      "withdraw(latest)": "pending -> loading(2,withdrawn) ready(1)",
      "finishFilled": "filled+refill -> idle ready(1,2)",
      "finishFailed": "failed(1) -> idle ready(1)",
      "expire": "expired(1) -> loading(2) expired",
      "show": "shows(1) -> loading(2) shown",
    ],
    "queueLoading2ndWithRetry": [
      "begin": "alreadyLoading -> loading(2) ready(1)",
      "loaded": "finish(filled) -> loading(2,decided) ready(1)",
      "duplicate": "twice -> loading(2) ready(1)",
      "withdraw(1)": "ready -> loading(2) withdrawn",
      "withdraw(latest)": "pending -> loading(2,withdrawn) ready(1)",
      "finishFilled": "filled -> idle ready(1,2)",
      "finishFailed": "failed(1) -> idle ready(1)",
      "expire": "expired(1) -> loading(2) expired",
      "show": "shows(1) -> loading(2) shown",
    ],
    "queue2of3": [
      "begin": "start(3, 1 action) -> loading(3) ready(1,2)",
      "loaded": "stale -> idle ready(1,2)",
      "duplicate": "twice -> idle ready(1,2)",
      "withdraw(1)": "ready -> idle ready(2)",
      "withdraw(latest)": "ready -> idle ready(1)",
      "finishFilled": "notLoading -> idle ready(1,2)",
      "finishFailed": "notLoading -> idle ready(1,2)",
      "expire": "expired(2) -> idle ready(1)",
      "show": "shows(2) -> idle ready(1)",
    ],
    "queueFull3": [
      "begin": "alreadyReady(3.0) -> idle ready(1,2,3)",
      "loaded": "stale -> idle ready(1,2,3)",
      "duplicate": "twice -> idle ready(1,2,3)",
      "withdraw(1)": "ready -> idle ready(2,3)",
      "withdraw(latest)": "ready -> idle ready(1,2)",
      "finishFilled": "notLoading -> idle ready(1,2,3)",
      "finishFailed": "notLoading -> idle ready(1,2,3)",
      "expire": "expired(2) -> idle ready(1,3)",
      "show": "shows(2) -> idle ready(1,3)",
    ],
    "queueLoading3rd": [
      "begin": "alreadyLoading -> loading(3) ready(1,2)",
      "loaded": "finish(filled) -> loading(3,decided) ready(1,2)",
      "duplicate": "twice -> loading(3) ready(1,2)",
      "withdraw(1)": "ready -> loading(3) ready(2)",
      "withdraw(latest)": "pending -> loading(3,withdrawn) ready(1,2)",
      "finishFilled": "filled -> idle ready(1,2,3)",
      "finishFailed": "failed(1) -> idle ready(1,2)",
      "expire": "expired(2) -> loading(3) ready(1)",
      "show": "shows(2) -> loading(3) ready(1)",
    ],
    "queuePartlyPastExpiry": [
      "begin": "start(3, 1 action) -> loading(3) ready(1,2)",
      "loaded": "stale -> idle ready(1,2)",
      "duplicate": "twice -> idle ready(1,2)",
      "withdraw(1)": "ready -> idle ready(2)",
      "withdraw(latest)": "ready -> idle ready(1)",
      "finishFilled": "notLoading -> idle ready(1,2)",
      "finishFailed": "notLoading -> idle ready(1,2)",
      "expire": "expired(1) -> idle ready(2)",
      "show": "shows(2) -> idle ready(1)",
    ],
    "queueLoweredTo2": [
      "begin": "alreadyReady(3.0) -> idle ready(1,2,3)",
      "loaded": "stale -> idle ready(1,2,3)",
      "duplicate": "twice -> idle ready(1,2,3)",
      "withdraw(1)": "ready -> idle ready(2,3)",
      "withdraw(latest)": "ready -> idle ready(1,2)",
      "finishFilled": "notLoading -> idle ready(1,2,3)",
      "finishFailed": "notLoading -> idle ready(1,2,3)",
      "expire": "expired(2) -> idle ready(1,3)",
      "show": "shows(2) -> idle ready(1,3)",
    ],
  ]

  @Test func everyInputInEveryStateGivesTheTabledResultAndState() {
    var actual: [String: [String: String]] = [:]
    let states = Self.states().map { ($0.0, $0.1, 1) } + Self.queueStates()
    for (name, state, depth) in states {
      for (input, apply) in Self.inputs(depth: depth) {
        var machine = state
        let result = apply(&machine)
        actual[name, default: [:]][input] = "\(result) -> \(Self.describe(machine))"
      }
    }
    for (name, inputs) in Self.expected.merging(Self.expectedQueue, uniquingKeysWith: { $1 }) {
      for (input, expected) in inputs {
        #expect(actual[name]?[input] == expected, "\(name) × \(input)")
      }
    }
    #expect(Set(actual.keys) == Set(Self.expected.keys).union(Self.expectedQueue.keys))
    #expect(actual.values.allSatisfy { $0.count == Self.inputs().count })
  }

  @Test func aWithdrawalBeforeTheFillIsStoredLeavesTheSlotWithdrawnNeverReady() {
    for before in ["loading", "decided"] {
      var machine = Self.states().first { $0.0 == before }!.1
      #expect(Self.withdraw(&machine, loadID: 1) == "pending")
      #expect(Self.finish(&machine, filled: true) == "withdrawnEarly(expired)")
      #expect(Self.describe(machine) == "idle withdrawn")
    }
  }

  @Test func aWithdrawalFromAnotherEntryIsNotAppliedToTheFill() {
    var machine = Self.states().first { $0.0 == "loading" }!.1
    _ = machine.withdraw(loadID: 1, entry: 3, reason: Self.reason)
    #expect(Self.finish(&machine, filled: true) == "filled")
    #expect(Self.describe(machine) == "idle ready(1)")
  }

  @Test func failuresCountUpUntilAFill() {
    var machine = ZoneLifecycle()
    var results: [String] = []
    for filled in [false, false, true, false] {
      _ = Self.begin(&machine)
      results.append(Self.finish(&machine, filled: filled))
      if filled { _ = machine.expire(now: Self.now) }
    }
    #expect(results == ["failed(1)", "failed(2)", "filled", "failed(1)"])
  }

  @Test func aFinishedLoadHandsBackItsOpenRequestsAndTheLoadTimer() {
    var machine = Self.states().first { $0.0 == "loading" }!.1
    let request = Cancellable.none
    let current = machine.opened(request, entry: 0, loadID: 1)
    let stale = machine.opened(request, entry: 0, loadID: 2)
    #expect(current && !stale)
    machine.attempting(ZoneController.LoadAttempt(loadID: 1, entry: 0, request: Self.request))
    let end = machine.finish(1, filledEntry: nil, ready: { _ in nil })
    #expect(end?.leftovers.count == 1)
    #expect(end?.stopLoadTimer == true)
    let timedOut = machine.attemptTimedOut()
    #expect(timedOut == nil)
  }

  /// The id kept beside the load (so that reading it copies nothing) is the load's own while one
  /// is under way and 0 once it is finished or abandoned, when its inputs are stale.
  @Test func theLoadsIDFollowsTheLoadThroughBeginFinishAndAbandon() {
    var machine = ZoneLifecycle()
    #expect(!machine.isLoading && machine.loadingID == 0)
    _ = Self.begin(&machine)
    #expect(machine.isLoading && machine.loadingID == 1 && machine.loading?.id == 1)
    _ = Self.finish(&machine, filled: false)
    #expect(!machine.isLoading && machine.loadingID == 0 && machine.loading == nil)
    let openedAfterFinish = machine.opened(.none, entry: 0, loadID: 1)
    #expect(!openedAfterFinish)
    _ = Self.begin(&machine)
    #expect(machine.loadingID == 2 && machine.loading?.id == 2)
    let abandoned = machine.abandon()
    #expect(abandoned.cancelledLoad)
    #expect(!machine.isLoading && machine.loadingID == 0 && machine.loading == nil)
    let openedAfterAbandon = machine.opened(.none, entry: 0, loadID: 2)
    let finishedAfterAbandon = machine.finish(2, filledEntry: nil, ready: { _ in nil })
    // A load id of 0 never names a load, even while idle.
    let closedZero = machine.closed(entry: 0, loadID: 0)
    #expect(!openedAfterAbandon && finishedAfterAbandon == nil && closedZero == nil)
  }

  /// The zone's one auction timer: a firing reaches the load under way only if the timer was armed
  /// for it, and only once; a load that ends (finished or abandoned) with it armed says to disarm it.
  @Test func theAuctionTimerReachesOnlyTheLoadItWasArmedFor() {
    var machine = ZoneLifecycle()
    let idle = machine.auctionTimerFired()
    #expect(idle == nil)
    _ = Self.begin(&machine)
    let notArmed = machine.auctionTimerFired()
    let staleArming = machine.auctionTimerStarted(loadID: 2)
    let arming = machine.auctionTimerStarted(loadID: 1)
    #expect(notArmed == nil && !staleArming && arming)
    let fired = machine.auctionTimerFired()
    let firedAgain = machine.auctionTimerFired()
    #expect(fired?.loadID == 1 && fired?.request.zoneID == Self.request.zoneID && firedAgain == nil)
    _ = machine.auctionTimerStarted(loadID: 1)
    let finished = machine.finish(1, filledEntry: nil, ready: { _ in nil })
    #expect(finished?.stopAuctionTimer == true)
    let afterFinish = machine.auctionTimerFired()
    #expect(afterFinish == nil)
    _ = Self.begin(&machine)
    let unarmedEnd = machine.finish(2, filledEntry: nil, ready: { _ in nil })
    #expect(unarmedEnd?.stopAuctionTimer == false)
    _ = Self.begin(&machine)
    _ = machine.auctionTimerStarted(loadID: 3)
    let abandoned = machine.abandon()
    let afterAbandon = machine.auctionTimerFired()
    #expect(abandoned.stopAuctionTimer && afterAbandon == nil)
  }

  static let request = AdapterLoadRequest(
    zoneID: "z", placementID: "p", ecpm: 1, reward: AdapterSignal.NetworkReward(type: "coins", amount: 1))
}
