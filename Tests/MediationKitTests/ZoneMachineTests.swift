import MediationKitTesting
import Testing

@testable import MediationKit

/// The zone as a pure value: every input in every state, as a table of the effects it asks for
/// and the state it leaves; then the rules that used to hang on lock ordering, each on the value.
@Suite("ZoneMachine")
struct ZoneMachineTests {
  final class TestAd: AdapterAd {
    func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {}
    func discard() {}
  }

  static let adapter = ScriptedAdapter(id: "n", scheduler: VirtualScheduler(), loads: [:])
  static let start = Duration.seconds(100)
  static let timings = ZoneMachine.Timings(
    displayTimeout: .seconds(10), maxShowDuration: .seconds(600), lateSignalWindow: .seconds(30))
  static let networks = NetworkAvailability(registered: ["n"])
  static let reason = AdapterWithdrawal(.expired, message: "gone")

  /// A zone of one line item (two with `depth` 2), ads expiring after 60 s, a 5 s grace window.
  static func setup(autoReload: Bool = false, depth: Int = 1, placements: [String]? = nil) -> ZoneSetup {
    let names = placements ?? (depth > 1 ? ["p1", "p2"] : ["p1"])
    var config = zone(
      names.enumerated().map { item("n", $0.element, ecpm: Double(10 - $0.offset), timeout: 5) }, expiry: 60,
      grace: 5, autoReload: autoReload)
    config.queueDepth = depth
    return ZoneSetup(
      zone: config, in: MediationConfig(zones: [config]), adapters: ["n": adapter],
      infos: ["n": adapter.info], seed: 1)
  }

  /// Feeds a machine as ``ZoneController`` does: each arming is answered with a handle, whose
  /// cancellation is logged by name so that a disarm shows in the effects.
  struct Driver {
    var machine: ZoneMachine
    var now = ZoneMachineTests.start
    private(set) var armed: [TimerID.Kind: TimerID] = [:]
    let cancelled = Locked<[String]>([])

    init(_ setup: ZoneSetup = ZoneMachineTests.setup()) {
      machine = ZoneMachine(setup: setup, timings: ZoneMachineTests.timings)
    }

    /// Feeds `input`; the effects, each described (``describe(_:)``).
    @discardableResult
    mutating func feed(_ input: ZoneInput) -> [String] {
      let effects = machine.handle(input, now: now)
      var described: [String] = []
      for effect in effects {
        described.append(describe(effect))
        if case .arm(let id, _) = effect {
          armed[id.kind] = id
          let log = cancelled
          let answer = machine.handle(
            .timerArmed(id, Handle(Cancellable { log.withLock { $0.append("\(id.kind)") } })), now: now)
          precondition(answer.isEmpty, "a fresh arming's handle is kept")
        }
      }
      return described
    }

    /// The current arming of `kind`, or one never made (whose firing is stale).
    func timer(_ kind: TimerID.Kind) -> TimerID { armed[kind] ?? TimerID(kind: kind, generation: -1) }

    /// The ad of the latest show (0 before the first): where a show's signals come from.
    var lastShownAd: Int {
      machine.session?.ready.loadID ?? machine.lingering.last?.session.ready.loadID ?? 0
    }

    var request: RequestID { RequestID(load: machine.lastLoadID, entry: machine.load?.open.last?.entry ?? 0) }

    func describe(_ effect: ZoneEffect) -> String {
      switch effect {
      case .startAuction(let load): return "auction(\(load))"
      case .send(let request):
        return "\(request.kind)(\(request.id.load).\(request.id.entry)\(request.admit ? "" : ", started"))"
      case .cancel(let handle):
        let before = cancelled.withLock { $0.count }
        handle.cancel()
        let name = cancelled.withLock { $0.count > before ? $0.last! : "request" }
        return "cancel(\(name))"
      case .arm(let id, let delay): return "arm(\(id.kind) \(delay))"
      case .publish(.diagnostic(let note), _, _): return "diagnostic(\(note.kind.rawValue))"
      case .publish(let event, _, _): return event.name
      case .publishShow(.diagnostic(let note), _, _): return "diagnostic(\(note.kind.rawValue))"
      case .publishShow(let event, _, _): return "\(event)".components(separatedBy: "(")[0]
      case .recordReward: return "rewarded"
      case .failRemoved: return "failed(unknown_zone)"
      case .discard: return "discard"
      case .present(let ad): return "present(\(ad.loadID))"
      case .refuseShow(.error(let error)): return "refused(\(error.code.rawValue))"
      case .refuseShow(.removed): return "refused(removed)"
      case .releaseScreen: return "releaseScreen"
      case .reload: return "reload"
      }
    }

    /// The state, in a few words: load · queue · show · armed timers (and what else is set).
    var state: String {
      var parts: [String] = []
      if let load = machine.load {
        parts.append(load.auctionStarted ? "loading(\(load.id))" : "starting(\(load.id))")
      } else {
        parts.append("idle")
      }
      if !machine.queue.isEmpty {
        parts.append("ready(\(machine.queue.ads.map { String($0.loadID) }.joined(separator: ",")))")
      } else if case .withdrawn = machine.queue.lastGone {
        parts.append("withdrawn")
      } else {
        parts.append("\(machine.queue.lastGone)")
      }
      if let session = machine.session { parts.append("show(\(session.id) \(session.machine.phase))") }
      if !machine.lingering.isEmpty { parts.append("lingering(\(machine.lingering.count))") }
      let timers = TimerID.Kind.allCases.filter { machine.isArmed($0) }.map { "\($0)" }
      if !timers.isEmpty { parts.append("[\(timers.joined(separator: ","))]") }
      if machine.removal != nil { parts.append("removed") }
      return parts.joined(separator: " ")
    }
  }

