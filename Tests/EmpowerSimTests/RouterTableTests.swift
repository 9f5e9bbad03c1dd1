import MediationKit
import Testing

@testable import EmpowerSim

/// `RouterTable`: the adapter's routers by placement id, with the previous lookup remembered.
@Suite struct RouterTableTests {
  let manager = makeManager().0

  func router(_ zoneId: String) -> ZoneRouter {
    ZoneRouter(zoneId: zoneId, slot: manager.slot(zoneId), manager: manager)
  }

  @Test func findsEachPlacementsRouterWhateverTheOrderOfLookups() {
    var table = RouterTable()
    let a = table.add(router("a"))
    let b = table.add(router("b"))
    let c = table.add(router("c"))
    for zoneId in ["a", "a", "b", "a", "c", "c", "b"] {
      let expected = ["a": a, "b": b, "c": c][zoneId]
      #expect(table.router(zoneId) === expected, "\(zoneId)")
    }
    #expect(table.all.count == 3)
  }

  @Test func anUnknownPlacementHasNoRouterAndDoesNotDisturbTheOthers() {
    var table = RouterTable()
    #expect(table.router("a") == nil)
    let a = table.add(router("a"))
    #expect(table.router("b") == nil)
    #expect(table.router("a") === a)
    #expect(table.router("a-longer-than-fifteen-bytes") == nil)
    let long = table.add(router("a-longer-than-fifteen-bytes"))
    #expect(table.router(String(["a-longer-than", "-fifteen-bytes"].joined())) === long)
    #expect(table.router("a") === a)
  }
}
