/// What an adapter is: its network, versions and what it can do.
public struct AdapterInfo: Sendable, Equatable {
  /// The network's identifier, the key it is registered under.
  public var id: NetworkID
  /// A human-readable name, e.g. "AppLovin MAX".
  public var displayName: String
  /// The version of the adapter (the translation layer).
  public var adapterVersion: String
  /// The version of the network SDK the adapter drives.
  public var sdkVersion: String
  /// Features the adapter supports.
  public var capabilities: Set<AdapterCapability>

  public init(
    id: NetworkID, displayName: String, adapterVersion: String, sdkVersion: String,
    capabilities: Set<AdapterCapability> = [.rewarded]
  ) {
    self.id = id
    self.displayName = displayName
    self.adapterVersion = adapterVersion
    self.sdkVersion = sdkVersion
    self.capabilities = capabilities
  }
}

/// A feature an adapter may support.
public enum AdapterCapability: String, Sendable, Hashable, CaseIterable, Codable {
  /// Loads and shows rewarded ads.
  case rewarded
  /// Answers bid requests (real-time bidding).
  case bidding
  /// Reports impression-level revenue (``AdapterSignal/revenuePaid(_:)``) for every shown ad.
  ///
  /// Declaring it switches the core's own estimate off: the core waits for the network's figure
  /// until the show's terminal event, and only if none came publishes its estimate (the winning
  /// price / 1000) with a `missing_revenue` diagnostic. Without it, the core publishes its
  /// estimate just before the show's next event after `shown` (a click, the reward or the end),
  /// unless the network's figure came first.
  ///
  /// Either way a shown impression gets exactly one `revenue_paid` — the network's figure when it
  /// reports one in time, else the core's estimate — so an app forwarding revenue to analytics
  /// (impression-level revenue data) counts each impression once. A figure that arrives after the
  /// impression's revenue was published is a `duplicate_signal` diagnostic, never a second event.
  case impressionRevenue
  /// The network's server calls the publisher to confirm rewards (S2S / SSV).
  case serverSideReward
}
