#if canImport(UIKit)
  import UIKit

  extension UIApplication {
    /// The view controller to present a full-screen ad from: the top of the key window's
    /// presented chain, in the foreground-active window scene (any connected window scene when
    /// none is active yet). `nil` when the app has no window.
    ///
    /// A controller that is being dismissed is skipped: presenting from it would fail.
    public var adPresentingViewController: UIViewController? {
      let scenes = connectedScenes.compactMap { $0 as? UIWindowScene }
      let scene = scenes.first { $0.activationState == .foregroundActive } ?? scenes.first
      guard var top = scene?.keyWindow?.rootViewController else { return nil }
      while let presented = top.presentedViewController, !presented.isBeingDismissed {
        top = presented
      }
      return top
    }
  }
#endif
