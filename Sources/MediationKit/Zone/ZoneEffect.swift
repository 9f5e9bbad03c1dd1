/// What ``ZoneMachine/handle(_:now:)`` asks its owner to do once the zone's lock is released, in
/// order: network requests, cancellations, timers, events, the screen. Performing an effect may
/// produce a new input (an adapter's handle, an answer, a timer firing), which goes through the
/// machine again.
enum ZoneEffect: Sendable {
  // Cases with large payloads are `indirect`: every input returns an array of effects, copied
  // element by element, and one inline request or event made each element over 200 bytes.
  /// Give load `load` its auction id (mediator-wide, 1, 2, 3… in the order loads start) and
  /// hand it back with ``ZoneInput/auctionStarted(load:auctionID:)``.
  case startAuction(load: Int)
  /// Send a bid or load request to `adapter`; with `admit`, only once its network has started
  /// (else ``ZoneInput/awaitingStart(_:_:)`` or ``ZoneInput/notStarted(_:reason:)``).
  indirect case send(Request)
  case cancel(Cancellable)
  /// Schedule the timer `id`; its firing is ``ZoneInput/timerFired(_:)``.
  case arm(TimerID, after: Duration)
  indirect case publish(RewardedAdEvent, network: NetworkID?, arms: [String: String]?)
  /// Publish an event of show `ad`, made on `zone`.
  indirect case publishShow(ShowStateMachine.Event, ReadyAd, zone: ZoneConfig)
  /// Record the reward of show `ad` (in the ledger, when there is one), then publish it.
  indirect case recordReward(AdapterSignal.NetworkReward?, ReadyAd, zone: ZoneConfig)
  /// Publish `failed(unknownZone)`, its message starting with `prefix` (the zone was removed).
  case failRemoved(prefix: String)
  /// Release an ad the zone will never show.
  case discard(any AdapterAd)
  /// Put `ad` on screen.
  case present(ReadyAd)
  /// Refuse the show the app asked for.
  case refuseShow(ShowRefusal)
  /// Free the full-screen gate.
  case releaseScreen
  /// Start the zone's own next load (``ZoneInput/load(requested:networks:privacy:)``).
  case reload

  /// A bid or load request of one load.
  struct Request: Sendable {
    /// The raw value names the kind in a flight recording.
    enum Kind: String, Sendable, Equatable { case bid, load }
    let id: RequestID
    let kind: Kind
    let network: NetworkID
    let adapter: any RewardedAdapter
    let request: AdapterLoadRequest
    /// Whether the network's start must be checked first (not yet known to have started).
    let admit: Bool
  }

  enum ShowRefusal: Sendable {
    case error(MediationError)
    /// The zone is out of the configuration, for this reason.
    case removed(String)
  }
}

/// A loaded ad waiting to be shown; shared by the zone's queue and the show session made from it.
final class ReadyAd: Sendable {
  let info: AdInfo
  let loaded: AdapterLoadedAd
  let expiresAt: Duration
  /// How the impression's one revenue is chosen: the network's figure, else the core's estimate
  /// from the winning price.
  let revenue: ShowStateMachine.RevenueRule
  /// The request that loaded it, which its ``AdapterSignal/Sink`` names.
  let request: RequestID
  /// The load that made it: the ad's number in the zone.
  var loadID: Int { request.load }

  init(
    info: AdInfo, loaded: AdapterLoadedAd, expiresAt: Duration, networkReportsRevenue: Bool,
    request: RequestID
  ) {
    self.info = info
    self.loaded = loaded
    self.expiresAt = expiresAt
    self.revenue = ShowStateMachine.RevenueRule(
      estimate: AdapterSignal.ImpressionRevenue(usd: info.ecpm / 1000, precision: info.precision),
      networkReportsRevenue: networkReportsRevenue)
    self.request = request
  }
}
