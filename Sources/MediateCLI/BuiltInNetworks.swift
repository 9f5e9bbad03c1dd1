import MediationKit

/// The networks `mediate` ships with. (Simulated SDKs are added as they land.)
public enum BuiltInNetworks {
  /// The built-in network ids.
  public static var allIDs: [NetworkID] { registry().networkIDs }

  /// A new registry holding every built-in network.
  public static func registry() -> AdapterRegistry {
    AdapterRegistry()
  }
}
