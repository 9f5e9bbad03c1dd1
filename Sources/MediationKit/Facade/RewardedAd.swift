import Synchronization

/// Receives a ``RewardedAd``'s events. Called on the mediator's scheduler executor (the main
/// queue with `DispatchScheduler(queue: .main)`), in order.
public protocol RewardedAdDelegate: AnyObject, Sendable {
  /// An event happened. Grant the reward on ``RewardedAdEvent/rewarded(_:)`` only.
  func rewardedAd(_ ad: RewardedAd, didReceive event: RewardedAdEvent)
}

/// A zone's rewarded ad: the app-facing facade.
///
/// ```swift
/// let ad = try mediator.rewardedAd(zone: "level_complete")
/// ad.delegate = self          // or: for await event in ad.events { … }
/// ad.load()
/// // later
/// if ad.isReady { try ad.show(from: self) }
/// ```
/// Rules:
/// - ``load()`` starts a waterfall and ends in exactly one `ready` or `failed` within the zone's
///   budget. While a load is running another call joins it; with an ad already ready it reports
///   `ready` again at once.
/// - ``show(from:customData:)`` throws at once, with no event, when there is nothing to show (not
///   ready, expired, already used) or another ad is on screen. An accepted show ends in exactly one
///   of `closed`, `skipped` or `showFailed`.
/// - Ads are single-use and expire; with the zone's `autoReload` the next one loads by itself.
public final class RewardedAd: Sendable {
  private struct WeakDelegate { weak var value: (any RewardedAdDelegate)? }

  /// The zone this ad serves.
  public var zoneID: String { controller.zone.id }
  private let controller: ZoneController
  private let hub: EventHub
  private let delegateBox = Locked(WeakDelegate())
  private let subscription = Locked<Cancellable?>(nil)

  init(controller: ZoneController, hub: EventHub) {
    self.controller = controller
    self.hub = hub
  }

  deinit { subscription.withLock { $0 }?.cancel() }

  /// Receives events; held weakly.
  public var delegate: (any RewardedAdDelegate)? {
    get { delegateBox.withLock { $0.value } }
    set {
      delegateBox.withLock { $0.value = newValue }
      subscribeDelegateOnce()
    }
  }

  /// Subscribes to the zone's events the first time a delegate is set.
  private func subscribeDelegateOnce() {
    let zoneID = controller.zone.id
    let hub = self.hub
    subscription.withLock { subscription in
      guard subscription == nil else { return }
      subscription = hub.subscribe { [weak self] event in
        guard let self, event.zoneID == zoneID else { return }
        self.delegate?.rewardedAd(self, didReceive: event.event)
      }
    }
  }

  /// Loads an ad (see the type's rules).
  public func load() { controller.load() }

  /// Whether an unexpired ad is ready to show.
  public var isReady: Bool { controller.isReady }

  /// Whether a load is running.
  public var isLoading: Bool { controller.isLoading }

  /// Shows the ready ad.
  ///
  /// - Parameters:
  ///   - presenter: What to present from (a `UIViewController` on iOS).
  ///   - customData: Passed to the network's server-side reward callback.
  /// - Throws: ``MediationError`` `notReady`, `expired`, `alreadyUsed` or `anotherAdShowing`,
  ///   at once and without any event.
  public func show(from presenter: any AdPresenting, customData: String? = nil) throws(MediationError) {
    try controller.show(from: presenter, customData: customData)
  }

  /// Tells the mediator's ``RewardLedger`` that the app has credited `reward`, so it is never
  /// delivered again; see ``Mediator/acknowledgeReward(transactionID:)``.
  ///
  /// - Returns: `true` if the reward was pending; `false` if it was already acknowledged, is
  ///   unknown, or the mediator has no ledger.
  @discardableResult
  public func acknowledge(_ reward: Reward) throws(MediationError) -> Bool {
    try controller.acknowledge(reward)
  }

  /// A new stream of this zone's events from now on. Each call makes an independent stream;
  /// it ends when the `RewardedAd` is released or the consumer stops iterating.
  public var events: AsyncStream<RewardedAdEvent> {
    let zoneID = self.zoneID
    let (stream, continuation) = AsyncStream<RewardedAdEvent>.makeStream()
    let token = hub.subscribe { event in
      if event.zoneID == zoneID { continuation.yield(event.event) }
    }
    continuation.onTermination = { _ in token.cancel() }
    return stream
  }
}
