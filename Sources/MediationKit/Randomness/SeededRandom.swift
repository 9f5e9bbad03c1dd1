import Foundation

/// A fast, seedable pseudo-random generator (SplitMix64): the same seed gives the same sequence
/// on every platform and run.
///
/// Every random draw in MediationKit and the simulated networks goes through one of these, so a
/// run is reproducible from its seed. Use ``derived(_:)`` to give each component its own stream,
/// so adding a draw in one network does not shift another network's draws.
public struct SeededRandom: RandomNumberGenerator, Sendable {
  private(set) var state: UInt64

  /// Creates a generator from `seed`.
  public init(seed: UInt64) {
    self.state = seed
  }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A new, independent generator whose seed mixes this one's with `label`.
  ///
  /// Deterministic: the same generator and label always give the same stream.
  public func derived(_ label: String) -> SeededRandom {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a, stable across processes (unlike Hasher)
    for byte in label.utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }
    var mixer = SeededRandom(seed: state ^ hash)
    return SeededRandom(seed: mixer.next())
  }

  /// A new, independent generator keyed by `label` and `index`, e.g. a placement and an auction
  /// id: the stream for one request, whatever was drawn before it.
  public func derived(_ label: String, _ index: UInt64) -> SeededRandom {
    Self.keyed(base: keyBase(label), index: index)
  }

  /// The part of ``derived(_:_:)`` that depends on `label` only, to compute once per label.
  public func keyBase(_ label: String) -> UInt64 {
    var keyed = derived(label)
    return keyed.next()
  }

  /// ``derived(_:_:)`` from a label's ``keyBase(_:)`` and an index.
  public static func keyed(base: UInt64, index: UInt64) -> SeededRandom {
    SeededRandom(seed: base ^ (index &* 0x9E37_79B9_7F4A_7C15))
  }

  /// A uniform draw in `0..<1`.
  public mutating func nextUnit() -> Double {
    Double(next() >> 11) * 0x1.0p-53
  }

  /// `true` with probability `probability` (clamped to 0...1).
  public mutating func chance(_ probability: Double) -> Bool {
    nextUnit() < probability
  }

  /// A log-normal draw with the given median and spread (sigma of the underlying normal).
  public mutating func logNormal(median: Double, sigma: Double) -> Double {
    median * exp(sigma * nextGaussian())
  }

  /// A standard normal draw (Box–Muller).
  public mutating func nextGaussian() -> Double {
    let u1 = max(nextUnit(), .leastNonzeroMagnitude)
    let u2 = nextUnit()
    return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
  }

  /// A duration drawn uniformly between `range.lowerBound` and `range.upperBound`.
  public mutating func duration(in range: ClosedRange<Duration>) -> Duration {
    let low = range.lowerBound.seconds
    let high = range.upperBound.seconds
    return .milliseconds(roundingSeconds: low + (high - low) * nextUnit())
  }

  /// A random identifier in UUID format (version 4 layout), drawn from this generator.
  public mutating func uuidString() -> String {
    let high = next()
    let low = (next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // RFC 4122 variant
    let versioned = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000  // version 4
    // Written straight into the string's storage: no digit table, byte array or word list to
    // allocate per id.
    return String(unsafeUninitializedCapacity: 36) { buffer in
      var position = 0
      for half in 0..<2 {
        let word = half == 0 ? versioned : low
        for index in 0..<16 {
          if position == 8 || position == 13 || position == 18 || position == 23 {
            buffer[position] = UInt8(ascii: "-")
            position += 1
          }
          let nibble = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * index)) & 0xF
          buffer[position] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") - 10 + nibble
          position += 1
        }
      }
      return position
    }
  }
}