  static var privacy: PrivacySettings { PrivacySettings() }
  static func loaded() -> LoadedAd { LoadedAd(AdapterLoadedAd(ad: TestAd())) }

  // MARK: States, each made by inputs from a new zone

  static func loading(_ setup: ZoneSetup = setup()) -> Driver {
    var driver = Driver(setup)
    driver.feed(.load(requested: true, networks: networks, privacy: privacy))
    driver.feed(.auctionStarted(load: driver.machine.lastLoadID, auctionID: 7))
    driver.feed(.sent(driver.request, Handle(.none)))
    return driver
  }

  static func ready(_ setup: ZoneSetup = setup()) -> Driver {
    var driver = loading(setup)
    driver.feed(.loaded(driver.request, loaded()))
    return driver
  }

  static func onScreen() -> Driver {
    var driver = ready()
    driver.feed(.show(customData: nil, screen: .acquired))
    return driver
  }

  static func displayed() -> Driver {
    var driver = onScreen()
    driver.feed(.signal(ad: 1, .displayed))
    return driver
  }

  static func states() -> [(String, Driver)] {
    var starting = Driver()
    starting.feed(.load(requested: true, networks: networks, privacy: privacy))
    var pastExpiry = ready()
    pastExpiry.now += .seconds(61)
    var expired = ready()
    expired.now += .seconds(60)
    expired.feed(.timerFired(expired.timer(.expiry)))
    var retrying = loading(setup(autoReload: true))
    retrying.feed(.loadFailed(retrying.request, noFill))
    var grace = displayed()
    grace.feed(.signal(ad: 1, .dismissed))
    var lingering = displayed()
    lingering.feed(.signal(ad: 1, .rewarded(nil)))
    lingering.feed(.signal(ad: 1, .dismissed))
    var removed = ready()
    removed.feed(.apply(.removed(reason: "gone")))
    var queueLoading = ready(setup(depth: 2))
    queueLoading.feed(.load(requested: true, networks: networks, privacy: privacy))
    queueLoading.feed(.auctionStarted(load: 2, auctionID: 8))
    queueLoading.feed(.sent(queueLoading.request, Handle(.none)))
    return [
      ("idle", Driver()), ("starting", starting), ("loading", loading()), ("ready", ready()),
      ("pastExpiry", pastExpiry), ("expired", expired), ("retrying", retrying), ("onScreen", onScreen()),
      ("displayed", displayed()), ("grace", grace), ("lingering", lingering), ("removed", removed),
      ("queueLoading", queueLoading),
    ]
  }

  /// Every input, aimed at the latest load, request and show, and at each timer's current arming
  /// (an arming never made when the timer is not armed: its firing is stale).
  static func inputs() -> [(String, (Driver) -> ZoneInput)] {
    [
      ("load", { _ in .load(requested: true, networks: networks, privacy: privacy) }),
      ("reload", { _ in .load(requested: false, networks: networks, privacy: privacy) }),
      ("auctionStarted", { .auctionStarted(load: $0.machine.lastLoadID, auctionID: 9) }),
      ("sent", { .sent($0.request, Handle(.none)) }),
      ("loaded", { .loaded($0.request, loaded()) }),
      ("loadFailed", { .loadFailed($0.request, noFill) }),
      ("withdrawn(1)", { _ in .withdrawn(RequestID(load: 1, entry: 0), reason) }),
      ("show", { _ in .show(customData: nil, screen: .acquired) }),
      ("showBusy", { _ in .show(customData: nil, screen: .taken(by: "other")) }),
      ("displayed", { .signal(ad: $0.lastShownAd, .displayed) }),
      ("rewarded", { .signal(ad: $0.lastShownAd, .rewarded(nil)) }),
      ("dismissed", { .signal(ad: $0.lastShownAd, .dismissed) }),
      ("loadTimer", { .timerFired($0.timer(.load)) }),
      ("expiryTimer", { .timerFired($0.timer(.expiry)) }),
      ("retryTimer", { .timerFired($0.timer(.retry)) }),
      ("displayTimer", { .timerFired($0.timer(.display)) }),
      ("graceTimer", { .timerFired($0.timer(.grace)) }),
      ("lingerTimer", { .timerFired($0.timer(.linger)) }),
      ("apply", { _ in .apply(.configuration(Self.setup(), note: "v2")) }),
      ("remove", { _ in .apply(.removed(reason: "gone")) }),
    ]
  }

  @Test func everyInputInEveryStateGivesTheTabledEffectsAndState() {
    var actual: [String: [String: String]] = [:]
    for (name, state) in Self.states() {
      for (input, make) in Self.inputs() {
        var driver = state
        let effects = driver.feed(make(driver))
        actual[name, default: [:]][input] = "\(effects.joined(separator: " ")) -> \(driver.state)"
      }
    }
    for (name, inputs) in Self.expected {
      for (input, expected) in inputs {
        #expect(actual[name]?[input] == expected, "\(name) × \(input)")
      }
    }
    #expect(Set(actual.keys) == Set(Self.expected.keys))
    #expect(Self.expected.values.allSatisfy { $0.count == Self.inputs().count })
  }
}

/// Timers as effects with ids: a firing counts only for the arming it was made for.
@Suite("ZoneMachine timers")
struct ZoneMachineTimerTests {
  typealias T = ZoneMachineTests

