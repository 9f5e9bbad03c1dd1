import EmpowerSim
import GoogleSim
import MaxSim
import MediationKit
import MediationKitSimulation

/// The networks `mediate` ships with: the simulated Empower, AppLovin MAX and Google AdMob.
public enum BuiltInNetworks {
  /// The built-in network ids.
  public static var allIDs: [NetworkID] { registry().networkIDs }

  /// A new registry holding every built-in network with its default behaviour profile.
  ///
  /// - Parameter serverCallbacks: Where the simulated MAX and Google servers send their
  ///   server-to-server reward callbacks; `nil` (the default) only records them.
  public static func registry(serverCallbacks: (any ServerCallbackSender)? = nil) -> AdapterRegistry {
    let registry = AdapterRegistry()
    for registration in [
      EmpowerNetwork.registration(), MaxNetwork.registration(serverCallbacks: serverCallbacks),
      GoogleNetwork.registration(serverCallbacks: serverCallbacks),
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
