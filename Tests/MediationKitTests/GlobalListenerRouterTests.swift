import MediationKit
import MediationKitTesting
import Testing

@Suite("Global-listener routes, as a pure value")
struct GlobalListenerRoutesTests {
  let noFillError = AdapterError(.noFill, message: "no fill")

  @Test func oneAvailabilityCallbackFillsEveryWaitingLoadWithAnObjectOfItsOwn() {
    var routes = GlobalListenerRoutes()
    _ = routes.started()
    let first = routes.addLoad(placementID: "p")
    let second = routes.addLoad(placementID: "p")
    #expect(first.effects == [.requestLoad(placementID: "p")])
    #expect(second.effects == [])
    #expect(
      routes.availabilityChanged(placementID: "p", available: true)
        == [.fill(ticket: first.ticket), .fill(ticket: second.ticket)])
    #expect(routes.loaded == ["p": [first.ticket, second.ticket]])
    #expect(routes.waiting.isEmpty)
  }

  @Test func anAvailablePlacementFillsInsideTheLoad() {
    var routes = GlobalListenerRoutes()
    _ = routes.started()
    _ = routes.availabilityChanged(placementID: "p", available: true)
    let load = routes.addLoad(placementID: "p")
    #expect(load.effects == [.fill(ticket: load.ticket)])
  }

  @Test func loadsDuringStartWaitForItAndFailWhenItFails() {
    var routes = GlobalListenerRoutes()
    let early = routes.addLoad(placementID: "p")
    #expect(early.effects == [])
    #expect(routes.started() == [.requestLoad(placementID: "p")])

    var failing = GlobalListenerRoutes()
    let waiting = failing.addLoad(placementID: "p")
    let error = AdapterError(.notInitialized, vendorCode: 508, message: "bad app key")
    let failed = failing.startFailed(error)
    #expect(failed.count == 1)
    guard case .fail(let ticket, let reason) = failed.first else {
      Issue.record("expected a failure, got \(failed)")
      return
    }
    #expect(ticket == waiting.ticket)
    #expect(reason.kind == .notInitialized)
    #expect(reason.message == "the SDK failed to start: bad app key")
    let later = failing.addLoad(placementID: "p")
    #expect(later.effects == [.fail(ticket: later.ticket, reason)])
  }

  @Test func aCancelledLoadStopsWaiting() {
    var routes = GlobalListenerRoutes()
    _ = routes.started()
    let cancelled = routes.addLoad(placementID: "p")
    let kept = routes.addLoad(placementID: "p")
    routes.cancelLoad(cancelled.ticket)
    #expect(routes.availabilityChanged(placementID: "p", available: true) == [.fill(ticket: kept.ticket)])
  }

  @Test func availabilityTurningFalseWithdrawsEveryLoadedObjectAndWaitingLoadsAskAgain() {
    var routes = GlobalListenerRoutes()
    _ = routes.started()
    let first = routes.addLoad(placementID: "p")
    _ = routes.availabilityChanged(placementID: "p", available: true)
    let waiting = routes.addLoad(placementID: "q")
    _ = waiting
    let lost = AdapterWithdrawal(.availabilityLost, message: "p is no longer available")
    #expect(
      routes.availabilityChanged(placementID: "p", available: false) == [
        .withdraw(ticket: first.ticket, lost)
      ])
    let third = routes.addLoad(placementID: "p")
    #expect(third.effects == [.requestLoad(placementID: "p")])
    #expect(routes.loaded.isEmpty)
  }

  @Test func anSDKLoadFailureFailsTheLoadsWaitingForThatPlacement() {
    var routes = GlobalListenerRoutes()
    _ = routes.started()
    let load = routes.addLoad(placementID: "p")
    let other = routes.addLoad(placementID: "q")
    #expect(routes.loadFailed(placementID: "p", noFillError) == [.fail(ticket: load.ticket, noFillError)])
    #expect(routes.waiting == ["q": [other.ticket]])
    #expect(routes.requested == ["q"])
  }

  @Test func aShownOrDiscardedObjectIsNoLongerWithdrawn() {
    var routes = GlobalListenerRoutes()
    _ = routes.started()
    let shown = routes.addLoad(placementID: "p")
    let discarded = routes.addLoad(placementID: "p")
    _ = routes.availabilityChanged(placementID: "p", available: true)
    routes.showStarted(shown.ticket, placementID: "p")
    routes.discarded(discarded.ticket)
    #expect(routes.availabilityChanged(placementID: "p", available: false) == [])
  }

  @Test func aCallbackBeforeTheNextShowOpenedGoesToThePreviousShow() {
    var routes = GlobalListenerRoutes()
    routes.showStarted(1, placementID: "p")
    #expect(routes.route(.opened, placementID: "p") == 1)
    #expect(routes.route(.afterOpening, placementID: "p") == 1)
    routes.showStarted(2, placementID: "p")
    // Show 1's late reward, while show 2 is asked for but not open yet.
    #expect(routes.route(.afterOpening, placementID: "p") == 1)
    #expect(routes.route(.opened, placementID: "p") == 2)
    #expect(routes.route(.afterOpening, placementID: "p") == 2)
  }

  @Test func anImpressionIDNamesItsShowEvenAfterANewerShowOpened() {
    var routes = GlobalListenerRoutes()
    routes.showStarted(1, placementID: "p")
    #expect(routes.route(.opened, placementID: "p", impressionID: "imp-1") == 1)
    routes.showStarted(2, placementID: "p")
    #expect(routes.route(.opened, placementID: "p", impressionID: "imp-2") == 2)
    #expect(routes.route(.afterOpening, placementID: "p", impressionID: "imp-1") == 1)
    #expect(routes.route(.afterOpening, placementID: "p", impressionID: "imp-2") == 2)
  }

  /// The documented guarantee: with content completion reported, show N's reward that comes after
  /// show N+1 of the same placement opened reaches show N, and N+1's own reward reaches N+1.
  @Test func aLateRewardGoesToTheOldestOpenedShowWithCompletedUnrewardedContent() {
    var routes = GlobalListenerRoutes()
    routes.showStarted(1, placementID: "p")
    #expect(routes.route(.opened, placementID: "p") == 1)
    #expect(routes.route(.contentCompleted, placementID: "p") == 1)
    #expect(routes.route(.afterOpening, placementID: "p") == 1)  // the close, before the reward
    routes.showStarted(2, placementID: "p")
    #expect(routes.route(.opened, placementID: "p") == 2)
    // Show 1's late reward, while show 2 is on screen and its content has not completed.
    #expect(routes.route(.reward, placementID: "p") == 1)
    #expect(routes.route(.contentCompleted, placementID: "p") == 2)
    #expect(routes.route(.reward, placementID: "p") == 2)
    #expect(routes.shows.map(\.rewarded) == [true, true])
  }

  /// The case the routes cannot tell apart, pinned as documented: no impression id and no content
  /// completion, and show N's late reward comes after show N+1 of the same placement opened — it
  /// reaches show N+1.
  @Test func aLateRewardWithoutImpressionIDOrCompletionAfterTheNextShowOpenedReachesTheNextShow() {
    var routes = GlobalListenerRoutes()
    routes.showStarted(1, placementID: "p")
    _ = routes.route(.opened, placementID: "p")
    _ = routes.route(.afterOpening, placementID: "p")
    routes.showStarted(2, placementID: "p")
    _ = routes.route(.opened, placementID: "p")
    #expect(routes.route(.reward, placementID: "p") == 2)
  }

  @Test func anAppWideFlagFillsTheLoadsOfEveryPlacementAndWithdrawsThemAll() {
    var routes = GlobalListenerRoutes(availability: .init(scope: .appWide))
    _ = routes.started()
    let p = routes.addLoad(placementID: "p")
    let q = routes.addLoad(placementID: "q")
    // One SDK load for the app's one flag.
    #expect(p.effects == [.requestLoad(placementID: "p")])
    #expect(q.effects == [])
    #expect(
      routes.availabilityChanged(placementID: GlobalListenerRoutes.appWide, available: true)
        == [.fill(ticket: p.ticket), .fill(ticket: q.ticket)])
    // A load on a third placement fills at once under the app's flag.
    let r = routes.addLoad(placementID: "r")
    #expect(r.effects == [.fill(ticket: r.ticket)])
    routes.showStarted(p.ticket, placementID: "p")
    let withdrawn = routes.availabilityChanged(placementID: "p", available: false).compactMap {
      if case .withdraw(let ticket, _) = $0 { ticket } else { nil }
    }
    #expect(withdrawn == [q.ticket, r.ticket])
    // The zone that lost its ad loads again and is filled when the SDK has the next ad.
    let again = routes.addLoad(placementID: "q")
    #expect(again.effects == [.requestLoad(placementID: "q")])
    #expect(routes.availabilityChanged(placementID: "q", available: true) == [.fill(ticket: again.ticket)])
  }

  @Test func keepOnUnavailableWithdrawsNothingAndWaitingLoadsAskAgain() {
    var routes = GlobalListenerRoutes(availability: .init(whenUnavailable: .keep))
    _ = routes.started()
    let first = routes.addLoad(placementID: "p")
    _ = routes.availabilityChanged(placementID: "p", available: true)
    let waiting = routes.addLoad(placementID: "p")
    #expect(waiting.effects == [.fill(ticket: waiting.ticket)])
    #expect(routes.availabilityChanged(placementID: "p", available: false) == [])
    #expect(routes.loaded == ["p": [first.ticket, waiting.ticket]])
    let later = routes.addLoad(placementID: "p")
    #expect(later.effects == [.requestLoad(placementID: "p")])
  }

  @Test func callbacksAreRoutedByPlacementAndOnlyToRecentShows() {
    var routes = GlobalListenerRoutes(capacity: 2)
    routes.showStarted(1, placementID: "p")
    _ = routes.route(.opened, placementID: "p")
    routes.showStarted(2, placementID: "q")
    _ = routes.route(.opened, placementID: "q")
    #expect(routes.route(.afterOpening, placementID: "p") == 1)
    routes.showStarted(3, placementID: "q")
    #expect(routes.shows.map(\.ticket) == [2, 3])
    #expect(routes.route(.afterOpening, placementID: "p") == nil)
  }
}

