/// Which network serves an ad, at what price, and how the auction went.
public struct AdInfo: Sendable, Equatable {
  /// The zone the ad is for.
  public var zoneID: String
  /// The winning network.
  public var network: NetworkID
  /// The winning network's placement id.
  public var placementID: String
  /// The winning price in USD per thousand impressions.
  public var ecpm: Double
  /// How exact ``ecpm`` is: `exact` for a bid, `estimated` when the network reported it,
  /// `publisherDefined` when it is the line item's configured eCPM.
  public var precision: AdapterSignal.RevenuePrecision
  /// The strategy that chose the network.
  public var strategy: ZoneConfig.AuctionStrategy
  /// Every line item considered, in the order tried, like MAX's `MANetworkResponseInfo`.
  public var responses: [AdInfo.NetworkResponse]
  /// Time from the start of the load to ready.
  public var latency: Duration
  /// The A/B test arms the load ran under: experiment id → arm id, one entry per experiment of the
  /// zone (``ZoneConfig/experiments``) for the current user (``Mediator/setUserID(_:)``). Empty
  /// when the zone has no experiments or no user id was set (the zone ran as configured).
  public var experimentArms: [String: String]
  /// The id of the auction that loaded the ad: the ``AdapterLoadRequest/auctionID`` every network
  /// asked in it received, in its bid requests and loads. The mediator numbers its auctions 1, 2,
  /// 3… in the order loads start, so a seeded run gives the same ids; `0` only in an `AdInfo` made
  /// outside a mediator.
  public var auctionID: UInt64

  /// Creates the description of an ad ready in zone `zoneID`, served by `network`: the mediator
  /// makes these; an app's tests make them to drive their handlers of `ready` and `shown`.
  public init(
    zoneID: String, network: NetworkID, placementID: String, ecpm: Double,
    responses: [AdInfo.NetworkResponse],
    latency: Duration, precision: AdapterSignal.RevenuePrecision = .publisherDefined,
    strategy: ZoneConfig.AuctionStrategy = .waterfall, experimentArms: [String: String] = [:],
    auctionID: UInt64 = 0
  ) {
    self.auctionID = auctionID
    self.experimentArms = experimentArms
    self.precision = precision
    self.strategy = strategy
    self.zoneID = zoneID
    self.network = network
    self.placementID = placementID
    self.ecpm = ecpm
    self.responses = responses
    self.latency = latency
  }
}

extension AdInfo {
  /// One line item's part in an auction.
  public struct NetworkResponse: Sendable, Equatable {
    /// What happened to the line item.
    public enum State: String, Sendable, Equatable, Codable {
      /// It filled (the winner, in a waterfall).
      case loaded
      /// The network answered with an error (no fill, …).
      case failed
      /// The network did not answer within the line item's timeout; the load was cancelled.
      case timedOut = "timed_out"
      /// Not tried, for the reason in ``AdInfo/NetworkResponse/error``.
      case skipped
      /// Never reached the network because its adapter had not started: its start failed or timed
      /// out, did not complete within the line item's timeout, or the app chose not to start it
      /// (``MediatorOptions/networkStarts``). ``AdInfo/NetworkResponse/error`` says which, with the start
      /// error.
      case notStarted = "not_started"
      /// Switched off on the running mediator: by the configuration's kill switch
      /// (``MediationConfig/disabledNetworks``, or the line item's ``ZoneConfig/LineItem/disabled``), never
      /// asked; or its network was switched off or unregistered while its request was out, which
      /// was then cancelled. ``AdInfo/NetworkResponse/error`` says which, naming the
      /// configuration's version.
      case disabled
      /// Not reached: an earlier line item won, or the zone's budget ran out.
      case notAttempted = "not_attempted"
      /// A bid that was received; the auction has not finished with it yet.
      case bid
      /// The network declined to bid.
      case noBid = "no_bid"
      /// The bid was below the line item's floor.
      case belowFloor = "below_floor"
      /// The bid lost to a higher one (or to the waterfall).
      case outbid
    }

    /// The line item's network.
    public var network: NetworkID
    /// The line item's placement id.
    public var placementID: String
    /// The line item's position in the zone's waterfall (lower goes first).
    public var priority: Int
    /// The line item's configured eCPM, or the price the network reported when it loaded.
    public var ecpm: Double
    /// What came of the line item.
    public var state: State
    /// How long the network took; `nil` when it was not tried.
    public var latency: Duration?
    /// The network's bid, for bidders that bid.
    public var bid: Double?
    /// Why it failed or was skipped.
    public var error: String?

    /// Creates the outcome of one line item; the mediator makes these.
    package init(
      of network: NetworkID, placementID: String, priority: Int, ecpm: Double, state: State,
      latency: Duration? = nil, bid: Double? = nil, error: String? = nil
    ) {
      self.bid = bid
      self.network = network
      self.placementID = placementID
      self.priority = priority
      self.ecpm = ecpm
      self.state = state
      self.latency = latency
      self.error = error
    }
  }
}
