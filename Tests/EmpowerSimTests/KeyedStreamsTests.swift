import MediationKit
import Testing

@testable import EmpowerSim

/// The manager caches each zone id's keyed-stream root: it must give exactly the streams
/// `SeededRandom.derived(_:_:)` gives, or every seeded figure would change.
@Suite struct KeyedStreamsTests {
  @Test(arguments: ["", "zone-1", "emp-level-complete-high", "é-zone ✓"])
  func matchesDerivedWithAnIndex(label: String) {
    for seed: UInt64 in [0, 1, 0x454D_4131, .max] {
      let root = SeededRandom(seed: seed).derived("empower.load")
      let cached = KeyedStreams(root, label)
      for index: UInt64 in [0, 1, 2, 42, 1_000_003, .max] {
        var expected = root.derived(label, index)
        var actual = cached.stream(index)
        for _ in 0..<4 { #expect(actual.next() == expected.next()) }
      }
    }
  }
}
