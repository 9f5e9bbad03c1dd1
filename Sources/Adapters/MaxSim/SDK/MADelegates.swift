/// Notified of a MAX ad's load and display events.
///
/// The simulated SDK calls these on its scheduler's executor (the real one on the main thread),
/// or on another queue when the profile's ``MaxBehaviorProfile/offThreadCallbacks`` says so.
public protocol MAAdDelegate: AnyObject {
  /// An ad loaded; ``MARewardedAd/isReady`` is now `true`.
  func didLoad(_ ad: MAAd)
  /// The ad unit failed to load an ad.
  func didFailToLoadAd(forAdUnitIdentifier adUnitIdentifier: String, withError error: MAError)
  /// The ad is on screen.
  func didDisplay(_ ad: MAAd)
  /// The user tapped the ad.
  func didClick(_ ad: MAAd)
  /// The ad left the screen.
  func didHide(_ ad: MAAd)
  /// The ad could not be shown.
  func didFail(toDisplay ad: MAAd, withError error: MAError)
}

/// Notified of a rewarded ad's video progress and of the reward.
///
/// `didStartRewardedVideo(for:)` and `didCompleteRewardedVideo(for:)` are optional in the vendor
/// SDK (deprecated since 11.0); here they have empty default implementations.
public protocol MARewardedAdDelegate: MAAdDelegate {
  /// The rewarded video started playing.
  func didStartRewardedVideo(for ad: MAAd)
  /// The rewarded video played to the end.
  func didCompleteRewardedVideo(for ad: MAAd)
  /// The user earned `reward`.
  func didRewardUser(for ad: MAAd, with reward: MAReward)
}

extension MARewardedAdDelegate {
  /// Does nothing: optional in the vendor SDK.
  public func didStartRewardedVideo(for ad: MAAd) {}
  /// Does nothing: optional in the vendor SDK.
  public func didCompleteRewardedVideo(for ad: MAAd) {}
}

/// Notified when an impression earns revenue (impression-level revenue, ILR).
public protocol MAAdRevenueDelegate: AnyObject {
  /// `ad` was displayed and earned ``MAAd/revenue`` US dollars.
  func didPayRevenue(for ad: MAAd)
}
