import MediationKit
import MediationKitUI
import UIKit

/// A vendor SDK's rewarded ad, as vendors ship them: a main-actor UIKit API.
@MainActor
final class VendorRewardedAd {
  var isReady = false
  func present(fromRootViewController viewController: UIViewController) {}
}

/// A real-SDK adapter's ad: MediationKit calls `show` synchronously from `ad.show(from:)`, so on the
/// main thread when the app shows from its UI (UIKit, SwiftUI, or the `@MainActor` async
/// `show(from:)`); the adapter enters the main actor there to call the SDK.
final class VendorAdapterAd: AdapterAd {
  private let ad: VendorRewardedAd

  init(ad: VendorRewardedAd) { self.ad = ad }

  func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {
    guard Thread.isMainThread else {
      signals.send(.showFailed(AdapterError(.invalidRequest, message: "show the ad from the main thread")))
      return
    }
    // Cast before entering the main actor: a `UIViewController` is Sendable, `any AdPresenting` is not.
    let viewController = presenter as? UIViewController
    MainActor.assumeIsolated {
      guard let viewController, ad.isReady else {
        signals.send(.showFailed(AdapterError(.notReady, message: "nothing to present from")))
        return
      }
      ad.present(fromRootViewController: viewController)
    }
  }

  func discard() {}
}
