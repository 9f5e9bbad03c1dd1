import Foundation
import MediateCLI
import MediationKit
import MediationKitSimulation
import UnitySim

/// `mediate`, plus the Unity Ads network: the built-in registry with one more registration (its
/// simulated MAX and Google servers sending their callbacks where `mediate run` says).
func networks(serverCallbacks: (any ServerCallbackSender)?) -> AdapterRegistry {
  let registry = BuiltInNetworks.registry(serverCallbacks: serverCallbacks)
  do {
    try registry.register(UnityNetwork.registration())
  } catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(70)
  }
  return registry
}
exit(
  MediateCLI.run(
    Array(CommandLine.arguments.dropFirst()), networks: networks(serverCallbacks:), output: .standard,
    programName: "mediate-unity"))
