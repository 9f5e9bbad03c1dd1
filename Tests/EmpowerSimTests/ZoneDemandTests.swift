import MediationKit
import Testing

@testable import EmpowerSim

/// `ZoneDemand`, the pure bookkeeping behind the adapter's zone lifetime: which transitions leave
/// a zone idle (to be destroyed), and which ads a show may use.
@Suite struct ZoneDemandTests {
  let router: ZoneRouter
  let sink = AdapterSignal.Sink { _ in }

  init() {
    let (manager, _) = makeManager()
    router = ZoneRouter(zoneId: "z", slot: manager.slot("z"), manager: manager)
  }

  func load(_ id: UInt64) -> PendingLoad {
    PendingLoad(ad: EmpowerAd(router: router, id: id)) { _ in }
  }

  /// A zone whose loads `ids` were filled: the core holds their ads.
  func filled(_ ids: UInt64...) -> ZoneDemand {
    var demand = ZoneDemand()
    for id in ids { demand.addLoad(load(id)) }
    _ = demand.fill()
    return demand
  }

  /// Ids of the loads, oldest first.
  func ids(_ loads: WaitingLoads) -> [UInt64] {
    var ids: [UInt64] = []
    loads.forEach { ids.append($0.ad.id) }
    return ids
  }

  @Test func aNewZoneIsIdle() {
    let demand = ZoneDemand()
    #expect(demand.isIdle)
    #expect(demand.pendingLoads == 0 && demand.heldAds == 0 && demand.show == nil)
  }

  @Test func fillHandsEveryWaitingLoadItsAdInLoadOrder() {
    var demand = ZoneDemand()
    for id: UInt64 in [1, 2, 3] { demand.addLoad(load(id)) }
    #expect(demand.pendingLoads == 3)
    let (loads, idle) = demand.fill()
    #expect(ids(loads) == [1, 2, 3])
    #expect(!idle, "the core now holds three ads")
    #expect(demand.pendingLoads == 0 && demand.heldAds == 3)
  }

  @Test func aFillNobodyWaitedForLeavesTheZoneIdle() {
    var demand = ZoneDemand()
    let (loads, idle) = demand.fill()
    #expect(loads.isEmpty && idle)
  }

  @Test func aFailedLoadFailsEveryWaitingLoadAndLeavesTheZoneIdle() {
    var demand = ZoneDemand()
    demand.addLoad(load(1))
    demand.addLoad(load(2))
    let (loads, idle) = demand.failLoads()
    #expect(ids(loads) == [1, 2])
    #expect(idle && demand.pendingLoads == 0)
  }

  @Test func cancellingTheOnlyLoadLeavesTheZoneIdleOnce() {
    var demand = ZoneDemand()
    demand.addLoad(load(1))
    let first = demand.cancelLoad(1)
    let second = demand.cancelLoad(1)
    let unknown = demand.cancelLoad(99)
    #expect(first)
    #expect(!second, "a second cancel changes nothing")
    #expect(!unknown, "an unknown load changes nothing")
  }

  @Test func cancellingOneLoadKeepsTheOthersInOrder() {
    var demand = ZoneDemand()
    for id: UInt64 in [1, 2, 3, 4] { demand.addLoad(load(id)) }
    let idleAfterFirst = demand.cancelLoad(1)
    let idleAfterThird = demand.cancelLoad(3)
    #expect(!idleAfterFirst && !idleAfterThird)
    let (loads, _) = demand.fill()
    #expect(ids(loads) == [2, 4])
  }

  @Test func cancellingAfterTheFillChangesNothing() {
    var demand = filled(1)
    let idle = demand.cancelLoad(1)
    #expect(!idle)
    #expect(demand.heldAds == 1)
  }

  @Test func aShownAdKeepsTheZoneUntilTheCoreDiscardsIt() {
    var demand = filled(1)
    let start = demand.beginShow(1, signals: sink)
    #expect(start == .show)
    #expect(demand.show != nil)
    let (signals, idleAfterShow) = demand.endShow()
    #expect(signals != nil && demand.show == nil)
    #expect(!idleAfterShow, "the core still holds the shown ad")
    #expect(demand.heldAds == 1)
    let idleAfterDiscard = demand.discard(1)
    #expect(idleAfterDiscard)
    #expect(demand.heldAds == 0)
  }

  @Test func anAdDiscardedDuringItsShowFreesTheZoneWhenTheShowEnds() {
    var demand = filled(1)
    _ = demand.beginShow(1, signals: sink)
    let idleAfterDiscard = demand.discard(1)
    #expect(!idleAfterDiscard, "the show is still on screen")
    let (_, idleAfterShow) = demand.endShow()
    #expect(idleAfterShow)
  }

