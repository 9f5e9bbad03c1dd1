import MediationKit
import Testing

/// `Mediator.ZoneEvent` and `AdapterLoadRequest` keep their fields in one shared box; they must still
/// behave as plain structs: a changed copy leaves the original alone, and equality is by fields.
@Suite("Value semantics of boxed values")
struct ValueSemanticsTests {
  private func event(_ zoneID: String = "z", arms: [String: String] = [:]) -> Mediator.ZoneEvent {
    Mediator.ZoneEvent(
      time: .milliseconds(5), zoneID: zoneID, network: NetworkID("max"), event: .loading, experimentArms: arms
    )
  }

  @Test func aChangedZoneEventCopyLeavesTheOriginalAlone() {
    let original = event(arms: ["e": "a"])
    var copy = original
    copy.time = .seconds(9)
    copy.zoneID = "other"
    copy.network = nil
    copy.event = .closed
    copy.experimentArms = ["e": "b"]
    #expect(original.time == .milliseconds(5))
    #expect(original.zoneID == "z")
    #expect(original.network == NetworkID("max"))
    #expect(original.event == .loading)
    #expect(original.experimentArms == ["e": "a"])
    #expect(copy.time == .seconds(9) && copy.zoneID == "other" && copy.network == nil)
    #expect(copy.event == .closed && copy.experimentArms == ["e": "b"])
  }

  @Test func zoneEventsAreEqualByTheirFields() {
    #expect(event() == event())
    #expect(event("a") != event("b"))
    #expect(event(arms: ["e": "a"]) != event(arms: ["e": "b"]))
    var moved = event()
    moved.time = .milliseconds(6)
    #expect(moved != event())
    moved.time = .milliseconds(5)
    #expect(moved == event())
  }

  @Test func aChangedLoadRequestCopyLeavesTheOriginalAlone() {
    let original = AdapterLoadRequest(
      zoneID: "z", placementID: "p", ecpm: 2, reward: AdapterSignal.NetworkReward(type: "coins", amount: 10),
      auctionID: 3)
    var copy = original
    copy.zoneID = "z2"
    copy.placementID = "p2"
    copy.ecpm = 4
    copy.reward = AdapterSignal.NetworkReward(type: "gems", amount: 1)
    copy.auctionID = 7
    copy.privacy.isChildDirected = true
    copy.bid = AdapterBid(price: 5, token: "t")
    #expect(original.zoneID == "z" && original.placementID == "p" && original.ecpm == 2)
    #expect(
      original.reward == AdapterSignal.NetworkReward(type: "coins", amount: 10) && original.auctionID == 3)
    #expect(!original.privacy.isChildDirected && original.bid == nil)
    #expect(copy.zoneID == "z2" && copy.placementID == "p2" && copy.ecpm == 4 && copy.auctionID == 7)
    #expect(
      copy.reward == AdapterSignal.NetworkReward(type: "gems", amount: 1) && copy.privacy.isChildDirected)
    #expect(copy.bid == AdapterBid(price: 5, token: "t"))
  }
}
