import MediationKit
import MediationKitUI
import UIKit

/// async/await: load, show, and read how the show ended.
final class ShopViewController: UIViewController {
  private let ad: RewardedAd
  private let wallet: Wallet

  init(ad: RewardedAd, wallet: Wallet) {
    self.ad = ad
    self.wallet = wallet
    super.init(nibName: nil, bundle: nil)
  }

  required init?(coder: NSCoder) { fatalError("ShopViewController is made in code") }

  func watchAdTapped() {
    Task {
      do {
        let info = try await ad.load()  // at once when an ad is ready
        print("Showing \(info.network)'s ad")
        switch try await ad.show(from: self) {
        case .rewarded(let reward):
          wallet.credit(reward)
          // In async code, the awaiting form: the task waits for the ledger queue, the main thread
          // does not. If the write fails, the reward is redelivered on a later start.
          _ = try? await ad.acknowledge(reward)
        case .skipped:
          print("Closed early: no reward")
        case .failed(let error):
          print("The network could not show it: \(error)")
        }
      } catch {
        print("No ad: \(error)")
      }
    }
  }
}
