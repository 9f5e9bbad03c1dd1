/// A zone's rewarded ad: the app-facing facade.
///
/// ```swift
/// let ad = try mediator.rewardedAd(zone: "level_complete")
/// let info = try await ad.load()                  // or: ad.delegate = self; ad.load()
/// switch try await ad.show(from: viewController) {
/// case .rewarded(let reward): wallet.credit(reward)
/// case .skipped, .failed: break
/// }
/// ```
/// Rules:
/// - ``load()`` starts a waterfall and ends in exactly one `ready` or `failed` within the zone's
///   budget. While a load is running another call joins it; with an ad already ready it reports
///   `ready` again at once.
/// - ``show(from:customData:)->()`` throws at once, with no event, when there is nothing to show (not
///   ready, expired, already used) or another ad is on screen. An accepted show ends in exactly one
///   of `closed`, `skipped` or `showFailed`.
/// - Ads are single-use and expire; with the zone's `autoReload` the next one loads by itself.
/// - A zone's `queueDepth` N keeps up to N ads ready, each with its own expiry (one load at a
///   time): ``load()`` starts a load while fewer than N unexpired ads are ready (each fill reports
///   `ready`) and reports `ready` again at once when N are; with `autoReload` the queue refills by
///   itself after each fill, show, expiry and withdrawal. A show takes the best-priced unexpired
///   ad (on equal eCPMs the one that expires first, then the oldest); each ad that expires or is
///   withdrawn reports its own `expired`. ``isReady`` is `true` while any queued ad is.
/// - The `async` forms (`try await load()`, `try await show(from:)`) wait for those same
///   events. Cancelling the awaiting task ends the wait, never the ad: a load goes on and its ad
///   stays the zone's ready ad (the next `load` returns it at once; it expires as usual), a show
///   goes on and its reward is still published — to the delegate and every event stream, and
///   into the ledger, which redelivers it on a later start until it is acknowledged.
public final class RewardedAd: Sendable {
  /// The zone this ad serves.
  public var zoneID: String { controller.id }
  let controller: ZoneController
  let hub: EventHub
  @MainActor private weak var storedDelegate: (any RewardedAd.Delegate)?
  /// The delegate's hub subscription: set once, on the main actor, when a delegate is first set;
  /// read again only by `deinit`, when nothing else can reach the ad, so it needs no lock.
  @MainActor private var delegateSubscription: Cancellable?

  init(controller: ZoneController, hub: EventHub) {
    self.controller = controller
    self.hub = hub
  }

  deinit { delegateSubscription?.cancel() }

  /// Receives events on the main actor (see ``RewardedAd/Delegate``); held weakly.
  @MainActor public var delegate: (any Delegate)? {
    get { storedDelegate }
    set {
      storedDelegate = newValue
      subscribeDelegateOnce()
    }
  }

  /// Subscribes to the zone's events the first time a delegate is set; each event reaches the
  /// delegate on the main actor, in order.
  @MainActor private func subscribeDelegateOnce() {
    guard delegateSubscription == nil else { return }
    let zoneID = controller.id
    let mailbox = MainActorMailbox<RewardedAdEvent> { [weak self] event in
      guard let self else { return }
      self.storedDelegate?.rewardedAd(self, didReceive: event)
    }
    delegateSubscription = hub.subscribe { event in
      if event.zoneID == zoneID { mailbox.post(event.event) }
    }
  }

  /// Loads an ad (see the type's rules); the answer comes as an event.
  public func load() { controller.load() }

  /// Loads an ad and waits for it.
  ///
  /// - Returns: The ready ad's details: at once when one is already ready (the one a show would
  ///   take now; a zone with a queue of ready ads goes on filling it), else when the load fills.
  /// - Throws: The load's ``MediationError`` (`noFill`, `loadTimeout`), or `CancellationError`
  ///   when the awaiting task is cancelled — the load itself goes on (see the type's rules).
  @discardableResult
  public func load(isolation: isolated (any Actor)? = #isolation) async throws -> AdInfo {
    if let ready = controller.readyAd {
      controller.load()
      return ready
    }
    return try await wait(partial: (), start: { () throws(MediationError) in controller.load() }) {
      event, _ in
      switch event {
      case .ready(let info): .success(info)
      case .failed(let error): .failure(error)
      default: nil
      }
    }
  }

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

