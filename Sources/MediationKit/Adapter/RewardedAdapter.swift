/// The plugin seam: one network's rewarded ads, translated into MediationKit's vocabulary.
///
/// An adapter wraps one network SDK. The core decides everything — which network serves,
/// timeouts, caching, expiry, the reward contract — and the adapter only translates.
///
/// ## The contract for implementers
/// 1. **Translate, don't decide.** Map each SDK callback to one completion or one
///    ``AdapterSignal``, as it happens. Forward duplicates, late and out-of-order callbacks
///    unchanged: the core's show state machine grants the reward exactly once, holds a dismissal
///    for the grace window and ignores what follows the terminal event. An adapter never times out,
///    retries, de-duplicates or caches.
/// 2. **One ad object per load.** ``load(_:completion:)`` creates a fresh ``AdapterAd``; the core
///    owns it, shows it at most once and calls ``AdapterAd/discard()`` when done with it.
/// 3. **Call back once, from any thread.** Call `completion` at most once per load. The core
///    hops onto its own executor, so calling from an SDK thread is fine.
/// 4. **Honour cancellation.** When the core cancels a load (its timeout passed, or the auction
///    ended), stop the SDK request if it can be stopped and release what it holds. A completion
///    that arrives after cancellation is ignored and its ad discarded, so it does no harm.
/// 5. **No global state.** Everything an adapter needs comes from the ``AdapterEnvironment`` it
///    was made with; two mediators in one process must not see each other's ads.
///    When the vendor SDK itself *is* a process-wide singleton (one listener, one availability
///    flag), keep the one piece of global state next to it and nowhere else: set the SDK's
///    listener once per process, to one ``GlobalListenerRouter``, and have every adapter instance
///    load and show through that router. Each load still gets its own ad object and each show its
///    own ``AdapterSignal/Sink``, so callbacks reach the mediator and show they belong to.
///
/// A test to copy into an adapter's own test target (`MediationKitTesting` runs full cycles
/// through a real mediator on virtual time and checks the reward contract on each):
/// ```swift
/// @Test func conforms() {
///   let report = AdapterConformance.check(MyNetwork.registration(), placementID: "my-placement")
///   #expect(report.passed, "\(report)")
///   #expect(report.fills > 0)
/// }
/// ```
/// An adapter that declares ``AdapterInfo/Capability/globalListener`` or
/// ``AdapterInfo/Capability/availabilityFlag`` also passes `lateCallbacks:`, a hook that makes its
/// SDK deliver a late reward of the previous show; without it the report fails.
public protocol RewardedAdapter: AnyObject, Sendable {
  /// The network and versions this adapter drives.
  var info: AdapterInfo { get }

  /// Starts the network's SDK. Called once, before the first load.
  ///
  /// - Parameters:
  ///   - request: What the network needs to start.
  ///   - completion: Called once, from any thread, with the outcome.
  func start(
    _ request: AdapterStartRequest, completion: @escaping @Sendable (Result<Void, AdapterError>) -> Void)

  /// Loads one rewarded ad.
  ///
  /// - Parameters:
  ///   - request: The placement to load and the line item it comes from.
  ///   - completion: Called at most once, from any thread, with a new single-use ad or an error.
  /// - Returns: A handle the core uses to cancel the load (see rule 4 above).
  func load(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void
  ) -> Cancellable

  /// Asks the network for a bid (real-time bidding). Only called on adapters whose
  /// ``AdapterInfo/capabilities`` contain ``AdapterInfo/Capability/bidding``.
  ///
  /// Answer with the price the network commits to, or an error for no bid (a child-directed
  /// user, no demand). The core runs the auction; if this bid wins, it calls
  /// ``load(_:completion:)`` with the bid in ``AdapterLoadRequest/bid``.
  /// - Parameters:
  ///   - request: The placement and auction; ``AdapterLoadRequest/bid`` is `nil`.
  ///   - completion: Called at most once, from any thread.
  /// - Returns: A handle the core uses to cancel the bid request when the auction times out.
  func bid(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterBid, AdapterError>) -> Void
  ) -> Cancellable

  /// The user's privacy signals changed (``Mediator/privacy``, or a CMP's consent strings through
  /// ``IABConsent/Reader``): hand them to the SDK's privacy API now, so a consent withdrawn between
  /// loads reaches the network at once rather than with the next request.
  ///
  /// Called on the thread that changed them, before that change returns, in the order of the
  /// changes; return quickly and do not call back into the mediator. The default does nothing:
  /// the signals still arrive with every request (``AdapterLoadRequest/privacy``).
  /// Added in adapter API 1.1.
  func privacyDidChange(_ privacy: PrivacySettings)
}