  @Test func aFiringOfAReplacedArmingIsIgnored() {
    var driver = T.ready(T.setup(depth: 2))
    let first = driver.timer(.expiry)
    driver.feed(.load(requested: true, networks: T.networks, privacy: T.privacy))
    driver.feed(.auctionStarted(load: 2, auctionID: 8))
    driver.feed(.sent(driver.request, Handle(.none)))
    // The second fill re-arms the expiry: the first arming is cancelled and its firing stale.
    let effects = driver.feed(.loaded(driver.request, T.loaded()))
    #expect(effects.contains("cancel(expiry)"))
    #expect(driver.timer(.expiry) != first)
    driver.now += .seconds(60)
    #expect(driver.feed(.timerFired(first)).isEmpty)
    #expect(driver.state == "idle ready(1,2) [expiry]")
    #expect(driver.feed(.timerFired(driver.timer(.expiry))) == ["discard", "expired", "discard", "expired"])
    #expect(driver.state == "idle expired")
  }

  @Test func aFiringOfADisarmedTimerIsIgnoredAndItsLateHandleCancelled() {
    var driver = T.loading()
    let load = driver.timer(.load)
    // The fill disarms the load timer; a firing already on its way changes nothing.
    driver.feed(.loaded(driver.request, T.loaded()))
    #expect(!driver.machine.isArmed(.load))
    #expect(driver.feed(.timerFired(load)).isEmpty)
    #expect(driver.feed(.timerFired(load)).isEmpty)
    // A handle that arrives after its arming was disarmed is cancelled at once.
    var machine = ZoneMachine(setup: T.setup(), timings: T.timings)
    var effects = machine.handle(
      .load(requested: true, networks: T.networks, privacy: T.privacy), now: T.start)
    effects = machine.handle(.auctionStarted(load: 1, auctionID: 1), now: T.start)
    guard case .arm(let id, _) = effects.first(where: { if case .arm = $0 { true } else { false } }) else {
      Issue.record("no load timer armed: \(effects)")
      return
    }
    _ = machine.handle(.apply(.removed(reason: "gone")), now: T.start)
    let late = machine.handle(.timerArmed(id, Handle(.none)), now: T.start)
    #expect(late.count == 1)
    if case .cancel = late.first {} else { Issue.record("expected a cancel, got \(late)") }
  }

  /// A zone has at most one retry pending: any load that starts cancels it (a load under way is
  /// what the retry would start), so a failure during that load arms the only retry, and the
  /// earlier one's firing is ignored. A load the app asks for cancels it too, even when the
  /// queue is full and no load starts.
  @Test func aLoadThatStartsCancelsThePendingRetry() {
    var driver = T.loading(T.setup(autoReload: true))
    driver.feed(.loadFailed(driver.request, noFill))
    let first = driver.timer(.retry)
    #expect(
      driver.feed(.load(requested: false, networks: T.networks, privacy: T.privacy))
        == ["cancel(retry)", "auction(2)"])
    #expect(!driver.machine.isArmed(.retry))
    driver.feed(.auctionStarted(load: 2, auctionID: 2))
    driver.feed(.sent(driver.request, Handle(.none)))
    #expect(driver.feed(.loadFailed(driver.request, noFill)).suffix(1) == ["arm(retry 4.0 seconds)"])
    let second = driver.timer(.retry)
    #expect(second != first)
    #expect(driver.feed(.timerFired(first)).isEmpty)
    #expect(driver.machine.isArmed(.retry))
    #expect(driver.feed(.timerFired(second)) == ["reload"])
    #expect(!driver.machine.isArmed(.retry))
    #expect(driver.feed(.timerFired(second)).isEmpty)
    // A load the app asks for cancels the pending retry.
    var asked = T.loading(T.setup(autoReload: true))
    asked.feed(.loadFailed(asked.request, noFill))
    #expect(
      asked.feed(.load(requested: true, networks: T.networks, privacy: T.privacy)).first == "cancel(retry)")
  }

  /// Refills that fail while an ad is ready escalate the backoff; a show resets it, so the reload
  /// after the queue empties retries after 2 s, not after what the refills ran up.
  @Test func aShowResetsTheRetryBackoff() {
    var driver = T.ready(T.setup(autoReload: true, depth: 2))
    for (failure, backoff) in [(2, 2), (3, 4), (4, 8)] {
      driver.feed(.load(requested: false, networks: T.networks, privacy: T.privacy))
      driver.feed(.auctionStarted(load: failure, auctionID: UInt64(failure)))
      driver.feed(.sent(driver.request, Handle(.none)))
      #expect(
        driver.feed(.loadFailed(driver.request, noFill)).suffix(1) == ["arm(retry \(backoff).0 seconds)"])
    }
    driver.feed(.show(customData: nil, screen: .acquired))
    driver.feed(.load(requested: false, networks: T.networks, privacy: T.privacy))
    driver.feed(.auctionStarted(load: 5, auctionID: 5))
    driver.feed(.sent(driver.request, Handle(.none)))
    // Both placements are free again: the waterfall asks p1, then p2.
    #expect(driver.feed(.loadFailed(driver.request, noFill)).suffix(1) == ["load(5.1)"])
    driver.feed(.sent(driver.request, Handle(.none)))
    #expect(driver.feed(.loadFailed(driver.request, noFill)).suffix(1) == ["arm(retry 2.0 seconds)"])
  }

  @Test func everyTimerKindIgnoresAnArmingItNeverMade() {
    for (name, state) in T.states() {
      for kind in TimerID.Kind.allCases {
        var driver = state
        let stale = TimerID(kind: kind, generation: 1_000_000)
        let before = driver.state
        #expect(driver.feed(.timerFired(stale)).isEmpty, "\(name) × \(kind)")
        #expect(driver.state == before, "\(name) × \(kind)")
      }
    }
  }
}

