/// What an adapter is: its network, versions and what it can do.
///
/// The versions decide whether the adapter fits (``AdapterCompatibility``):
/// ``adapterAPIVersion`` against this MediationKit's ``AdapterCompatibility/coreAPIVersion``, and the linked SDK's
/// ``sdkVersion`` against ``supportedSDKVersions``. ``AdapterRegistry/register(_:)`` refuses an
/// adapter that does not fit.
public struct AdapterInfo: Sendable, Equatable {
  /// The network's identifier, the key it is registered under.
  public var id: NetworkID
  /// A human-readable name, e.g. "AppLovin MAX".
  public var displayName: String
  /// The version of the adapter (the translation layer).
  public var adapterVersion: String
  /// The version of the network SDK the adapter is linked with, as the SDK reports it at run time
  /// (e.g. `ALSdk.version`), so the registry checks the SDK the app actually ships.
  public var sdkVersion: String
  /// The MediationKit adapter API the adapter was built against: write the literal version of
  /// the MediationKit you developed and tested it with (not ``AdapterCompatibility/coreAPIVersion``, which would
  /// always match).
  public var adapterAPIVersion: SemanticVersion
  /// The network SDK versions the adapter supports, e.g. `SemanticVersion(13, 0)..<SemanticVersion(14, 0)`.
  public var supportedSDKVersions: Range<SemanticVersion>
  /// Features the adapter supports.
  public var capabilities: Set<AdapterInfo.Capability>

  /// - Parameters:
  ///   - id: The network's identifier.
  ///   - displayName: A human-readable name.
  ///   - adapterVersion: The adapter's own version.
  ///   - sdkVersion: The linked network SDK's version, read from the SDK.
  ///   - adapterAPIVersion: The MediationKit adapter API the adapter was built against.
  ///   - supportedSDKVersions: The SDK versions the adapter supports.
  ///   - capabilities: Features the adapter supports.
  public init(
    id: NetworkID, displayName: String, adapterVersion: String, sdkVersion: String,
    adapterAPIVersion: SemanticVersion, supportedSDKVersions: Range<SemanticVersion>,
    capabilities: Set<AdapterInfo.Capability> = [.rewarded]
  ) {
    self.id = id
    self.displayName = displayName
    self.adapterVersion = adapterVersion
    self.sdkVersion = sdkVersion
    self.adapterAPIVersion = adapterAPIVersion
    self.supportedSDKVersions = supportedSDKVersions
    self.capabilities = capabilities
  }
}

extension AdapterInfo {
  /// A feature an adapter may support.
  public enum Capability: String, Sendable, Hashable, CaseIterable, Codable {
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
    /// The SDK has one app-wide listener whose show callbacks name a placement, not a show
    /// (ironSource/LevelPlay's classic rewarded video), so the adapter decides which show each
    /// callback belongs to — ``GlobalListenerRouter`` does. `AdapterConformance` then requires its
    /// late-callback check: run without a `LateCallbacks` hook, the report fails.
    case globalListener
    /// The SDK reports an availability flag instead of completing each load, so several loads may
    /// stand for one SDK ad. `AdapterConformance` then requires its late-callback check, as for
    /// ``globalListener``.
    case availabilityFlag
  }
}