extension RewardedAdapter {
  /// Adapters whose SDK takes privacy signals only per request do nothing here.
  public func privacyDidChange(_ privacy: PrivacySettings) {}

  /// Networks without bidding answer "no bid" at once.
  public func bid(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterBid, AdapterError>) -> Void
  ) -> Cancellable {
    completion(.failure(AdapterError(.invalidRequest, message: "\(info.id) does not bid")))
    return .none
  }
}

/// An adapter that can say which IAB consent strings its network SDK holds, read back from the SDK
/// (not what the adapter meant to send), so `AdapterConformance` (MediationKitTesting) can check the adapter forwards
/// ``PrivacySettings/iab`` to the SDK. An adapter whose SDK reads the CMP's `UserDefaults` keys
/// itself reads them back from where the SDK does.
///
/// The adapter's own target adopts it, and that target ships in apps, which link no test kit: so
/// the protocol is declared here, in the core, and only the test kit reads it.
public protocol ConsentReadBack: AnyObject, Sendable {
  /// The consent strings the SDK holds now.
  var consentInSDK: IABConsent { get }
}

/// A loaded, single-use rewarded ad that an adapter hands to the core.
public protocol AdapterAd: AnyObject, Sendable {
  /// Shows the ad and reports what happens through `signals`.
  ///
  /// Called at most once. Report ``AdapterSignal/showFailed(_:)`` if the SDK refuses.
  /// - Parameters:
  ///   - request: The show's context (zone, custom data).
  ///   - presenter: What to present from.
  ///   - signals: Where to send every SDK callback, translated: the ad's one sink, the same as
  ///     its load request's ``AdapterLoadRequest/sink``.
  func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink)

  /// Releases the ad (destroyed, expired, or lost an auction). Called at most once, possibly
  /// without ``show(_:from:signals:)``.
  func discard()
}

/// A loaded ad with what the network says it is worth and how long it lives.
public struct AdapterLoadedAd: Sendable {
  /// The ad itself.
  public var ad: any AdapterAd
  /// The price the network reports for this impression, in USD per thousand; `nil` to use the
  /// line item's configured eCPM.
  public var ecpm: Double?
  /// How long the network lets the ad live; `nil` when only the zone's expiry applies.
  public var lifetime: Duration?

  public init(ad: any AdapterAd, ecpm: Double? = nil, lifetime: Duration? = nil) {
    self.ad = ad
    self.ecpm = ecpm
    self.lifetime = lifetime
  }
}

/// What the core passes to ``RewardedAdapter/start(_:completion:)``.
public struct AdapterStartRequest: Sendable {
  /// The placements this network serves across the configuration, so the SDK can warm them up.
  public var placementIDs: [String]

  public init(placementIDs: [String]) { self.placementIDs = placementIDs }
}

