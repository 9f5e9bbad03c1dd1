import MediationKit

/// The adapter's side of one Empower zone: starts loads and shows for the core, and, through its
/// ``ZoneDelegate``, routes the zone's statuses to the loads waiting on it and to the ad on screen.
/// The zone is destroyed once nothing needs it (see ``ZoneDemand``).
///
/// Two objects rather than one because the SDK holds a zone's delegate weakly: a weakly referenced
/// object gets a side table, which sends every later retain and release of it down the runtime's
/// slow path, and the router is retained on every load (by the ``EmpowerAd`` it makes). So the
/// router owns a separate delegate, and both share the zone's ``ZoneContext``.
final class ZoneRouter: Sendable {
  /// What the router and its delegate share.
  let context: ZoneContext
  /// The zone's delegate in the SDK; the router keeps it alive.
  let delegate: ZoneDelegate
  /// The id of the last ad (load) made.
  private let lastAdID = Locked(0)

  init(zoneId: String, slot: ZoneSlot, manager: EMAManager) {
    context = ZoneContext(zoneId: zoneId, slot: slot, manager: manager)
    delegate = ZoneDelegate(context)
  }

  var zoneId: String { context.zoneId }
  /// The zone's handle in the SDK.
  var slot: ZoneSlot { context.slot }

  /// Pending loads and ads the core holds, for tests.
  var counts: (loads: Int, heldAds: Int) { context.demand.withLock { ($0.pendingLoads, $0.heldAds) } }

  /// Adds a load that completes with `completion`; returns the ad it will get, which is also its
  /// cancellation handle.
  func addLoad(
    _ completion: @escaping @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void,
    sink: AdapterSignal.Sink
  ) -> EmpowerAd {
    let ad = EmpowerAd(
      router: self,
      id: lastAdID.withLock { last in
        last += 1
        return UInt64(last)
      })
    context.demand.withLock {
      $0.addLoad(PendingLoad(ad: ad, completion: completion, sink: sink))
    }
    return ad
  }

  /// Drops the zone's waiting loads without completing them: the adapter is going away. A waiting
  /// load holds its ad, which holds this router; dropping them breaks that cycle.
  func abandonLoads() {
    _ = context.demand.withLock { $0.abandonLoads() }
  }

  /// Stops waiting for the load of ad `ad` (nothing once it completed); destroys the zone when
  /// nothing else needs it.
  func cancelLoad(_ ad: UInt64) {
    context.destroyIf(context.demand.withLock { $0.cancelLoad(ad) })
  }

  /// Shows ad `ad` with `signals`, or reports why it cannot: already shown or discarded, another ad
  /// of the zone on screen, or the zone holding no ad.
  ///
  /// The zone holds one ad, and every load it answered while holding it got that ad: once a show
  /// used it (the zone is no longer ready), every other ad of the zone the core holds unshown is
  /// withdrawn at once, so none is left ready to fail at its show.
  func show(ad: UInt64, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {
    switch context.demand.withLock({ $0.beginShow(ad, signals: signals) }) {
    case .alreadyUsed:
      signals.send(
        .showFailed(AdapterError(.notReady, message: "this Empower ad was already shown or discarded")))
    case .busy:
      signals.send(
        .showFailed(
          AdapterError(
            .anotherAdShowing, vendorCode: EMAError.Code.anotherAdShowing.rawValue,
            message: "an ad of zone '\(zoneId)' is already showing")))
    case .show:
      // `showRewarded(zoneId:from:)` once `isRewardedReady(zoneId:)` answers `true`.
      let showed = context.manager.showRewardedIfReady(slot: slot, from: presenter)
      // Checked under the zone's lock, so a load that fills the zone again meanwhile keeps the ads
      // it answers.
      let gone = context.demand.withLock { demand in
        context.manager.isRewardedReady(slot: slot) ? [] : demand.withdrawUnshown()
      }
      for sink in gone {
        sink.withdraw(
          AdapterWithdrawal(
            .invalidated,
            message: "Empower zone '\(zoneId)' holds one ad, and a show of another load of the zone used it"))
      }
      if !showed {
        // The SDK would answer with `.failed(notReady)` on the zone delegate, but a destroyed or
        // never-loaded zone has no delegate to tell, so report it here.
        context.endShow()?.send(
          .showFailed(
            AdapterError(
              .notReady, vendorCode: EMAError.Code.notReady.rawValue,
              message: "zone '\(zoneId)' has no ad loaded (already shown by another load of it?)")))
      }
    }
  }

  /// The core released ad `ad`; destroys the zone when nothing else needs it.
  func discard(ad: UInt64) {
    context.destroyIf(context.demand.withLock { $0.discard(ad) })
  }

  /// Maps an SDK error to MediationKit's kinds, keeping Empower's code and message.
  static func adapterError(_ error: (any Error)?) -> AdapterError {
    guard let error = error as? EMAError else {
      return AdapterError(
        .internalError, message: error.map { "\($0)" } ?? "Empower reported a failure with no error")
    }
    let kind: AdapterError.Kind =
      switch error.code {
      case .noFill: .noFill
      case .networkError: .networkError
      case .invalidZone: .invalidRequest
      case .notReady: .notReady
      case .anotherAdShowing: .anotherAdShowing
      case .invalidBid: .invalidRequest
      }
    return AdapterError(kind, vendorCode: error.code.rawValue, message: error.message)
  }
}

/// The delegate of one Empower zone: routes its statuses to the loads waiting on it and to the ad
/// on screen.
///
/// Each status is one round on the zone's lock; when it leaves the zone idle, the zone is
/// destroyed before the core is told, so a load the core starts from that callback gets a fresh
/// zone instead of having it destroyed under it.
final class ZoneDelegate: AdStatusDelegate, AdClickDelegate, Sendable {
  private let context: ZoneContext

