import MediationKit
import MediationKitUI
import SwiftUI

/// SwiftUI: an `@Observable` model (iOS 17) and the `.rewardedAd` modifier, which presents from
/// the top view controller and grants through the model.
@available(iOS 17, *)
struct StoreView: View {
  @State var model: RewardedAdModel
  @State private var isWatching = false

  var body: some View {
    Button(model.isReady ? "Watch an ad for 100 coins" : "Loading an ad…") { isWatching = true }
      .disabled(!model.isReady)
      .rewardedAd(model, isPresented: $isWatching)
  }
}

@available(iOS 17, *)
@MainActor
func makeStoreView(mediator: Mediator, wallet: Wallet) throws -> StoreView {
  let model = RewardedAdModel(ad: try mediator.rewardedAd(zone: "store"))
  model.onRewardEarned = { [weak model] reward in
    wallet.credit(reward)
    model?.acknowledge(reward)
  }
  return StoreView(model: model)
}
