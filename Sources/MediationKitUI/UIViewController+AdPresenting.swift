#if canImport(UIKit)
  import MediationKit
  import UIKit

  /// Any view controller can present a full-screen ad: `try ad.show(from: self)`.
  ///
  /// `AdPresenting` has no requirements, so this main-actor class conforms without crossing
  /// isolation; adapters receive it on the main actor, where the app calls `show`.
  extension UIViewController: AdPresenting {}
#endif
