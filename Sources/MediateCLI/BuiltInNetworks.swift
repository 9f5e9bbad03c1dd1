import EmpowerSim
import GoogleSim
import MaxSim
import MediationKit

/// The networks `mediate` ships with: the simulated Empower, AppLovin MAX and Google AdMob.
public enum BuiltInNetworks {
  /// The built-in network ids.
  public static var allIDs: [NetworkID] { registry().networkIDs }

  /// A new registry holding every built-in network with its default behaviour profile.
  public static func registry() -> AdapterRegistry {
    let registry = AdapterRegistry()
    for registration in [
      EmpowerNetwork.registration(), MaxNetwork.registration(), GoogleNetwork.registration(),
    ] {
      do {
        try registry.register(registration)
      } catch {
        // Pinned by a test: the ids are distinct and the adapters, built with this package, fit it.
        preconditionFailure("built-in network ids are distinct and their adapters fit: \(error)")
      }
    }
    return registry
  }
}