/// What the core passes to ``RewardedAdapter/load(_:completion:)`` and
/// ``RewardedAdapter/bid(_:completion:)``.
public struct AdapterLoadRequest: Sendable {
  /// The MediationKit zone the ad is for.
  public var zoneID: String
  /// The network's own placement id (Empower zone id, MAX ad unit id, AdMob ad unit id).
  public var placementID: String
  /// The line item's configured eCPM, in USD (for a bidder: the centre of its expected bids).
  public var ecpm: Double
  /// The reward the zone grants, which networks with a server-side reward echo back.
  public var reward: AdapterSignal.NetworkReward
  /// Identifies the auction this request belongs to: one per zone load, the same in every bid
  /// request and load of that auction, different across auctions (1, 2, 3… in the order loads
  /// start; the ad a winning load makes reports it as ``AdInfo/auctionID``). Use it to tie the load of a winning
  /// bid to the bid (a network whose bids are valid for one auction only), to group the requests
  /// of one auction, or to correlate the adapter's logs with the mediator's events. `0`: no
  /// auction (a request made outside a mediator).
  public var auctionID: UInt64
  /// The user's privacy signals; every network must honour them.
  public var privacy: PrivacySettings
  /// For a load after a bidding auction: the winning bid to load. `nil` in a waterfall.
  public var bid: AdapterBid?
  /// The line item's server-to-server reward callback (``ZoneConfig/LineItem/serverCallback``), for networks
  /// whose server calls the publisher's endpoint after a rewarded impression; `nil` for none.
  public var serverCallback: ZoneConfig.ServerCallbackConfig?
  /// Where the ad this load makes tells the core what happens to it: before its show, that the
  /// SDK no longer has it (``AdapterSignal/Sink/withdraw(_:)``); from its show on, the show's
  /// signals. Keep it with the ad; the show is given the same sink.
  /// ``AdapterSignal/Sink/ignored`` in bid requests.
  public var sink: AdapterSignal.Sink

  public init(
    zoneID: String, placementID: String, ecpm: Double, reward: AdapterSignal.NetworkReward,
    auctionID: UInt64 = 0,
    privacy: PrivacySettings = PrivacySettings(), bid: AdapterBid? = nil,
    serverCallback: ZoneConfig.ServerCallbackConfig? = nil
  ) {
    self.ecpm = ecpm
    self.auctionID = auctionID
    self.zoneID = zoneID
    self.placementID = placementID
    self.reward = reward
    self.privacy = privacy
    self.bid = bid
    self.serverCallback = serverCallback
    self.sink = .ignored
  }

  /// This request aimed at another line item: its placement, eCPM and server callback, the winning
  /// `bid` (if any) and the sink of the ad the load makes.
  package func retargeted(
    placementID: String, ecpm: Double, serverCallback: ZoneConfig.ServerCallbackConfig?, bid: AdapterBid?,
    sink: AdapterSignal.Sink
  ) -> AdapterLoadRequest {
    var request = self
    request.ecpm = ecpm
    request.placementID = placementID
    request.serverCallback = serverCallback
    request.bid = bid
    request.sink = sink
    return request
  }
}

/// A network's bid for one impression.
public struct AdapterBid: Sendable, Equatable {
  /// The price the network commits to, in USD per thousand impressions.
  public var price: Double
  /// The network's token for loading the ad it bid for (passed back in ``AdapterLoadRequest/bid``).
  public var token: String

  public init(price: Double, token: String) {
    self.price = price
    self.token = token
  }
}

/// What the core passes to ``AdapterAd/show(_:from:signals:)``.
public struct AdapterShowRequest: Sendable {
  /// The MediationKit zone being shown.
  public var zoneID: String
  /// Publisher data to pass to the network's server-side reward callback, if any.
  public var customData: String?
  /// The app's id for the user (``Mediator/userID``), passed to the network's server-side reward
  /// callback; `nil` when the app set none.
  public var userID: String?

  public init(zoneID: String, customData: String? = nil, userID: String? = nil) {
    self.zoneID = zoneID
    self.customData = customData
    self.userID = userID
  }
}

/// What an adapter is made with: the mediator's clock and its own seeded random stream.
///
/// Anything else an adapter needs (an app key, a test's wall clock) it takes from the app when its
/// registration is made, not from the mediator.
public struct AdapterEnvironment: Sendable {
  /// The scheduler every delay in the adapter and its SDK goes through.
  public var scheduler: any Scheduler
  /// A random stream of this adapter's own, derived from the mediator's seed.
  public var random: SeededRandom

  /// Creates an environment; a ``Mediator`` makes one per adapter, tests make their own.
  public init(scheduler: any Scheduler, random: SeededRandom) {
    self.scheduler = scheduler
    self.random = random
  }
}