@Suite("Global-listener router")
struct GlobalListenerRouterTests {
  @Test func completesInsideLoadWhenTheSDKAnswersFromItsOwnLoadCall() {
    let router = Locked<GlobalListenerRouter?>(nil)
    let made = GlobalListenerRouter { placementID in
      // An SDK that reports availability from inside its load call.
      router.get()?.availabilityChanged(placementID: placementID, available: true)
    }
    router.set(made)
    made.started()
    let result = Locked<Result<UInt64, AdapterError>?>(nil)
    _ = made.load(
      AdapterLoadRequest(
        zoneID: "z", placementID: "p", ecpm: 1, reward: AdapterSignal.NetworkReward(type: "c", amount: 1))
    ) {
      result.set($0)
    }
    #expect(result.get().map { (try? $0.get()) != nil } == true)
  }

  @Test func withdrawsThroughTheLoadsSinkAndRoutesEachCallbackToItsShowsSink() throws {
    let router = GlobalListenerRouter { _ in }
    router.started()
    let withdrawn = Locked<[AdapterWithdrawal]>([])
    var request = AdapterLoadRequest(
      zoneID: "z", placementID: "p", ecpm: 1, reward: AdapterSignal.NetworkReward(type: "c", amount: 1))
    request.sink = AdapterSignal.Sink.ignored.replacingWithdrawals { reason in
      withdrawn.withLock { $0.append(reason) }
    }
    let tickets = Locked<[UInt64]>([])
    for _ in 1...3 {
      _ = router.load(request) { result in tickets.withLock { $0.append(try! result.get()) } }
    }
    router.availabilityChanged(placementID: "p", available: true)
    #expect(tickets.get().count == 3)

    let received = Locked<[String]>([])
    func sink(_ number: Int) -> AdapterSignal.Sink {
      AdapterSignal.Sink(show: AdapterSignal.Sink.ShowID(zoneID: "z", number: number)) { signal in
        received.withLock { $0.append("\(number):\(signal)") }
      }
    }
    router.showStarted(tickets.get()[0], placementID: "p", signals: sink(1))
    router.discarded(tickets.get()[1])
    router.availabilityChanged(placementID: "p", available: false)
    // Only the object neither shown nor discarded is withdrawn.
    #expect(withdrawn.get().map(\.kind) == [.availabilityLost])

    #expect(
      router.send(.displayed, placementID: "p", impressionID: "i1")
        == AdapterSignal.Sink.ShowID(zoneID: "z", number: 1))
    router.send(.dismissed, placementID: "p", impressionID: "i1")
    router.showStarted(tickets.get()[2], placementID: "p", signals: sink(2))
    router.send(.displayed, placementID: "p", impressionID: "i2")
    // Show 1's reward arrives after show 2 opened: it still goes to show 1.
    #expect(
      router.send(.rewarded(nil), placementID: "p", impressionID: "i1")
        == AdapterSignal.Sink.ShowID(zoneID: "z", number: 1))
    #expect(received.get() == ["1:displayed", "1:dismissed", "2:displayed", "1:rewarded(nil)"])
    #expect(router.send(.clicked, placementID: "elsewhere") == nil)
  }

  @Test func contentCompletionRoutesALateRewardWithoutImpressionIDsToItsShow() {
    let router = GlobalListenerRouter(availability: .init(scope: .appWide)) { _ in }
    router.started()
    let tickets = Locked<[UInt64]>([])
    let request = AdapterLoadRequest(
      zoneID: "z", placementID: "p", ecpm: 1, reward: AdapterSignal.NetworkReward(type: "c", amount: 1))
    for _ in 1...2 {
      _ = router.load(request) { result in tickets.withLock { $0.append(try! result.get()) } }
    }
    router.availabilityChanged(available: true)
    #expect(tickets.get().count == 2)
    let received = Locked<[String]>([])
    func sink(_ number: Int) -> AdapterSignal.Sink {
      AdapterSignal.Sink(show: AdapterSignal.Sink.ShowID(zoneID: "z", number: number)) { signal in
        received.withLock { $0.append("\(number):\(signal)") }
      }
    }
    let show1 = AdapterSignal.Sink.ShowID(zoneID: "z", number: 1)
    router.showStarted(tickets.get()[0], placementID: "p", signals: sink(1))
    router.send(.displayed, placementID: "p")
    #expect(router.contentCompleted(placementID: "p") == show1)
    router.send(.dismissed, placementID: "p")
    router.showStarted(tickets.get()[1], placementID: "p", signals: sink(2))
    router.send(.displayed, placementID: "p")
    #expect(router.send(.rewarded(nil), placementID: "p") == show1)
    #expect(received.get() == ["1:displayed", "1:dismissed", "2:displayed", "1:rewarded(nil)"])
  }
}

