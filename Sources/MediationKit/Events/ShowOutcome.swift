extension RewardedAd {
  /// How an accepted show ended: what `try await ad.show(from:)` returns.
  public enum ShowOutcome: Sendable, Equatable {
    /// The user earned the reward and the ad was dismissed (`rewarded`, then `closed`). Credit it,
    /// then acknowledge it (``RewardedAd/acknowledge(_:)->()``) when the mediator has a ledger.
    case rewarded(Reward)
    /// The ad was dismissed without a reward.
    case skipped
    /// The network could not show the ad (`show_failed`, `display_timeout`).
    case failed(MediationError)
  }
}