/// The rules that used to depend on the order of the zone's locks, each now one input of the
/// machine.
@Suite("ZoneMachine rules")
struct ZoneMachineRuleTests {
  typealias T = ZoneMachineTests

  /// The show takes its ad in the input that claims the screen: a withdrawal or expiry after it
  /// finds the ad on screen, never ready and never gone.
  @Test func aShowTakesItsAdInTheSameInputThatStartsItsSession() {
    var driver = T.onScreen()
    #expect(driver.machine.readyAd(now: driver.now) == nil)
    #expect(driver.feed(.withdrawn(RequestID(load: 1, entry: 0), T.reason)) == ["diagnostic(ad_withdrawn)"])
    #expect(driver.state == "idle shown show(1 awaitingDisplay) [display,showDuration]")
  }

  /// A show that ends frees the screen only after it has left the zone's session, so a show
  /// started at once finds it gone and keeps its own session and timers.
  @Test func theScreenIsFreedAfterTheEndedShowLeftTheSession() {
    var driver = T.ready(T.setup(depth: 2))
    driver.feed(.load(requested: true, networks: T.networks, privacy: T.privacy))
    driver.feed(.auctionStarted(load: 2, auctionID: 8))
    driver.feed(.sent(driver.request, Handle(.none)))
    driver.feed(.loaded(driver.request, T.loaded()))
    driver.feed(.show(customData: nil, screen: .acquired))
    driver.feed(.signal(ad: 1, .displayed))
    driver.feed(.signal(ad: 1, .rewarded(nil)))
    let ended = driver.feed(.signal(ad: 1, .dismissed))
    #expect(ended.suffix(2) == ["arm(linger 30.0 seconds)", "releaseScreen"])
    #expect(driver.machine.session == nil)
    #expect(driver.feed(.show(customData: nil, screen: .acquired)).last == "present(2)")
    #expect(
      driver.state == "idle shown show(2 awaitingDisplay) lingering(1) [display,showDuration,linger]")
    // The first show's late signal reaches its own session, not the one on screen.
    #expect(driver.feed(.signal(ad: 1, .rewarded(nil))) == ["diagnostic(duplicate_reward)"])
    #expect(driver.machine.session?.machine.phase == .awaitingDisplay)
  }

  /// A refused show hands the screen back it was given, and takes nothing.
  @Test func aRefusedShowReleasesTheScreen() {
    var driver = T.Driver()
    #expect(
      driver.feed(.show(customData: nil, screen: .acquired)) == ["releaseScreen", "refused(not_ready)"])
    var busy = T.ready()
    #expect(busy.feed(.show(customData: nil, screen: .taken(by: "y"))) == ["refused(another_ad_showing)"])
    #expect(busy.state == "idle ready(1) [expiry]")
  }

  /// A load keeps the setup it started on; a configuration applied during it that removes its
  /// line item withdraws the fill instead of queueing it.
  @Test func aLoadKeepsItsSetupAndAFillRemovedMeanwhileIsWithdrawn() {
    var driver = T.loading()
    driver.feed(.apply(.configuration(T.setup(placements: ["p9"]), note: nil)))
    #expect(driver.machine.load?.setup !== driver.machine.setup)
    let effects = driver.feed(.loaded(driver.request, T.loaded()))
    #expect(effects == ["cancel(load)", "ready", "discard", "diagnostic(ad_withdrawn)", "expired"])
    #expect(driver.state == "idle withdrawn")
  }

  /// A withdrawal that arrives before its load's fill is stored is applied to the fill; one from
  /// another request of the load is not.
  @Test func aWithdrawalBeforeTheFillIsStoredWithdrawsTheFill() {
    var driver = T.loading()
    #expect(driver.feed(.withdrawn(RequestID(load: 1, entry: 0), T.reason)).isEmpty)
    #expect(
      driver.feed(.loaded(driver.request, T.loaded())).suffix(3) == [
        "discard", "diagnostic(ad_withdrawn)", "expired",
      ])
    var other = T.loading()
    other.feed(.withdrawn(RequestID(load: 1, entry: 3), T.reason))
    other.feed(.loaded(other.request, T.loaded()))
    #expect(other.state == "idle ready(1) [expiry]")
  }

  /// A handle that comes back for a request no longer open (its load ended, or it was answered)
  /// is cancelled at once rather than kept.
  @Test func aHandleForARequestNoLongerOpenIsCancelled() {
    var driver = T.ready()
    var cancelled = false
    let log = Locked(false)
    let effects = driver.machine.handle(
      .sent(RequestID(load: 1, entry: 0), Handle(Cancellable { log.set(true) })), now: driver.now)
    for case .cancel(let handle) in effects { handle.cancel() }
    cancelled = log.get()
    #expect(cancelled)
  }

  /// The zone's inputs are values: the same inputs fed to two new zones give the same effects,
  /// which is what lets a session be recorded and replayed.
  @Test func theSameInputsGiveTheSameEffects() {
    let inputs: [ZoneInput] = [
      .load(requested: true, networks: T.networks, privacy: T.privacy),
      .auctionStarted(load: 1, auctionID: 3),
      .sent(RequestID(load: 1, entry: 0), Handle(.none)), .loaded(RequestID(load: 1, entry: 0), T.loaded()),
      .show(customData: "c", screen: .acquired), .signal(ad: 1, .displayed), .signal(ad: 1, .dismissed),
    ]
    var first = T.Driver()
    var second = T.Driver()
    let a = inputs.map { first.feed($0) }
    let b = inputs.map { second.feed($0) }
    #expect(a == b)
    #expect(first.state == second.state)
    #expect(inputs == inputs)
    #expect(ZoneInput.signal(ad: 1, .displayed) != .signal(ad: 2, .displayed))
  }
}