  @Test func anAdShowsOnceAndNotAfterItsDiscard() {
    var demand = filled(1, 2)
    let first = demand.beginShow(1, signals: sink)
    _ = demand.endShow()
    let again = demand.beginShow(1, signals: sink)
    #expect(first == .show && again == .alreadyUsed)
    let idleAfterDiscardingTwo = demand.discard(2)
    #expect(!idleAfterDiscardingTwo, "the shown ad 1 is still held")
    let discarded = demand.beginShow(2, signals: sink)
    #expect(discarded == .alreadyUsed)
    let idleAfterDiscardingOne = demand.discard(1)
    #expect(idleAfterDiscardingOne)
  }

  @Test func aSecondShowWhileOneIsOnScreenIsBusyAndUsesTheAdUp() {
    var demand = filled(1, 2)
    let first = demand.beginShow(1, signals: sink)
    let second = demand.beginShow(2, signals: sink)
    let secondAgain = demand.beginShow(2, signals: sink)
    #expect(first == .show && second == .busy && secondAgain == .alreadyUsed)
    let (_, idleAfterShow) = demand.endShow()
    let idleAfterOne = demand.discard(1)
    let idleAfterTwo = demand.discard(2)
    #expect(!idleAfterShow && !idleAfterOne && idleAfterTwo)
  }

  @Test func aCoreThatNeverDiscardsOnlyGrowsACount() {
    var demand = ZoneDemand()
    for id in UInt64(1)...1_000 {
      demand.addLoad(load(id))
      _ = demand.fill()
      _ = demand.beginShow(id, signals: sink)
      _ = demand.endShow()
    }
    #expect(demand.heldAds == 1_000 && !demand.isIdle)
    #expect(demand.pendingLoads == 0)
  }

  /// A show used the zone's one ad: every other unshown ad goes with it, counted as used until the
  /// core discards it, and a later withdrawal finds nothing more.
  @Test func withdrawingTheUnshownAdsCountsThemUsedUntilDiscarded() {
    var demand = ZoneDemand()
    let withdrawn = Recorded<UInt64>()
    for id: UInt64 in [1, 2, 3] {
      var pending = load(id)
      pending.sink = AdapterSignal.Sink.ignored.replacingWithdrawals { _ in withdrawn.append(id) }
      demand.addLoad(pending)
    }
    _ = demand.fill()
    #expect(demand.beginShow(1, signals: sink) == .show)
    let gone = demand.withdrawUnshown()
    for sink in gone { sink.withdraw(AdapterWithdrawal(.invalidated, message: "used")) }
    #expect(withdrawn.all.sorted() == [2, 3])
    #expect(demand.withdrawUnshown().isEmpty)
    #expect(demand.heldAds == 3)
    #expect(demand.beginShow(2, signals: sink) == .alreadyUsed, "a withdrawn ad does not show")
    _ = demand.endShow()
    let idle = [demand.discard(2), demand.discard(3), demand.discard(1)]
    #expect(idle == [false, false, true])
  }

  @Test func poppingWaitingLoadsHandsThemOverOldestFirst() {
    var loads = WaitingLoads()
    for id: UInt64 in [1, 2, 3] { loads.append(load(id)) }
    var popped: [UInt64] = []
    while let load = loads.popFirst() { popped.append(load.ad.id) }
    #expect(popped == [1, 2, 3])
    #expect(loads.isEmpty && loads.popFirst() == nil)
  }

  @Test func abandoningDropsEveryWaitingLoad() {
    var demand = ZoneDemand()
    demand.addLoad(load(1))
    demand.addLoad(load(2))
    let abandoned = demand.abandonLoads()
    #expect(ids(abandoned) == [1, 2])
    #expect(demand.pendingLoads == 0 && demand.isIdle)
  }

  @Test func waitingLoadsKeepTheirOrderAcrossRemovals() {
    var loads = WaitingLoads()
    #expect(loads.isEmpty && loads.count == 0)
    for id: UInt64 in [1, 2, 3] { loads.append(load(id)) }
    #expect(loads.count == 3)
    let removedFirst = loads.remove(1)
    #expect(removedFirst && ids(loads) == [2, 3])
    let removedAgain = loads.remove(1)
    #expect(!removedAgain)
    loads.append(load(4))
    let removedMiddle = loads.remove(3)
    #expect(removedMiddle && ids(loads) == [2, 4])
    let removedRest = loads.remove(2) && loads.remove(4)
    #expect(removedRest && loads.isEmpty)
  }
}