@Suite("Show identity")
struct ShowIdentityTests {
  @Test func eachShowsSinkNamesItsZoneAndShowNumber() throws {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 1)]), zone([item("a", "a1", ecpm: 1)], id: "y")],
      scripts: ["a": ["a1": [.fill(after: .zero)]]])
    for (zoneID, shows) in [("z", 2), ("y", 1)] {
      let ad = try harness.mediator.rewardedAd(zone: zoneID)
      for _ in 1...shows {
        ad.load()
        harness.settle()
        try ad.show(from: HeadlessPresenter())
        harness.settle()
      }
    }
    #expect(
      harness.adapters["a"]?.showIDs == [
        AdapterSignal.Sink.ShowID(zoneID: "z", number: 1), AdapterSignal.Sink.ShowID(zoneID: "z", number: 2),
        AdapterSignal.Sink.ShowID(zoneID: "y", number: 1),
      ])
    #expect(harness.adapters["a"]?.showIDs.map(\.description) == ["z#1", "z#2", "y#1"])
  }
}

/// The `late-signals-reach-their-show` invariant over random sequences: shows of a few placements
/// start, open and end in any order, and callbacks — late ones included — arrive at any time.
@Suite("Global-listener routes: late callbacks reach their own show")
struct GlobalListenerRoutesPropertyTests {
  /// A callback naming its impression reaches that impression's show whenever it arrives, as long
  /// as the show is among the recent ones the routes keep; and a callback without one never
  /// reaches a show that has not opened while an opened show of its placement exists.
  @Test(arguments: 1...300 as ClosedRange<UInt64>)
  func lateCallbacksNeverReachALaterShow(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    let placements = ["p", "q"]
    var routes = GlobalListenerRoutes(capacity: 4)
    _ = routes.started()
    var nextTicket: UInt64 = 1
    /// Every show started, in order: its ticket, placement and impression id once it opened.
    var started: [(ticket: UInt64, placement: String, impression: String?)] = []
    for _ in 0..<40 {
      switch random.next() % 4 {
      case 0:
        // A new show starts on a random placement.
        let placement = placements[Int(random.next() % 2)]
        routes.showStarted(nextTicket, placementID: placement)
        started.append((nextTicket, placement, nil))
        nextTicket += 1
      case 1:
        // The newest unopened show of a placement opens and reports its impression id.
        let placement = placements[Int(random.next() % 2)]
        guard let index = started.lastIndex(where: { $0.placement == placement && $0.impression == nil })
        else { continue }
        let impression = "imp-\(started[index].ticket)"
        let bound = Set(routes.shows.filter { $0.impressionID != nil }.map(\.ticket))
        let before = routes.shows
        let routed = routes.route(.opened, placementID: placement, impressionID: impression)
        // A new impression never takes over a show that already has one.
        #expect(
          routed.map(bound.contains) != true,
          "seed \(seed): \(impression) rebound \(String(describing: routed)) in \(before)")
        guard routed == started[index].ticket else { continue }  // older than the routes keep
        started[index].impression = impression
      case 2:
        // A (possibly late) reward or close of a random opened show, naming its impression.
        let opened = started.indices.filter { started[$0].impression != nil }
        guard let index = opened.randomElement(using: &random) else { continue }
        let show = started[index]
        let routed = routes.route(.afterOpening, placementID: show.placement, impressionID: show.impression)
        let kept = routes.shows.contains { $0.ticket == show.ticket }
        if kept {
          #expect(
            routed == show.ticket,
            "seed \(seed): \(show.impression!)'s callback went to \(String(describing: routed))")
        } else {
          // Its show is no longer kept: the callback goes nowhere rather than to a later show.
          #expect(
            routed == nil,
            "seed \(seed): \(show.impression!)'s late callback went to \(String(describing: routed))")
        }
      default:
        // A callback without an impression id: never to a show of the placement that has not
        // opened, when one of its shows has.
        let placement = placements[Int(random.next() % 2)]
        let openedTickets = Set(
          routes.shows.filter { $0.placementID == placement && $0.opened }.map(\.ticket))
        let routed = routes.route(.afterOpening, placementID: placement)
        if !openedTickets.isEmpty {
          #expect(routed.map(openedTickets.contains) == true, "seed \(seed): routed to an unopened show")
        }
      }
    }
  }
}

