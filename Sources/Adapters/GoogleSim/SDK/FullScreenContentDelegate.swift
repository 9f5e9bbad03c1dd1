/// An ad that presents full-screen content (``RewardedAd`` here).
public protocol FullScreenPresentingAd: AnyObject {
  /// The delegate told about the ad's full-screen lifecycle; held weakly.
  var fullScreenContentDelegate: (any FullScreenContentDelegate)? { get set }
}

/// Receives the full-screen lifecycle of a ``FullScreenPresentingAd``.
///
/// Every method is optional (a default does nothing). The simulated SDK calls them on its
/// scheduler's executor, the stand-in for the main thread.
public protocol FullScreenContentDelegate: AnyObject {
  /// Tells the delegate that an impression has been recorded for the ad.
  func adDidRecordImpression(_ ad: any FullScreenPresentingAd)
  /// Tells the delegate that a click has been recorded for the ad.
  func adDidRecordClick(_ ad: any FullScreenPresentingAd)
  /// Tells the delegate that the ad failed to present full-screen content.
  func ad(_ ad: any FullScreenPresentingAd, didFailToPresentFullScreenContentWithError error: any Error)
  /// Tells the delegate that the ad will present full-screen content.
  func adWillPresentFullScreenContent(_ ad: any FullScreenPresentingAd)
  /// Tells the delegate that the ad will dismiss full-screen content.
  func adWillDismissFullScreenContent(_ ad: any FullScreenPresentingAd)
  /// Tells the delegate that the ad dismissed full-screen content.
  func adDidDismissFullScreenContent(_ ad: any FullScreenPresentingAd)
}

extension FullScreenContentDelegate {
  /// Does nothing.
  public func adDidRecordImpression(_ ad: any FullScreenPresentingAd) {}
  /// Does nothing.
  public func adDidRecordClick(_ ad: any FullScreenPresentingAd) {}
  /// Does nothing.
  public func ad(
    _ ad: any FullScreenPresentingAd, didFailToPresentFullScreenContentWithError error: any Error
  ) {
  }
  /// Does nothing.
  public func adWillPresentFullScreenContent(_ ad: any FullScreenPresentingAd) {}
  /// Does nothing.
  public func adWillDismissFullScreenContent(_ ad: any FullScreenPresentingAd) {}
  /// Does nothing.
  public func adDidDismissFullScreenContent(_ ad: any FullScreenPresentingAd) {}
}
