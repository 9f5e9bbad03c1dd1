/// Simulation wiring, not vendor API: what a mediation adapter knows about one load that the
/// vendor's `MARewardedAd.load()` has no parameter for.
///
/// Pass it to ``MARewardedAd/load(simulating:)``. The vendor API the guides use is unchanged:
/// a plain ``MARewardedAd/load()`` still works, with its draws keyed by a per-ad-unit counter
/// and its line item and reward taken from the `simulated…Key` extra parameters.
public struct MASimulatedLoad: Sendable, Equatable {
  /// The mediation's auction; the load's fill, error, price and latency are drawn from the SDK's
  /// stream keyed by the ad unit and this id.
  public var auctionID: UInt64
  /// The line item's eCPM in USD, which prices are drawn around; `nil` for
  /// ``MaxBehaviorProfile/defaultECPM``.
  public var lineItemECPM: Double?
  /// The S2S reward amount configured for the ad unit; `nil` for the profile's.
  public var rewardAmount: Int?
  /// The S2S reward label configured for the ad unit; `nil` for the profile's.
  public var rewardLabel: String?
  /// The token of a bid MAX won for this auction: the load redeems it and fills at its price.
  public var bidToken: String?
  /// The ad unit's S2S rewarded callback ("Server Side Callback URL" and event key); `nil` for none.
  public var serverCallback: MASimulatedServerCallbackSettings?

  /// Creates the wiring for one load.
  public init(
    auctionID: UInt64, lineItemECPM: Double? = nil, rewardAmount: Int? = nil, rewardLabel: String? = nil,
    bidToken: String? = nil, serverCallback: MASimulatedServerCallbackSettings? = nil
  ) {
    self.auctionID = auctionID
    self.lineItemECPM = lineItemECPM
    self.rewardAmount = rewardAmount
    self.rewardLabel = rewardLabel
    self.bidToken = bidToken
    self.serverCallback = serverCallback
  }
}
