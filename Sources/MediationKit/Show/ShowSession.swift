/// One show of a zone: its ad and its ``ShowStateMachine``.
///
/// A value in the zone's state (``ZoneMachine``), not an object: the zone feeds it adapter signals
/// and timer ends while the ad is on screen, then keeps it for the late-signal window, so that a
/// network's late callbacks (a reward after the final dismissal) are still reported as diagnostics.
struct ShowSession: Sendable {
  /// Tells the zone's shows apart: the adapter's signal sink carries it.
  let id: Int
  let ready: ReadyAd
  var machine: ShowStateMachine
  /// The zone's setup when the show started: its reward is the one granted, whatever
  /// configuration is applied while the ad is on screen.
  let setup: ZoneSetup
  /// The learned eCPMs' epoch when the show started (``ZoneMachine/learningEpoch``): the show's
  /// paid revenue teaches them only if it is still the current one.
  let learningEpoch: Int
}

extension EngineContext {
  /// Publishes one event of a show of `zone` as the app sees it; a reward gets its transaction
  /// id and goes through the ledger first.
  func publish(_ event: ShowStateMachine.Event, of ready: ReadyAd, zone: ZoneConfig) {
    let network = ready.info.network
    let appEvent: RewardedAdEvent
    switch event {
    case .shown: appEvent = .shown(ready.info)
    case .clicked: appEvent = .clicked
    case .revenuePaid(let revenue):
      appEvent = .revenuePaid(
        RewardedAdEvent.Revenue(
          network: network, zoneID: zone.id, placementID: ready.info.placementID, usd: revenue.usd,
          precision: revenue.precision, experimentArms: ready.info.experimentArms))
    case .rewarded(let payload):
      let reward = Reward(
        type: zone.reward.type, amount: zone.reward.amount, transactionID: nextTransactionID(),
        network: network, networkReward: payload, experimentArms: ready.info.experimentArms)
      publishReward(reward, zoneID: zone.id)
      return
    case .closed: appEvent = .closed
    case .skipped: appEvent = .skipped
    case .showFailed(let error): appEvent = .showFailed(error)
    case .diagnostic(let diagnostic): appEvent = .diagnostic(diagnostic)
    }
    publish(zone.id, network, appEvent, arms: ready.info.experimentArms)
  }
}
