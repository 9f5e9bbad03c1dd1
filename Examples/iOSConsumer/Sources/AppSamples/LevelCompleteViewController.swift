import MediationKit
import MediationKitUI
import UIKit

/// A UIKit screen as the ad's delegate: its events arrive on the main actor.
final class LevelCompleteViewController: UIViewController, RewardedAd.Delegate {
  private let ad: RewardedAd
  private let wallet: Wallet

  init(ad: RewardedAd, wallet: Wallet) {
    self.ad = ad
    self.wallet = wallet
    super.init(nibName: nil, bundle: nil)
  }

  required init?(coder: NSCoder) { fatalError("LevelCompleteViewController is made in code") }

  override func viewDidLoad() {
    super.viewDidLoad()
    ad.delegate = self
    ad.load()
  }

  func watchAdTapped() {
    guard ad.isReady else { return }
    do {
      try ad.show(from: self)
    } catch {
      print("No ad to show: \(error)")
    }
  }

  func rewardedAd(_ ad: RewardedAd, didReceive event: RewardedAdEvent) {
    if case .rewarded(let reward) = event {
      wallet.credit(reward)
      ad.acknowledge(reward)  // with a reward ledger: never delivered again (written off the main thread)
    }
  }
}
