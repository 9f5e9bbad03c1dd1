import MediationKit

/// The Beacon network's entry point: its id, info and registration.
public enum BeaconNetwork {
  /// The network id line items use: `"beacon"`.
  public static let id: NetworkID = "beacon"

  /// The adapter's network, versions and capabilities.
  public static let info = AdapterInfo(
    id: id, displayName: "Beacon Ads", adapterVersion: "1.0.0", sdkVersion: BeaconAds.version,
    adapterAPIVersion: SemanticVersion(2, 1, 0),
    supportedSDKVersions: SemanticVersion(3, 0)..<SemanticVersion(4, 0),
    capabilities: [.rewarded, .globalListener, .availabilityFlag])

  /// A registration whose factory makes a ``BeaconAdapter`` driving its own ``BeaconAds``, on the
  /// mediator's scheduler and random stream.
  public static func registration(appKey: String = "beacon-app", profile: BeaconProfile = .default)
    -> AdapterRegistry.Registration
  {
    AdapterRegistry.Registration(info: info) { environment in
      BeaconAdapter(
        sdk: BeaconAds(scheduler: environment.scheduler, random: environment.random, profile: profile),
        appKey: appKey)
    }
  }
}
