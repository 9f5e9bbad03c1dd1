import MediationKit

/// The Unity Ads network's entry point: its id, info and registration.
///
/// ```swift
/// let registry = BuiltInNetworks.registry()
/// try registry.register(UnityNetwork.registration())
/// ```
public enum UnityNetwork {
  /// The network id line items use: `"unity"`.
  public static let id: NetworkID = "unity"

  /// The adapter's network, versions and capabilities.
  public static let info = AdapterInfo(
    id: id, displayName: "Unity Ads", adapterVersion: "1.0.0", sdkVersion: UnityAdsSDK.sdkVersion,
    adapterAPIVersion: SemanticVersion(2, 1, 0),
    supportedSDKVersions: SemanticVersion(4, 0)..<SemanticVersion(5, 0),
    capabilities: [.rewarded])

  /// A registration whose factory makes a ``UnityAdapter`` driving its own ``UnityAdsSDK``, built
  /// on the mediator's scheduler and random stream.
  ///
  /// - Parameters:
  ///   - gameId: The Unity game id the SDK is initialized with.
  ///   - profile: How the simulated network behaves.
  public static func registration(
    gameId: String = "1234567", profile: UnityBehaviorProfile = .default
  ) -> AdapterRegistry.Registration {
    AdapterRegistry.Registration(info: info) { environment in
      UnityAdapter(
        sdk: UnityAdsSDK(scheduler: environment.scheduler, random: environment.random, profile: profile),
        gameId: gameId)
    }
  }
}
