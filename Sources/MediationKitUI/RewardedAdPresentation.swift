#if canImport(SwiftUI) && canImport(UIKit)
  import MediationKit
  import SwiftUI
  import UIKit

  @available(iOS 17, tvOS 17, visionOS 1, *)
  extension View {
    /// Shows `model`'s ad when `isPresented` becomes `true`, from the view controller on top of
    /// the key window (`UIApplication.adPresentingViewController`), and sets it back to
    /// `false` when the show ends or is refused.
    ///
    /// The reward comes through the model: `RewardedAdModel.onRewardEarned` and
    /// `RewardedAdModel.rewards`; a refusal (not ready, another ad on screen) lands
    /// in `RewardedAdModel.lastError`.
    ///
    /// ```swift
    /// Button("Watch an ad for 100 coins") { isWatching = true }
    ///   .disabled(!model.isReady)
    ///   .rewardedAd(model, isPresented: $isWatching)
    /// ```
    public func rewardedAd(_ model: RewardedAdModel, isPresented: Binding<Bool>) -> some View {
      modifier(RewardedAdPresentation(model: model, isPresented: isPresented))
    }
  }

  /// The modifier behind `View.rewardedAd(_:isPresented:)`.
  @available(iOS 17, tvOS 17, visionOS 1, *)
  struct RewardedAdPresentation: ViewModifier {
    let model: RewardedAdModel
    @Binding var isPresented: Bool

    func body(content: Content) -> some View {
      content
        .onChange(of: isPresented) { _, present in
          if present { presentAd() }
        }
        .onChange(of: model.isShowing) { _, showing in
          if !showing { isPresented = false }
        }
    }

    private func presentAd() {
      guard !model.isShowing else { return }
      guard let presenter = UIApplication.shared.adPresentingViewController, model.show(from: presenter)
      else {
        isPresented = false
        return
      }
    }
  }
#endif
