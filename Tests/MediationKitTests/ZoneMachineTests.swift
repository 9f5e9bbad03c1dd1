import MediationKitTesting
import Testing

@testable import MediationKit

/// The zone as a pure value: every input in every state, as a table of the effects it asks for
/// and the state it leaves; then the rules that used to hang on lock ordering, each on the value.
@Suite("ZoneMachine")
struct ZoneMachineTests {
  final class TestAd: AdapterAd {
    func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignalSink) {}
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
    return ZoneSetup(zone: config, in: MediationConfig(zones: [config]), adapters: ["n": adapter], seed: 1)
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
      case .present(let ad, let show): return "present(\(ad.loadID) as \(show))"
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
        parts.append(load.request.auctionID == 0 ? "starting(\(load.id))" : "loading(\(load.id))")
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
    driver.feed(.signal(show: 1, .displayed))
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
    grace.feed(.signal(show: 1, .dismissed))
    var lingering = displayed()
    lingering.feed(.signal(show: 1, .rewarded(nil)))
    lingering.feed(.signal(show: 1, .dismissed))
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
      ("displayed", { .signal(show: $0.machine.lastShowID, .displayed) }),
      ("rewarded", { .signal(show: $0.machine.lastShowID, .rewarded(nil)) }),
      ("dismissed", { .signal(show: $0.machine.lastShowID, .dismissed) }),
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
    driver.feed(.signal(show: 1, .displayed))
    driver.feed(.signal(show: 1, .rewarded(nil)))
    let ended = driver.feed(.signal(show: 1, .dismissed))
    #expect(ended.suffix(2) == ["arm(linger 30.0 seconds)", "releaseScreen"])
    #expect(driver.machine.session == nil)
    #expect(driver.feed(.show(customData: nil, screen: .acquired)).last == "present(2 as 2)")
    #expect(
      driver.state == "idle shown show(2 awaitingDisplay) lingering(1) [expiry,display,showDuration,linger]")
    // The first show's late signal reaches its own session, not the one on screen.
    #expect(driver.feed(.signal(show: 1, .rewarded(nil))) == ["diagnostic(duplicate_reward)"])
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
      .show(customData: "c", screen: .acquired), .signal(show: 1, .displayed), .signal(show: 1, .dismissed),
    ]
    var first = T.Driver()
    var second = T.Driver()
    let a = inputs.map { first.feed($0) }
    let b = inputs.map { second.feed($0) }
    #expect(a == b)
    #expect(first.state == second.state)
    #expect(inputs == inputs)
    #expect(ZoneInput.signal(show: 1, .displayed) != .signal(show: 2, .displayed))
  }
}

extension ZoneMachineTests {
  static let expected: [String: [String: String]] = [:]

  @Test func dumpTable() {
    var out = ""
    for (name, state) in Self.states() {
      out += "    \"\(name)\": [\n"
      for (input, make) in Self.inputs() {
        var driver = state
        let effects = driver.feed(make(driver))
        out += "      \"\(input)\": \"\(effects.joined(separator: " ")) -> \(driver.state)\",\n"
      }
      out += "    ],\n"
    }
    print("TABLE-BEGIN\n" + out + "TABLE-END")
  }
}
