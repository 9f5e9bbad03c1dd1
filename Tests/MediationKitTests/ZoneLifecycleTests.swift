import Testing

@testable import MediationKit

/// The zone's lifecycle as a pure value: every input in every state, as a table of the result and
/// the state it leaves.
@Suite("ZoneLifecycle")
struct ZoneLifecycleTests {
  private final class TestAd: AdapterAd {
    func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignalSink) {}
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

  private static func ready(loadID: Int, _ loaded: AdapterLoadedAd, expiresAt: Duration)
    -> ZoneController.ReadyAd
  {
    ZoneController.ReadyAd(
      info: AdInfo(zoneID: "z", network: "n", placementID: "p", ecpm: 1, responses: [], latency: .zero),
      loaded: loaded, expiresAt: expiresAt, networkReportsRevenue: false, loadID: loadID)
  }

  private static func begin(_ machine: inout ZoneLifecycle) -> String {
    switch machine.begin(now: now, makeLoad: { (OneShotPlanner(), request) }) {
    case .alreadyLoading: "alreadyLoading"
    case .alreadyReady: "alreadyReady"
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
    _ machine: inout ZoneLifecycle, filled: Bool, expiresAt: Duration = now + .seconds(60)
  )
    -> String
  {
    let id = machine.lastLoadID
    guard
      let end = machine.finish(
        id, filledEntry: filled ? 0 : nil,
        ready: { _ in
          filled ? Self.ready(loadID: id, AdapterLoadedAd(ad: TestAd()), expiresAt: expiresAt) : nil
        })
    else { return "notLoading" }
    if let withdrawal = end.withdrawal { return "withdrawnEarly(\(withdrawal.kind.rawValue))" }
    return end.ready != nil ? "filled" : "failed(\(end.failures ?? -1))"
  }

  private static func withdraw(_ machine: inout ZoneLifecycle, loadID: Int) -> String {
    switch machine.withdraw(loadID: loadID, entry: 0, reason: reason) {
    case .ready: "ready"
    case .pending: "pending"
    case .notHere: "notHere"
    }
  }

  /// Every state, made by inputs from a new zone.
  static func states() -> [(String, ZoneLifecycle)] {
    var idle = ZoneLifecycle()
    var ready = idle
    _ = begin(&ready)
    _ = finish(&ready, filled: true)
    var pastExpiry = idle
    _ = begin(&pastExpiry)
    _ = finish(&pastExpiry, filled: true, expiresAt: now)
    var expired = ready
    _ = expired.expire()
    var loading = idle
    _ = begin(&loading)
    var decided = loading
    _ = loaded(&decided)
    var loadingOverExpired = expired
    _ = begin(&loadingOverExpired)
    var loadingOverPastExpiry = pastExpiry
    _ = begin(&loadingOverPastExpiry)
    _ = idle.expire()
    return [
      ("idle", idle), ("ready", ready), ("pastExpiry", pastExpiry), ("expired", expired),
      ("loading", loading),
      ("decided", decided), ("loadingOverExpired", loadingOverExpired),
      ("loadingOverPastExpiry", loadingOverPastExpiry),
    ]
  }

  /// Every input, applied to the latest load (or, for `withdraw(1)`, to the first load's ad).
  static func inputs() -> [(String, (inout ZoneLifecycle) -> String)] {
    [
      ("begin", { begin(&$0) }),
      ("loaded", { loaded(&$0) }),
      ("duplicate", { loaded(&$0, ad: $0.acceptedAd) }),
      ("withdraw(1)", { withdraw(&$0, loadID: 1) }),
      ("withdraw(latest)", { withdraw(&$0, loadID: $0.lastLoadID) }),
      ("finishFilled", { finish(&$0, filled: true) }),
      ("finishFailed", { finish(&$0, filled: false) }),
      ("expire", { $0.expire() == nil ? "none" : "expired" }),
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
    let slot: String
    switch machine.slot {
    case .ready(let ad): slot = "ready(\(ad.loadID))"
    case .empty(.withdrawn): slot = "withdrawn"
    case .empty(let why): slot = "\(why)"
    }
    return "\(load) \(slot)"
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
      ],
      "ready": [
        "begin": "alreadyReady -> idle ready(1)",
        "loaded": "stale -> idle ready(1)",
        "duplicate": "twice -> idle ready(1)",
        "withdraw(1)": "ready -> idle withdrawn",
        "withdraw(latest)": "ready -> idle withdrawn",
        "finishFilled": "notLoading -> idle ready(1)",
        "finishFailed": "notLoading -> idle ready(1)",
        "expire": "expired -> idle expired",
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
      ],
      "loadingOverPastExpiry": [
        "begin": "alreadyLoading -> loading(2) ready(1)",
        "loaded": "finish(filled) -> loading(2,decided) ready(1)",
        "duplicate": "twice -> loading(2) ready(1)",
        "withdraw(1)": "ready -> loading(2) withdrawn",
        "withdraw(latest)": "pending -> loading(2,withdrawn) ready(1)",
        "finishFilled": "filled -> idle ready(2)",
        "finishFailed": "failed(1) -> idle ready(1)",
        "expire": "expired -> loading(2) expired",
      ],
    ]
    // An ad past its expiry (its timer not yet fired) is withdrawn and expired like a fresh one;
    // only a load request sees it as gone.
    table["pastExpiry"] = table["ready"]!.merging(["begin": "start(2, 1 action) -> loading(2) ready(1)"]) {
      $1
    }
    return table
  }()

  @Test func everyInputInEveryStateGivesTheTabledResultAndState() {
    var actual: [String: [String: String]] = [:]
    for (name, state) in Self.states() {
      for (input, apply) in Self.inputs() {
        var machine = state
        let result = apply(&machine)
        actual[name, default: [:]][input] = "\(result) -> \(Self.describe(machine))"
      }
    }
    #expect(actual == Self.expected)
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
      if filled { _ = machine.expire() }
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

  static let request = AdapterLoadRequest(
    zoneID: "z", placementID: "p", ecpm: 1, reward: NetworkReward(type: "coins", amount: 1))
}
