/// `root.derived(label, index)` with each label's part computed once, for the few labels (ad units,
/// placements) a simulated SDK draws keyed streams for.
///
/// Hashing the label is most of the cost of ``SeededRandom/derived(_:_:)``, so the label's
/// ``SeededRandom/keyBase(_:)`` is kept for up to ``capacity`` labels (others are derived each
/// time). The streams are exactly those of `derived(_:_:)`.
package final class KeyedStreamCache: Sendable {
  /// How many labels are remembered.
  package static let capacity = 8

  private let root: SeededRandom
  private let bases = Locked<[(label: String, base: UInt64)]>([])

  /// Creates a cache of `root`'s keyed streams.
  package init(_ root: SeededRandom) {
    self.root = root
  }

  /// `root.derived(label, index)`.
  package func stream(_ label: String, _ index: UInt64) -> SeededRandom {
    let base = bases.withLock { bases -> UInt64 in
      for entry in bases where entry.label == label { return entry.base }
      let base = root.keyBase(label)
      if bases.count < Self.capacity { bases.append((label, base)) }
      return base
    }
    return SeededRandom.keyed(base: base, index: index)
  }
}
