import MediationKit

/// What a simulated network would answer for one request: whether it fills and at what price.
public struct SimulatedQuote: Sendable, Equatable {
  /// Whether the network would fill (or bid).
  public var fills: Bool
  /// The price it would fill or bid at, in USD per thousand impressions.
  public var ecpm: Double

  public init(fills: Bool, ecpm: Double) {
    self.fills = fills
    self.ecpm = ecpm
  }
}

/// An adapter over a simulated SDK that can say, without side effects, what its SDK would answer
/// for a request — the simulator's oracle.
///
/// The answer must be a pure function of the adapter's seed and the request's placement id,
/// auction id and privacy settings, and it must be exactly what a real ``RewardedAdapter/load(_:completion:)``
/// (and ``RewardedAdapter/bid(_:completion:)``) of that request would do: the simulated SDK draws
/// its fill and price for a load from the same keyed random stream. So the oracle's "best price
/// any participating network would have filled at" is computed under the same seeded draws as the
/// real run, whatever order the networks were asked in.
public protocol SimulatedNetwork: RewardedAdapter {
  /// What the simulated SDK would answer for `request` (its fill decision and price).
  func quote(_ request: AdapterLoadRequest) -> SimulatedQuote
}
