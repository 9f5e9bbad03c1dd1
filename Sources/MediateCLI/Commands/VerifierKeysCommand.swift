import Foundation
import GoogleSim
import MediationKit
import MediationKitSimulation
import MediationKitTesting

/// `mediate verifier-keys --network google [--seed N]`: the simulated Google ad server's SSV
/// verifier keys, in Google's `verifier-keys.json` format, for the seed a run used — so a
/// publisher can check what `mediate` sent with `mediate verify-callback --network google --keys
/// FILE URL`.
///
/// The key comes from the same place as in a run: a mediator with that seed makes the Google
/// adapter, whose simulated SDK derives its signing key from its own random stream.
struct VerifierKeysCommand {
  let context: CommandContext

  init(_ context: CommandContext) { self.context = context }

  func run() throws(CLIError) -> Int32 {
    try context.noPositional(.verifierKeys)
    guard let network = context.arguments.value(.keysNetwork) else {
      throw .usage("missing --network; networks with verifier keys: google", .verifierKeys)
    }
    switch network.lowercased() {
    case GoogleNetwork.id.rawValue:
      break
    case "max":
      throw .usage(
        "max publishes no keys: its callbacks carry an event token keyed with the ad unit's event key "
          + "(check them with 'mediate verify-callback --network max --key KEY')", .verifierKeys)
    default:
      throw .usage("unknown network '\(network)'; networks with verifier keys: google", .verifierKeys)
    }
    let seed = try RunCommand(context).seed()
    guard context.registry.networkIDs.contains(GoogleNetwork.id) else {
      throw .usage("no 'google' adapter is registered in this tool", .verifierKeys)
    }
    let zone = ZoneConfig(
      id: "verifier_keys", reward: ZoneConfig.RewardConfig(type: "coins", amount: 1),
      lineItems: [
        ZoneConfig.LineItem(network: GoogleNetwork.id, placementId: "verifier-keys", priority: 0, ecpm: 1)
      ],
      autoReload: false)
    let made = MadeAdapters()
    do {
      _ = try Mediator(
        config: MediationConfig(zones: [zone]),
        registry: made.recording(try context.registry.subset([GoogleNetwork.id])),
        scheduler: VirtualScheduler(), options: MediatorOptions(seed: seed))
    } catch {
      throw .usage(error.message, .verifierKeys)
    }
    guard let google = made[GoogleNetwork.id] as? GoogleAdapter else {
      throw .usage(
        "the 'google' adapter registered in this tool is not the simulated Google SDK; it has no keys",
        .verifierKeys)
    }
    context.output.out(String(decoding: google.mobileAds.simulatedVerifierKeysJSON(), as: UTF8.self))
    return ExitCode.success
  }
}
