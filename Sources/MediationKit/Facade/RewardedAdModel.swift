import Observation

/// An `@Observable` model of one zone's rewarded ad for SwiftUI, on the main actor.
///
/// It follows the ad's ``RewardedAd/events`` stream (on the main actor, whatever the mediator's
/// scheduler) and starts loading when created. With `MediationKitUI`, the
/// `.rewardedAd(_:isPresented:)` view modifier shows it from the right view controller:
///
/// ```swift
/// struct StoreView: View {
///   @State var ad: RewardedAdModel  // RewardedAdModel(ad: try mediator.rewardedAd(zone: "store"))
///   @State private var isWatching = false
///   var body: some View {
///     Button(ad.isReady ? "Watch Ad for 100 Coins" : "Ad Unavailable") { isWatching = true }
///       .disabled(!ad.isReady)
///       .rewardedAd(ad, isPresented: $isWatching)
///   }
/// }
/// ```
/// Observation needs iOS 17 (macOS 14, tvOS 17); on iOS 16 use the ``RewardedAd`` facade with a
/// ``RewardedAd/Delegate`` or its `async` forms.
@available(iOS 17, macOS 14, tvOS 17, visionOS 1, *)
@MainActor
@Observable
public final class RewardedAdModel {
  /// Whether an ad is ready to show. In a zone with a queue (`queueDepth` above 1) it stays
  /// `true` after a show ends, an ad expires or a refill fails while another queued ad is ready.
  public private(set) var isReady = false
  /// Whether a load is running.
  public private(set) var isLoading = false
  /// Whether a show is under way: from an accepted ``show(from:)`` (or the `shown` event) until
  /// the show ends.
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
  ///
  /// - Returns: Whether the show was accepted; ``isShowing`` is then `true` until it ends.
  @discardableResult
  public func show(from presenter: any AdPresenting) -> Bool {
    guard let ad else { return false }
    do {
      try ad.show(from: presenter)
      isShowing = true
      return true
    } catch {
      lastError = error
      return false
    }
  }

  /// Tells the mediator's ledger the app has credited `reward`, without waiting for the disk;
  /// see ``RewardedAd/acknowledge(_:)->()``. Does nothing for a model without an ad.
  public func acknowledge(_ reward: Reward) {
    ad?.acknowledge(reward)
  }

  /// Acknowledges `reward` and returns once the ledger has it; see
  /// ``RewardedAd/acknowledge(_:)->Bool``. `false` for a model without an ad.
  @discardableResult
  public func acknowledge(_ reward: Reward) async throws(MediationError) -> Bool {
    guard let ad else { return false }
    return try await ad.acknowledge(reward)
  }

  /// Whether the zone still holds a ready ad (another ad of its queue); `false` for a model
  /// without an ad, whose readiness follows the events alone.
  private var queuedAdIsReady: Bool { ad?.isReady ?? false }

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
      isReady = queuedAdIsReady
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
      if queuedAdIsReady { isReady = true }
    case .showFailed(let error):
      isShowing = false
      lastError = error
      if queuedAdIsReady { isReady = true }
    case .expired:
      isReady = queuedAdIsReady
      if !isReady { adInfo = nil }
    case .clicked, .revenuePaid, .diagnostic:
      break
    }
  }
}
