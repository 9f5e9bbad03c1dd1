import EmpowerSim
import Foundation
import MediationKit

/// The app's mediator: one per app, on the main queue, so events and adapters run on the main
/// thread.
enum AppAds {
  static func makeMediator(configURL: URL) throws -> Mediator {
    let registry = AdapterRegistry.shared
    try registry.register(EmpowerNetwork.registration())  // your networks' adapters
    let config = try MediationConfig.load(contentsOf: configURL, knownNetworks: registry.networkIDs)
    return try Mediator(config: config, registry: registry, scheduler: DispatchScheduler.main)
  }
}

/// The app's coins: each reward credited once, by its transaction id (a redelivery adds nothing).
final class Wallet {
  private(set) var coins = 0
  private var credited: Set<String> = []

  func credit(_ reward: Reward) {
    guard credited.insert(reward.transactionID).inserted else { return }
    coins += reward.amount
  }
}
