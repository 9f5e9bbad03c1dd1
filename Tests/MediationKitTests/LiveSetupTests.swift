import Testing

@testable import MediationKit

/// A zone's setup, as ``Mediator/apply(_:)`` rebuilds it: what carries over and what the kill
/// switch marks.
@Suite("Live configuration: zone setups")
struct LiveSetupTests {
  static func learning(_ items: [ZoneConfig.LineItem]) -> ZoneConfig {
    var zone = zone(items)
    zone.autoECPM = true
    return zone
  }

  @Test func learnedECPMsCarryOverWhileThePlanStaysTheSame() {
    let items = [item("a", "a1", ecpm: 9), item("b", "b1", ecpm: 5)]
    let first = ZoneSetup(
      zone: Self.learning(items), in: MediationConfig(zones: [Self.learning(items)]), adapters: [:],
      infos: [:], seed: 1)
    #expect(first.initialLearnedECPMs != nil)
    let same = ZoneSetup(
      zone: Self.learning(items), in: MediationConfig(zones: [Self.learning(items)], version: "v2"),
      adapters: [:], infos: [:], seed: 1)
    #expect(same.keepsLearnedECPMs(of: first))
    let changedItems = [item("a", "a1", ecpm: 9), item("b", "b1", ecpm: 6)]
    let changed = ZoneSetup(
      zone: Self.learning(changedItems), in: MediationConfig(zones: [Self.learning(changedItems)]),
      adapters: [:], infos: [:], seed: 1)
    #expect(changed.initialLearnedECPMs != nil)
    #expect(!changed.keepsLearnedECPMs(of: first))
    var notLearning = Self.learning(items)
    notLearning.autoECPM = false
    let off = ZoneSetup(
      zone: notLearning, in: MediationConfig(zones: [notLearning]), adapters: [:], infos: [:], seed: 1)
    #expect(off.initialLearnedECPMs == nil)
    #expect(!off.keepsLearnedECPMs(of: first))
  }

  @Test func theKillSwitchMarksEntriesWithTheirReasons() {
    var off = item("b", "b1", ecpm: 5)
    off.disabled = true
    let zone = zone([item("a", "a1", ecpm: 9), off, item("c", "c1", ecpm: 1)])
    let setup = ZoneSetup(
      zone: zone, in: MediationConfig(zones: [zone], version: "7", disabledNetworks: ["a"]), adapters: [:],
      infos: [:],
      seed: 1)
    #expect(
      setup.plan.entries.map(\.switchedOff?.reason) == [
        "network 'a' switched off by configuration '7' (disabledNetworks)",
        "line item switched off by configuration '7' (disabled: true)", nil,
      ])
    #expect(setup.plan.entries.map(\.switchedOff?.fate) == [.disabled, .disabled, nil])
  }
}
