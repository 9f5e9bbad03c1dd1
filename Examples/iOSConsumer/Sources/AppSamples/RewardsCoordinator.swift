import MediationKit

/// A plain class as the delegate. Conforming to the main-actor `RewardedAd.Delegate` makes it
/// main-actor isolated, in Swift 6 mode and under Xcode 26's default main-actor isolation alike.
final class RewardsCoordinator: RewardedAd.Delegate {
  private let wallet: Wallet
  private(set) var isAdReady = false

  init(wallet: Wallet) { self.wallet = wallet }

  func start(_ ad: RewardedAd) {
    ad.delegate = self
    ad.load()
  }

  func rewardedAd(_ ad: RewardedAd, didReceive event: RewardedAdEvent) {
    switch event {
    case .ready: isAdReady = true
    case .shown, .expired, .failed: isAdReady = false
    case .rewarded(let reward): wallet.credit(reward)
    default: break
    }
  }
}