  /// Shows the ready ad and waits until the show ends.
  ///
  /// On the main actor, like presenting anything from UIKit: the network's adapter is called on it.
  ///
  /// - Parameters:
  ///   - presenter: What to present from (a `UIViewController` on iOS, with `MediationKitUI`).
  ///   - customData: Passed to the network's server-side reward callback.
  /// - Returns: How the show ended: ``RewardedAd/ShowOutcome/rewarded(_:)`` with the reward, `skipped`, or
  ///   `failed` with the network's error.
  /// - Throws: The ``MediationError`` of a refused show (as the synchronous form, with no event),
  ///   or `CancellationError` when the awaiting task is cancelled — before the call nothing is
  ///   shown; after it the show goes on and its reward is delivered as an event (see the type's
  ///   rules).
  @MainActor
  public func show(from presenter: any AdPresenting, customData: String? = nil) async throws
    -> RewardedAd.ShowOutcome
  {
    try Task.checkCancellation()
    // The partial state is this show's reward, once granted.
    return try await wait(
      partial: Reward?.none,
      start: { () throws(MediationError) in
        try controller.show(from: presenter, customData: customData)
      }
    ) { event, reward in
      switch event {
      case .rewarded(let granted) where !granted.isRedelivery:
        reward = granted
        return nil
      // `closed` always follows this show's `rewarded` (the reward contract).
      case .closed: return .success(reward.map(RewardedAd.ShowOutcome.rewarded) ?? .skipped)
      case .skipped: return .success(.skipped)
      case .showFailed(let error): return .success(.failed(error))
      default: return nil
      }
    }
  }

  /// Subscribes to the zone's events, runs `start` and waits until `answer` has one; the
  /// subscription ends with the wait. `start` runs on the caller's actor, before any suspension.
  /// `answer` reads each event with what the earlier ones added up to (`partial` at first),
  /// under the waiter's lock: pure code of the facade's own, never the app's.
  private func wait<Partial: Sendable, Value: Sendable>(
    isolation: isolated (any Actor)? = #isolation, partial: Partial, start: () throws(MediationError) -> Void,
    answer: @escaping @Sendable (RewardedAdEvent, inout Partial) -> Result<Value, MediationError>?
  ) async throws -> Value {
    let waiter = EventWaiter<Partial, Value>(partial: partial)
    let zoneID = self.zoneID
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        guard waiter.begin(continuation) else { return }
        let subscription = hub.subscribe { event in
          guard event.zoneID == zoneID else { return }
          waiter.offer { partial in answer(event.event, &partial) }
        }
        guard waiter.hold(subscription) else { return }
        do {
          try start()
        } catch {
          waiter.finish(.failure(error))
        }
      }
    } onCancel: {
      waiter.finish(.failure(CancellationError()))
    }
  }

  /// Tells the mediator's ``RewardLedger`` that the app has credited `reward`, so it is never
  /// delivered again. Safe on the main actor: the write goes to the mediator's ledger queue and
  /// the call returns at once; a failed write gives this zone a
  /// ``RewardedAdEvent/Diagnostic/Kind/ledgerWriteFailed`` diagnostic and the reward will be redelivered. See
  /// ``Mediator/acknowledgeReward(transactionID:)->()``.
  public func acknowledge(_ reward: Reward) {
    controller.acknowledge(reward)
  }

  /// Acknowledges `reward` like the synchronous form and returns once the ledger has it.
  ///
  /// - Returns: `true` if the reward was pending; `false` if it was already acknowledged, is
  ///   unknown, or the mediator has no ledger.
  /// - Throws: ``MediationError`` `ledgerFailure` when the ledger cannot write; the reward stays
  ///   pending and will be redelivered.
  @discardableResult
  public func acknowledge(_ reward: Reward) async throws(MediationError) -> Bool {
    try await controller.acknowledge(reward)
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

extension RewardedAd {
  /// Receives a ``RewardedAd``'s events, in order, on the main actor.
  ///
  /// With the mediator on ``DispatchScheduler/main`` (the app default) each event is delivered
  /// synchronously from the mediator's executor, which is the main queue. With any other scheduler
  /// the facade hops to the main actor (through the main queue) and keeps the order; the
  /// ``RewardedAd/events`` stream and ``Mediator/observeEvents(_:)`` stay on the scheduler's
  /// executor.
  @MainActor
  public protocol Delegate: AnyObject {
    /// An event happened. Grant the reward on ``RewardedAdEvent/rewarded(_:)`` only.
    func rewardedAd(_ ad: RewardedAd, didReceive event: RewardedAdEvent)
  }
}
