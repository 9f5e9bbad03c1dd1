import MediationKit

/// A view model on the event stream (iOS 16, no Observation needed).
@MainActor
final class RewardsViewModel {
  private(set) var status = "Loading an ad…"
  private let wallet: Wallet

  init(wallet: Wallet) { self.wallet = wallet }

  /// Loads `ad` and follows its events until the task running this is cancelled (e.g. a
  /// SwiftUI `.task`).
  func follow(_ ad: RewardedAd) async {
    let events = ad.events  // subscribed before the load starts: no event is missed
    startLoading(ad)
    for await event in events {
      switch event {
      case .ready: status = "Watch an ad for 100 coins"
      case .failed(let error): status = "No ad right now (\(error.code.rawValue))"
      case .rewarded(let reward): wallet.credit(reward)
      default: break
      }
    }
  }

  /// Starts a load without waiting for it: in an async function `ad.load()` is the awaiting form.
  private func startLoading(_ ad: RewardedAd) { ad.load() }
}
