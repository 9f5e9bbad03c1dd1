/// The state of a rewarded zone, as reported to ``AdStatusDelegate/rewardedStatusChanged(adStatus:)``.
///
/// The flow, per the Empower guide:
/// ```
/// loadRewardedAd → .initializing → .ready → showRewarded → .shown → .rewarded → .closed
///                        └→ .failed                          └→ .skipped (no reward)
/// ```
/// The simulated SDK also reports a refused show (zone not ready, another full-screen ad up) as
/// `.failed` carrying an ``EMAError``, because the single status callback is the only channel a
/// zone has.
public enum AdStatus: Sendable, CustomStringConvertible {
  /// The zone is loading an ad.
  case initializing
  /// An ad is loaded and can be shown.
  case ready
  /// The ad is on screen.
  case shown
  /// The user finished the ad and earned the zone's reward. Fires at most once per show,
  /// right before ``closed``.
  case rewarded(type: String, amount: Int)
  /// Loading failed, or a show was refused; the error is an ``EMAError`` in this SDK.
  case failed((any Error)?)
  /// The ad was dismissed after the user earned the reward (follows ``rewarded(type:amount:)``).
  case closed
  /// The ad was dismissed early, without a reward.
  case skipped

  /// A short, stable description, e.g. `rewarded(coins, 100)` or `failed(no_fill)`.
  public var description: String {
    switch self {
    case .initializing: "initializing"
    case .ready: "ready"
    case .shown: "shown"
    case .rewarded(let type, let amount): "rewarded(\(type), \(amount))"
    case .failed(let error as EMAError): "failed(\(error.code))"
    case .failed(let error?): "failed(\(error))"
    case .failed(nil): "failed"
    case .closed: "closed"
    case .skipped: "skipped"
    }
  }
}

/// Receives a rewarded zone's status changes. All listeners are optional.
///
/// The SDK keeps the delegate weakly and calls it on its scheduler's executor (the main thread in
/// a real app; the thread driving the `VirtualScheduler` in tests).
public protocol AdStatusDelegate: AnyObject {
  /// Called whenever the zone's status changes.
  func rewardedStatusChanged(adStatus: AdStatus)
}

/// Simulation extension: a zone delegate that also adopts this protocol is told about clicks.
///
/// The Empower guide's status enum has no click status, so clicks are reported through this
/// optional, separate protocol (like an Objective-C optional method) and the guide's API is
/// unchanged.
public protocol AdClickDelegate: AnyObject {
  /// Called when the user taps the ad showing for `zoneId`.
  func rewardedAdClicked(zoneId: String)
}