  init(_ context: ZoneContext) { self.context = context }

  func rewardedStatusChanged(adStatus: AdStatus) {
    switch adStatus {
    case .initializing:
      break
    case .ready:
      let ecpm = context.manager.rewardedECPM(slot: context.slot)
      var (loads, idle) = context.demand.withLock { $0.fill() }
      // Idle only when nobody was waiting (e.g. the load was cancelled while a show kept the zone).
      context.destroyIf(idle)
      while let load = loads.popFirst() {
        load.completion(.success(AdapterLoadedAd(ad: load.ad, ecpm: ecpm, lifetime: nil)))
      }
    case .failed(let error):
      let failure = ZoneRouter.adapterError(error)
      switch failure.kind {
      case .notReady, .anotherAdShowing:  // a refused show: only `showRewarded` fails with these
        context.endShow()?.send(.showFailed(failure))
      default:
        var (loads, idle) = context.demand.withLock { $0.failLoads() }
        context.destroyIf(idle)
        while let load = loads.popFirst() { load.completion(.failure(failure)) }
      }
    case .shown:
      context.currentShow()?.send(.displayed)
    case .rewarded(let type, let amount):
      context.currentShow()?.send(.rewarded(AdapterSignal.NetworkReward(type: type, amount: Double(amount))))
    case .closed, .skipped:
      context.endShow()?.send(.dismissed)
    }
  }

  func rewardedAdClicked(zoneId: String) {
    context.currentShow()?.send(.clicked)
  }
}

/// What a zone's ``ZoneRouter`` and ``ZoneDelegate`` share: the zone's SDK handle and what the
/// zone is needed for.
struct ZoneContext: Sendable {
  let zoneId: String
  /// The zone's handle in `manager`.
  let slot: ZoneSlot
  let manager: EMAManager
  let demand = Locked(ZoneDemand())

  /// The signals of the show on screen, if any.
  func currentShow() -> AdapterSignal.Sink? {
    demand.withLock { $0.show }
  }

  /// Ends the show, destroying the zone first if that leaves it idle; the show's signals.
  func endShow() -> AdapterSignal.Sink? {
    let (signals, idle) = demand.withLock { $0.endShow() }
    destroyIf(idle)
    return signals
  }

  /// Destroys the zone when `idle`.
  func destroyIf(_ idle: Bool) {
    if idle { manager.destroyRewardedZone(slot: slot) }
  }
}

/// One load of a placement and, once the zone fills, the single-use ad the load got.
///
/// The ``AdapterAd`` handed to the core for one load. Cancelling the load stops waiting for it
/// (nothing once it completed) and destroys the zone when nothing else needs it.
final class EmpowerAd: AdapterAd {
  private let router: ZoneRouter
  /// Unique among the router's ads.
  let id: UInt64

  init(router: ZoneRouter, id: UInt64) {
    self.router = router
    self.id = id
  }

  func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {
    router.show(ad: id, from: presenter, signals: signals)
  }

  func discard() {
    router.discard(ad: id)
  }

  func cancel() {
    router.cancelLoad(id)
  }
}
