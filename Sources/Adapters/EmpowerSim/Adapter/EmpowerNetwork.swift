import MediationKit

/// The Empower network's entry point: its id, info and registration.
///
/// ```swift
/// let registry = try AdapterRegistry([EmpowerNetwork.registration()])
/// ```
public enum EmpowerNetwork {
  /// The network id line items use: `"empower"`.
  public static let id: NetworkID = "empower"

  /// The adapter's network, versions and capabilities.
  public static let info = AdapterInfo(
    id: id, displayName: "Empower", adapterVersion: "1.0.0", sdkVersion: EMAManager.sdkVersion,
    adapterAPIVersion: SemanticVersion(2, 1, 0),
    supportedSDKVersions: SemanticVersion(3, 0)..<SemanticVersion(4, 0),
    capabilities: [.rewarded, .bidding])

  /// A registration whose factory makes an ``EmpowerAdapter`` driving its own ``EMAManager``,
  /// built on the mediator's scheduler and random stream.
  ///
  /// - Parameter profile: How the simulated network behaves.
  /// - Returns: The registration to add to an ``AdapterRegistry``.
  public static func registration(profile: EmpowerBehaviorProfile = .default) -> AdapterRegistry.Registration
  {
    AdapterRegistry.Registration(info: info) { environment in
      EmpowerAdapter(
        manager: EMAManager(scheduler: environment.scheduler, random: environment.random, profile: profile))
    }
  }
}
