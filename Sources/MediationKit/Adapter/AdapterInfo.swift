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
  /// Reports impression-level revenue.
  case impressionRevenue
  /// The network's server calls the publisher to confirm rewards (S2S / SSV).
  case serverSideReward
}