extension ZoneMachineTests {
  /// Effects and next state for each state × input. An input that does not concern the state
  /// (a timer not armed, a show not on screen, a load not under way) changes nothing; a handle
  /// for a request no longer open is cancelled, and an ad for a load no longer under way
  /// discarded.
  static let expected: [String: [String: String]] = [
    "idle": [
      "load": "auction(1) -> starting(1) notLoaded",
      "reload": "auction(1) -> starting(1) notLoaded",
      "auctionStarted": " -> idle notLoaded",
      "sent": "cancel(request) -> idle notLoaded",
      "loaded": "discard diagnostic(late_load) -> idle notLoaded",
      "loadFailed": " -> idle notLoaded",
      "withdrawn(1)": " -> idle notLoaded",
      "show": "releaseScreen refused(not_ready) -> idle notLoaded",
      "showBusy": "refused(not_ready) -> idle notLoaded",
      "displayed": " -> idle notLoaded",
      "rewarded": " -> idle notLoaded",
      "dismissed": " -> idle notLoaded",
      "loadTimer": " -> idle notLoaded",
      "expiryTimer": " -> idle notLoaded",
      "retryTimer": " -> idle notLoaded",
      "displayTimer": " -> idle notLoaded",
      "graceTimer": " -> idle notLoaded",
      "lingerTimer": " -> idle notLoaded",
      "apply": "diagnostic(configuration_applied) -> idle notLoaded",
      "remove": "diagnostic(configuration_applied) -> idle notLoaded removed",
    ],
    "starting": [
      "load": " -> starting(1) notLoaded",
      "reload": " -> starting(1) notLoaded",
      "auctionStarted": "loading arm(load 5.0 seconds) load(1.0) -> loading(1) notLoaded [load]",
      "sent": "cancel(request) -> starting(1) notLoaded",
      "loaded": "discard diagnostic(late_load) -> starting(1) notLoaded",
      "loadFailed": " -> starting(1) notLoaded",
      "withdrawn(1)": " -> starting(1) notLoaded",
      "show": "releaseScreen refused(not_ready) -> starting(1) notLoaded",
      "showBusy": "refused(not_ready) -> starting(1) notLoaded",
      "displayed": " -> starting(1) notLoaded",
      "rewarded": " -> starting(1) notLoaded",
      "dismissed": " -> starting(1) notLoaded",
      "loadTimer": " -> starting(1) notLoaded",
      "expiryTimer": " -> starting(1) notLoaded",
      "retryTimer": " -> starting(1) notLoaded",
      "displayTimer": " -> starting(1) notLoaded",
      "graceTimer": " -> starting(1) notLoaded",
      "lingerTimer": " -> starting(1) notLoaded",
      "apply": "diagnostic(configuration_applied) -> starting(1) notLoaded",
      "remove": "diagnostic(configuration_applied) failed(unknown_zone) -> idle notLoaded removed",
    ],
    "loading": [
      "load": " -> loading(1) notLoaded [load]",
      "reload": " -> loading(1) notLoaded [load]",
      "auctionStarted": " -> loading(1) notLoaded [load]",
      "sent": " -> loading(1) notLoaded [load]",
      "loaded": "cancel(load) arm(expiry 60.0 seconds) ready -> idle ready(1) [expiry]",
      "loadFailed": "cancel(load) cancel(request) failed -> idle notLoaded",
      "withdrawn(1)": " -> loading(1) notLoaded [load]",
      "show": "releaseScreen refused(not_ready) -> loading(1) notLoaded [load]",
      "showBusy": "refused(not_ready) -> loading(1) notLoaded [load]",
      "displayed": " -> loading(1) notLoaded [load]",
      "rewarded": " -> loading(1) notLoaded [load]",
      "dismissed": " -> loading(1) notLoaded [load]",
      "loadTimer": "cancel(request) failed -> idle notLoaded",
      "expiryTimer": " -> loading(1) notLoaded [load]",
      "retryTimer": " -> loading(1) notLoaded [load]",
      "displayTimer": " -> loading(1) notLoaded [load]",
      "graceTimer": " -> loading(1) notLoaded [load]",
      "lingerTimer": " -> loading(1) notLoaded [load]",
      "apply": "diagnostic(configuration_applied) -> loading(1) notLoaded [load]",
      "remove":
        "diagnostic(configuration_applied) cancel(load) cancel(request) failed(unknown_zone) -> idle notLoaded removed",
    ],
    "ready": [
      "load": "ready -> idle ready(1) [expiry]",
      "reload": "ready -> idle ready(1) [expiry]",
      "auctionStarted": " -> idle ready(1) [expiry]",
      "sent": "cancel(request) -> idle ready(1) [expiry]",
      "loaded": "discard diagnostic(late_load) -> idle ready(1) [expiry]",
      "loadFailed": " -> idle ready(1) [expiry]",
      "withdrawn(1)": "cancel(expiry) discard diagnostic(ad_withdrawn) expired -> idle withdrawn",
      "show":
        "cancel(expiry) arm(display 10.0 seconds) arm(showDuration 600.0 seconds) present(1) -> idle shown show(1 awaitingDisplay) [display,showDuration]",
      "showBusy": "refused(another_ad_showing) -> idle ready(1) [expiry]",
      "displayed": " -> idle ready(1) [expiry]",
      "rewarded": " -> idle ready(1) [expiry]",
      "dismissed": " -> idle ready(1) [expiry]",
      "loadTimer": " -> idle ready(1) [expiry]",
      "expiryTimer": "discard expired -> idle expired",
      "retryTimer": " -> idle ready(1) [expiry]",
      "displayTimer": " -> idle ready(1) [expiry]",
      "graceTimer": " -> idle ready(1) [expiry]",
      "lingerTimer": " -> idle ready(1) [expiry]",
      "apply": "diagnostic(configuration_applied) -> idle ready(1) [expiry]",
      "remove":
        "diagnostic(configuration_applied) cancel(expiry) discard diagnostic(ad_withdrawn) expired -> idle withdrawn removed",
    ],
    "pastExpiry": [
      "load": "auction(2) -> starting(2) ready(1) [expiry]",
      "reload": "auction(2) -> starting(2) ready(1) [expiry]",
      "auctionStarted": " -> idle ready(1) [expiry]",
      "sent": "cancel(request) -> idle ready(1) [expiry]",
      "loaded": "discard diagnostic(late_load) -> idle ready(1) [expiry]",
      "loadFailed": " -> idle ready(1) [expiry]",
      "withdrawn(1)": "cancel(expiry) discard diagnostic(ad_withdrawn) expired -> idle withdrawn",
      "show": "releaseScreen refused(expired) -> idle ready(1) [expiry]",
      "showBusy": "refused(expired) -> idle ready(1) [expiry]",
      "displayed": " -> idle ready(1) [expiry]",
      "rewarded": " -> idle ready(1) [expiry]",
      "dismissed": " -> idle ready(1) [expiry]",
      "loadTimer": " -> idle ready(1) [expiry]",
      "expiryTimer": "discard expired -> idle expired",
      "retryTimer": " -> idle ready(1) [expiry]",
      "displayTimer": " -> idle ready(1) [expiry]",
      "graceTimer": " -> idle ready(1) [expiry]",
      "lingerTimer": " -> idle ready(1) [expiry]",
      "apply": "diagnostic(configuration_applied) -> idle ready(1) [expiry]",
      "remove":
        "diagnostic(configuration_applied) cancel(expiry) discard diagnostic(ad_withdrawn) expired -> idle withdrawn removed",
    ],
    "expired": [
      "load": "auction(2) -> starting(2) expired",
      "reload": "auction(2) -> starting(2) expired",
      "auctionStarted": " -> idle expired",
      "sent": "cancel(request) -> idle expired",
      "loaded": "discard diagnostic(late_load) -> idle expired",
      "loadFailed": " -> idle expired",
      "withdrawn(1)": " -> idle expired",
      "show": "releaseScreen refused(expired) -> idle expired",
      "showBusy": "refused(expired) -> idle expired",
      "displayed": " -> idle expired",
      "rewarded": " -> idle expired",
      "dismissed": " -> idle expired",
      "loadTimer": " -> idle expired",
      "expiryTimer": " -> idle expired",
      "retryTimer": " -> idle expired",
      "displayTimer": " -> idle expired",
      "graceTimer": " -> idle expired",
      "lingerTimer": " -> idle expired",
      "apply": "diagnostic(configuration_applied) -> idle expired",
      "remove": "diagnostic(configuration_applied) -> idle expired removed",
    ],
    "retrying": [
      "load": "cancel(retry) auction(2) -> starting(2) notLoaded",
      "reload": "cancel(retry) auction(2) -> starting(2) notLoaded",
      "auctionStarted": " -> idle notLoaded [retry]",
      "sent": "cancel(request) -> idle notLoaded [retry]",
      "loaded": "discard diagnostic(late_load) -> idle notLoaded [retry]",
      "loadFailed": " -> idle notLoaded [retry]",
      "withdrawn(1)": " -> idle notLoaded [retry]",
      "show": "releaseScreen refused(not_ready) -> idle notLoaded [retry]",
      "showBusy": "refused(not_ready) -> idle notLoaded [retry]",
      "displayed": " -> idle notLoaded [retry]",
      "rewarded": " -> idle notLoaded [retry]",
      "dismissed": " -> idle notLoaded [retry]",
      "loadTimer": " -> idle notLoaded [retry]",
      "expiryTimer": " -> idle notLoaded [retry]",
      "retryTimer": "reload -> idle notLoaded",
      "displayTimer": " -> idle notLoaded [retry]",
      "graceTimer": " -> idle notLoaded [retry]",
      "lingerTimer": " -> idle notLoaded [retry]",
      "apply": "diagnostic(configuration_applied) -> idle notLoaded [retry]",
      "remove": "diagnostic(configuration_applied) cancel(retry) -> idle notLoaded removed",
    ],
    "onScreen": [
      "load": "auction(2) -> starting(2) shown show(1 awaitingDisplay) [display,showDuration]",
      "reload": "auction(2) -> starting(2) shown show(1 awaitingDisplay) [display,showDuration]",
      "auctionStarted": " -> idle shown show(1 awaitingDisplay) [display,showDuration]",
      "sent": "cancel(request) -> idle shown show(1 awaitingDisplay) [display,showDuration]",
      "loaded": "discard diagnostic(late_load) -> idle shown show(1 awaitingDisplay) [display,showDuration]",
      "loadFailed": " -> idle shown show(1 awaitingDisplay) [display,showDuration]",
      "withdrawn(1)": "diagnostic(ad_withdrawn) -> idle shown show(1 awaitingDisplay) [display,showDuration]",
      "show":
        "releaseScreen refused(already_used) -> idle shown show(1 awaitingDisplay) [display,showDuration]",
      "showBusy": "refused(already_used) -> idle shown show(1 awaitingDisplay) [display,showDuration]",
      "displayed": "cancel(display) shown -> idle shown show(1 displayed) [showDuration]",
      "rewarded":
        "cancel(display) shown diagnostic(implied_display) revenuePaid rewarded -> idle shown show(1 displayed) [showDuration]",
      "dismissed":
        "cancel(display) arm(grace 5.0 seconds) shown diagnostic(implied_display) -> idle shown show(1 awaitingLateReward) [showDuration,grace]",
      "loadTimer": " -> idle shown show(1 awaitingDisplay) [display,showDuration]",
      "expiryTimer": " -> idle shown show(1 awaitingDisplay) [display,showDuration]",
      "retryTimer": " -> idle shown show(1 awaitingDisplay) [display,showDuration]",
      "displayTimer":
        "showFailed cancel(showDuration) arm(linger 30.0 seconds) releaseScreen -> idle shown lingering(1) [linger]",
      "graceTimer": " -> idle shown show(1 awaitingDisplay) [display,showDuration]",
      "lingerTimer": " -> idle shown show(1 awaitingDisplay) [display,showDuration]",
      "apply":
        "diagnostic(configuration_applied) -> idle shown show(1 awaitingDisplay) [display,showDuration]",
      "remove":
        "diagnostic(configuration_applied) -> idle shown show(1 awaitingDisplay) [display,showDuration] removed",
    ],
    "displayed": [
      "load": "auction(2) -> starting(2) shown show(1 displayed) [showDuration]",
      "reload": "auction(2) -> starting(2) shown show(1 displayed) [showDuration]",
      "auctionStarted": " -> idle shown show(1 displayed) [showDuration]",
      "sent": "cancel(request) -> idle shown show(1 displayed) [showDuration]",
      "loaded": "discard diagnostic(late_load) -> idle shown show(1 displayed) [showDuration]",
      "loadFailed": " -> idle shown show(1 displayed) [showDuration]",
      "withdrawn(1)": "diagnostic(ad_withdrawn) -> idle shown show(1 displayed) [showDuration]",
      "show": "releaseScreen refused(already_used) -> idle shown show(1 displayed) [showDuration]",
      "showBusy": "refused(already_used) -> idle shown show(1 displayed) [showDuration]",
      "displayed": "diagnostic(duplicate_signal) -> idle shown show(1 displayed) [showDuration]",
      "rewarded": "revenuePaid rewarded -> idle shown show(1 displayed) [showDuration]",
      "dismissed": "arm(grace 5.0 seconds) -> idle shown show(1 awaitingLateReward) [showDuration,grace]",
      "loadTimer": " -> idle shown show(1 displayed) [showDuration]",
      "expiryTimer": " -> idle shown show(1 displayed) [showDuration]",
      "retryTimer": " -> idle shown show(1 displayed) [showDuration]",
      "displayTimer": " -> idle shown show(1 displayed) [showDuration]",
      "graceTimer": " -> idle shown show(1 displayed) [showDuration]",
      "lingerTimer": " -> idle shown show(1 displayed) [showDuration]",
      "apply": "diagnostic(configuration_applied) -> idle shown show(1 displayed) [showDuration]",
      "remove": "diagnostic(configuration_applied) -> idle shown show(1 displayed) [showDuration] removed",
    ],
    "grace": [
      "load": "auction(2) -> starting(2) shown show(1 awaitingLateReward) [showDuration,grace]",
      "reload": "auction(2) -> starting(2) shown show(1 awaitingLateReward) [showDuration,grace]",
      "auctionStarted": " -> idle shown show(1 awaitingLateReward) [showDuration,grace]",
      "sent": "cancel(request) -> idle shown show(1 awaitingLateReward) [showDuration,grace]",
      "loaded": "discard diagnostic(late_load) -> idle shown show(1 awaitingLateReward) [showDuration,grace]",
      "loadFailed": " -> idle shown show(1 awaitingLateReward) [showDuration,grace]",
      "withdrawn(1)":
        "diagnostic(ad_withdrawn) -> idle shown show(1 awaitingLateReward) [showDuration,grace]",
      "show":
        "releaseScreen refused(already_used) -> idle shown show(1 awaitingLateReward) [showDuration,grace]",
      "showBusy": "refused(already_used) -> idle shown show(1 awaitingLateReward) [showDuration,grace]",
      "displayed":
        "diagnostic(duplicate_signal) -> idle shown show(1 awaitingLateReward) [showDuration,grace]",
      "rewarded":
        "cancel(grace) revenuePaid rewarded closed cancel(showDuration) arm(linger 30.0 seconds) releaseScreen -> idle shown lingering(1) [linger]",
      "dismissed":
        "diagnostic(duplicate_signal) -> idle shown show(1 awaitingLateReward) [showDuration,grace]",
      "loadTimer": " -> idle shown show(1 awaitingLateReward) [showDuration,grace]",
      "expiryTimer": " -> idle shown show(1 awaitingLateReward) [showDuration,grace]",
      "retryTimer": " -> idle shown show(1 awaitingLateReward) [showDuration,grace]",
      "displayTimer": " -> idle shown show(1 awaitingLateReward) [showDuration,grace]",
      "graceTimer":
        "revenuePaid skipped cancel(showDuration) arm(linger 30.0 seconds) releaseScreen -> idle shown lingering(1) [linger]",
      "lingerTimer": " -> idle shown show(1 awaitingLateReward) [showDuration,grace]",
      "apply":
        "diagnostic(configuration_applied) -> idle shown show(1 awaitingLateReward) [showDuration,grace]",
      "remove":
        "diagnostic(configuration_applied) -> idle shown show(1 awaitingLateReward) [showDuration,grace] removed",
    ],
    "lingering": [
      "load": "auction(2) -> starting(2) shown lingering(1) [linger]",
      "reload": "auction(2) -> starting(2) shown lingering(1) [linger]",
      "auctionStarted": " -> idle shown lingering(1) [linger]",
      "sent": "cancel(request) -> idle shown lingering(1) [linger]",
      "loaded": "discard diagnostic(late_load) -> idle shown lingering(1) [linger]",
      "loadFailed": " -> idle shown lingering(1) [linger]",
      "withdrawn(1)": "diagnostic(ad_withdrawn) -> idle shown lingering(1) [linger]",
      "show": "releaseScreen refused(already_used) -> idle shown lingering(1) [linger]",
      "showBusy": "refused(already_used) -> idle shown lingering(1) [linger]",
      "displayed": "diagnostic(signal_after_terminal) -> idle shown lingering(1) [linger]",
      "rewarded": "diagnostic(duplicate_reward) -> idle shown lingering(1) [linger]",
      "dismissed": "diagnostic(signal_after_terminal) -> idle shown lingering(1) [linger]",
      "loadTimer": " -> idle shown lingering(1) [linger]",
      "expiryTimer": " -> idle shown lingering(1) [linger]",
      "retryTimer": " -> idle shown lingering(1) [linger]",
      "displayTimer": " -> idle shown lingering(1) [linger]",
      "graceTimer": " -> idle shown lingering(1) [linger]",
      "lingerTimer": "discard -> idle shown",
      "apply": "diagnostic(configuration_applied) -> idle shown lingering(1) [linger]",
      "remove": "diagnostic(configuration_applied) -> idle shown lingering(1) [linger] removed",
    ],
    "removed": [
      "load": "failed(unknown_zone) -> idle withdrawn removed",
      "reload": " -> idle withdrawn removed",
      "auctionStarted": " -> idle withdrawn removed",
      "sent": "cancel(request) -> idle withdrawn removed",
      "loaded": "discard diagnostic(late_load) -> idle withdrawn removed",
      "loadFailed": " -> idle withdrawn removed",
      "withdrawn(1)": " -> idle withdrawn removed",
      "show": "releaseScreen refused(removed) -> idle withdrawn removed",
      "showBusy": "refused(removed) -> idle withdrawn removed",
      "displayed": " -> idle withdrawn removed",
      "rewarded": " -> idle withdrawn removed",
      "dismissed": " -> idle withdrawn removed",
      "loadTimer": " -> idle withdrawn removed",
      "expiryTimer": " -> idle withdrawn removed",
      "retryTimer": " -> idle withdrawn removed",
      "displayTimer": " -> idle withdrawn removed",
      "graceTimer": " -> idle withdrawn removed",
      "lingerTimer": " -> idle withdrawn removed",
      "apply": "diagnostic(configuration_applied) -> idle withdrawn",
      "remove": "diagnostic(configuration_applied) -> idle withdrawn removed",
    ],
    "queueLoading": [
      "load": " -> loading(2) ready(1) [load,expiry]",
      "reload": " -> loading(2) ready(1) [load,expiry]",
      "auctionStarted": " -> loading(2) ready(1) [load,expiry]",
      "sent": " -> loading(2) ready(1) [load,expiry]",
      "loaded": "cancel(load) cancel(expiry) arm(expiry 60.0 seconds) ready -> idle ready(1,2) [expiry]",
      "loadFailed": "cancel(load) cancel(request) failed -> idle ready(1) [expiry]",
      "withdrawn(1)":
        "cancel(expiry) discard diagnostic(ad_withdrawn) expired -> loading(2) withdrawn [load]",
      "show":
        "cancel(expiry) arm(display 10.0 seconds) arm(showDuration 600.0 seconds) present(1) -> loading(2) shown show(1 awaitingDisplay) [load,display,showDuration]",
      "showBusy": "refused(another_ad_showing) -> loading(2) ready(1) [load,expiry]",
      "displayed": " -> loading(2) ready(1) [load,expiry]",
      "rewarded": " -> loading(2) ready(1) [load,expiry]",
      "dismissed": " -> loading(2) ready(1) [load,expiry]",
      "loadTimer": "cancel(request) failed -> idle ready(1) [expiry]",
      "expiryTimer": "discard expired -> loading(2) expired [load]",
      "retryTimer": " -> loading(2) ready(1) [load,expiry]",
      "displayTimer": " -> loading(2) ready(1) [load,expiry]",
      "graceTimer": " -> loading(2) ready(1) [load,expiry]",
      "lingerTimer": " -> loading(2) ready(1) [load,expiry]",
      "apply": "diagnostic(configuration_applied) -> loading(2) ready(1) [load,expiry]",
      "remove":
        "diagnostic(configuration_applied) cancel(expiry) cancel(load) cancel(request) discard diagnostic(ad_withdrawn) expired failed(unknown_zone) -> idle withdrawn removed",
    ],
  ]
}
