import MediationKit
import MediationKitSimulation

/// Google AdMob's entry point for MediationKit: its id, info and registration.
public enum GoogleNetwork {
  /// The network id line items refer to: `"google"`.
  public static let id: NetworkID = "google"

  /// What the Google adapter is and supports.
  public static let info = AdapterInfo(
    id: id, displayName: "Google AdMob", adapterVersion: "1.0.0", sdkVersion: MobileAds.sdkVersion,
    adapterAPIVersion: SemanticVersion(2, 1, 0),
    supportedSDKVersions: SemanticVersion(12, 0)..<SemanticVersion(14, 0),
    capabilities: [.rewarded, .bidding, .impressionRevenue, .serverSideReward])

  /// The registration to add to an ``AdapterRegistry``.
  ///
  /// Its factory gives each mediator a ``GoogleAdapter`` with its own ``MobileAds`` on the
  /// mediator's scheduler and random stream.
  /// - Parameters:
  ///   - profile: How the simulated network behaves.
  ///   - wallClockMilliseconds: The wall clock SSV callbacks' `timestamp` comes from; the
  ///     system's by default.
  ///   - serverCallbacks: Where the simulated ad server sends SSV callbacks; `nil` (the default)
  ///     only records them (``MobileAds/simulatedRewardCallbacks``).
  /// - Returns: The registration.
  public static func registration(
    profile: GoogleBehaviorProfile = .default,
    wallClockMilliseconds: @escaping @Sendable () -> Int64 = MediatorOptions.systemWallClock,
    serverCallbacks: (any ServerCallbackSender)? = nil
  ) -> AdapterRegistry.Registration {
    AdapterRegistry.Registration(info: info) { environment in
      GoogleAdapter(
        mobileAds: MobileAds(
          scheduler: environment.scheduler, random: environment.random, profile: profile,
          wallClockMilliseconds: wallClockMilliseconds, serverCallbacks: serverCallbacks))
    }
  }
}
