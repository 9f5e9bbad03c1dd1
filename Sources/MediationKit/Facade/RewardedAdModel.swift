import Observation

/// An `@Observable` model of one zone's rewarded ad for SwiftUI — MediationKit's take on the
/// Empower guide's `RewardedAdCoordinator`.
///
/// ```swift
/// struct StoreView: View {
///   @State private var ad: RewardedAdModel  // RewardedAdModel(ad: try mediator.rewardedAd(zone: "store"))
///   var body: some View {
///     Button(ad.isReady ? "Watch Ad for 100 Coins" : "Ad Unavailable") { ad.show(from: presenter) }
///       .disabled(!ad.isReady)
///   }
/// }
/// ```
@MainActor
@Observable
public final class RewardedAdModel {
  /// Whether an ad is ready to show.
  public private(set) var isReady = false
  /// Whether a load is running.
  public private(set) var isLoading = false
  /// Whether the ad is on screen.
  public private(set) var isShowing = false
  /// The ready or showing ad's details.
  public private(set) var adInfo: AdInfo?
  /// The last load or show error.
  public private(set) var lastError: MediationError?
  /// Every reward earned through this model, in order.
  public private(set) var rewards: [Reward] = []
  /// Called once per earned reward.
  @ObservationIgnored public var onRewardEarned: ((Reward) -> Void)?

  @ObservationIgnored private let ad: RewardedAd?
  @ObservationIgnored private var listener: Task<Void, Never>?

  /// Creates a model that follows `ad`'s events and starts loading.
  public init(ad: RewardedAd) {
    self.ad = ad
    let events = ad.events
    listener = Task { [weak self] in
      for await event in events { self?.apply(event) }
    }
    isLoading = true
    ad.load()
  }

  /// Creates a model fed only through ``apply(_:)`` (previews, tests).
  public init() {
    self.ad = nil
  }

  isolated deinit { listener?.cancel() }

  /// Loads an ad.
  public func load() { ad?.load() }

  /// Shows the ready ad; a refusal lands in ``lastError``.
  public func show(from presenter: any AdPresenting) {
    guard let ad else { return }
    do {
      try ad.show(from: presenter)
    } catch {
      lastError = error
    }
  }

  /// Updates the model for one event.
  public func apply(_ event: RewardedAdEvent) {
    switch event {
    case .loading:
      isLoading = true
    case .ready(let info):
      isReady = true
      isLoading = false
      adInfo = info
      lastError = nil
    case .failed(let error):
      isReady = false
      isLoading = false
      lastError = error
    case .shown(let info):
      isReady = false
      isShowing = true
      adInfo = info
    case .rewarded(let reward):
      rewards.append(reward)
      onRewardEarned?(reward)
    case .closed, .skipped:
      isShowing = false
    case .showFailed(let error):
      isShowing = false
      lastError = error
    case .expired:
      isReady = false
      adInfo = nil
    case .clicked, .revenuePaid, .diagnostic:
      break
    }
  }
}