/// The `shared-ad-never-double-grants` invariant over random sequences: loads from several zones
/// wait on one placement and share the SDK's one ad; once one of them is shown and the SDK says the
/// placement is no longer available, every other ad object for it is withdrawn, and no callback
/// of the show reaches an ad object that was not shown.
@Suite("Global-listener routes: one SDK ad, several ad objects")
struct GlobalListenerSharedAdPropertyTests {
  @Test(arguments: 1...300 as ClosedRange<UInt64>)
  func aShownSDKAdLeavesNoOtherObjectReady(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    var routes = GlobalListenerRoutes()
    _ = routes.started()
    var ready: Set<UInt64> = []
    var shown: Set<UInt64> = []
    for _ in 0..<40 {
      switch random.next() % 5 {
      case 0, 1:
        // A zone's load; it fills at once when the placement is available.
        let load = routes.addLoad(placementID: "p")
        for case .fill(let ticket) in load.effects { ready.insert(ticket) }
      case 2:
        for case .fill(let ticket) in routes.availabilityChanged(placementID: "p", available: true) {
          ready.insert(ticket)
        }
      case 3:
        // One ready object is shown; the SDK's ad is used up.
        guard let ticket = ready.randomElement(using: &random) else { continue }
        ready.remove(ticket)
        shown.insert(ticket)
        routes.showStarted(ticket, placementID: "p")
        let others = ready
        var withdrawn: Set<UInt64> = []
        for case .withdraw(let lost, _) in routes.availabilityChanged(placementID: "p", available: false) {
          withdrawn.insert(lost)
        }
        #expect(withdrawn == others, "seed \(seed): withdrew \(withdrawn), expected \(others)")
        ready.subtract(withdrawn)
        #expect(routes.loaded["p"] == nil, "seed \(seed): objects still loaded after the SDK's ad was used")
      default:
        // The show's callbacks, without an impression id: only ever to a shown object.
        let callback: GlobalListenerRoutes.Callback = random.chance(0.5) ? .opened : .afterOpening
        if let routed = routes.route(callback, placementID: "p") {
          #expect(shown.contains(routed), "seed \(seed): a callback reached \(routed), never shown")
        }
      }
    }
  }
}
