import Foundation
import MediateCLI
import MediationKit
import UnitySim

/// `mediate`, plus the Unity Ads network: the built-in registry with one more registration.
let registry = BuiltInNetworks.registry()
do {
  try registry.register(UnityNetwork.registration())
} catch {
  FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
  exit(70)
}
exit(
  MediateCLI.run(
    Array(CommandLine.arguments.dropFirst()), registry: registry, output: .standard,
    programName: "mediate-unity"))
