import MediationKit
import Synchronization

/// `root.derived(label, index)` with each label's part computed once, for the few labels (ad
/// units) an SDK instance draws keyed streams for.
///
/// ``SeededRandom/derived(_:_:)`` mixes the index into the first draw of `derived(label)`; hashing
/// the label on every request is most of its cost, so the first draw is kept per label (at most
/// ``capacity`` labels; others are derived each time). The streams are the same.
final class KeyedStreamCache: Sendable {
  static let capacity = 8

  private let root: SeededRandom
  private let bases = Mutex<[(label: String, base: UInt64)]>([])

  init(_ root: SeededRandom) {
    self.root = root
  }

  /// `root.derived(label, index)`.
  func stream(_ label: String, _ index: UInt64) -> SeededRandom {
    let base = bases.withLock { bases -> UInt64 in
      for entry in bases where entry.label == label { return entry.base }
      var keyed = root.derived(label)
      let base = keyed.next()
      if bases.count < Self.capacity { bases.append((label, base)) }
      return base
    }
    return SeededRandom(seed: base ^ (index &* 0x9E37_79B9_7F4A_7C15))
  }
}
