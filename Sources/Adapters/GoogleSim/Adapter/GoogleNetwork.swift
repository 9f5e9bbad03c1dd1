import MediationKit

/// Google AdMob's entry point for MediationKit: its id, info and registration.
public enum GoogleNetwork {
  /// The network id line items refer to: `"google"`.
  public static let id: NetworkID = "google"

  /// What the Google adapter is and supports.
  public static let info = AdapterInfo(
    id: id, displayName: "Google AdMob", adapterVersion: "1.0.0", sdkVersion: MobileAds.sdkVersion,
    adapterAPIVersion: SemanticVersion(1, 1, 0),
    supportedSDKVersions: SemanticVersion(12, 0)..<SemanticVersion(14, 0),
    capabilities: [.rewarded, .bidding, .impressionRevenue, .serverSideReward])

  /// The registration to add to an ``AdapterRegistry``.
  ///
  /// Its factory gives each mediator a ``GoogleAdapter`` with its own ``MobileAds`` on the
  /// mediator's scheduler, random stream and wall clock; the simulated ad server sends SSV
  /// callbacks to the mediator's ``MediatorOptions/serverCallbacks``.
  /// - Parameter profile: How the simulated network behaves.
  /// - Returns: The registration.
  public static func registration(profile: GoogleBehaviorProfile = .default) -> AdapterRegistration {
    AdapterRegistration(info: info) { environment in
      GoogleAdapter(
        mobileAds: MobileAds(
          scheduler: environment.scheduler, random: environment.random, profile: profile,
          wallClockMilliseconds: environment.wallClockMilliseconds,
          serverCallbacks: environment.serverCallbacks))
    }
  }
}
