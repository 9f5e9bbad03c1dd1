import MediationKit
import Testing

@testable import MaxSim

/// The SDK caches each ad unit's keyed-stream root: it must give exactly the streams
/// `SeededRandom.derived(_:_:)` gives, or every seeded figure would change.
@Suite struct KeyedStreamCacheTests {
  @Test func matchesDerivedWithAnIndexBeyondItsCapacityToo() {
    let root = SeededRandom(seed: 7).derived("market")
    let cache = KeyedStreamCache(root)
    let labels = (0..<(KeyedStreamCache.capacity + 3)).map { "unit-\($0)" } + ["", "unit-0", "é ✓"]
    for label in labels {
      for index: UInt64 in [0, 1, 42, .max] {
        var expected = root.derived(label, index)
        var actual = cache.stream(label, index)
        for _ in 0..<4 { #expect(actual.next() == expected.next()) }
      }
    }
  }
}
