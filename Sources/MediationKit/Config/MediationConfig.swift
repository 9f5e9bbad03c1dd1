/// A mediation configuration: the zones an app shows rewarded ads in.
///
/// Loaded from JSON with ``MediationConfig/load(_:source:knownNetworks:)``; every duration is in seconds.
/// ```json
/// { "zones": [ { "id": "level_complete", "reward": { "type": "coins", "amount": 100 },
///     "loadTimeoutSeconds": 30, "adExpirySeconds": 3600, "rewardGraceSeconds": 5, "autoReload": true,
///     "strategy": "hybrid", "auctionTimeoutSeconds": 3,
///     "caps": { "maxPerHour": 6, "maxPerDay": 30, "minIntervalSeconds": 60 },
///     "lineItems": [ { "network": "empower", "placementId": "emp-1", "priority": 0,
///                      "ecpm": 12.5, "timeoutSeconds": 8 },
///                    { "network": "max", "placementId": "a1b2", "priority": 0, "ecpm": 15,
///                      "timeoutSeconds": 8, "bidding": true, "bidFloor": 5 } ] } ] }
/// ```
/// `strategy`, `auctionTimeoutSeconds`, `caps`, `queueDepth`, `experiments` (see
/// ``ZoneConfig/Experiment``), `autoECPM` (see ``ZoneConfig/autoECPM``), `bidding`, `bidFloor`, `serverCallback` and `disabled` may be left
/// out. A line item's `serverCallback` is the ad unit's server-side reward callback:
/// `{ "url": "https://rewards.example.com/max?user={USER_ID}&token={EVENT_TOKEN}", "eventKey": "…" }`.
///
/// The top level may also name the configuration, `"version": "2026-12-01.3"` (reported by the
/// sources that deliver it), and switch networks off everywhere, `"disabledNetworks": ["max"]`; a
/// single line item is switched off with `"disabled": true`; `"flightRecorder"` chooses the users
/// whose devices record their sessions (``FlightRecorderRule``).
public struct MediationConfig: Codable, Sendable, Equatable {
  /// The zones, in the order the file lists them.
  public var zones: [ZoneConfig]
  /// A name for this configuration (a date, a counter, a commit), reported wherever the
  /// configuration in use is named; `nil` when the file gives none.
  public var version: String?
  /// Networks switched off in every zone: the remote kill switch for a misbehaving network.
  /// Empty when left out.
  public var disabledNetworks: [NetworkID]
  /// Which users' devices record their sessions (``FlightRecorderRule``); `nil` when left out.
  public var flightRecorder: FlightRecorderRule?

  public init(
    zones: [ZoneConfig], version: String? = nil, disabledNetworks: [NetworkID] = [],
    flightRecorder: FlightRecorderRule? = nil
  ) {
    self.zones = zones
    self.version = version
    self.disabledNetworks = disabledNetworks
    self.flightRecorder = flightRecorder
  }

  private enum CodingKeys: String, CodingKey {
    case version, disabledNetworks, zones, flightRecorder
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    zones = try container.decode([ZoneConfig].self, forKey: .zones)
    version = try container.decodeIfPresent(String.self, forKey: .version)
    disabledNetworks = try container.decodeIfPresent([NetworkID].self, forKey: .disabledNetworks) ?? []
    flightRecorder = try container.decodeIfPresent(FlightRecorderRule.self, forKey: .flightRecorder)
  }

  /// Whether `item` may be used: neither switched off itself nor its network switched off.
  package func isEnabled(_ item: ZoneConfig.LineItem) -> Bool {
    !item.disabled && !disabledNetworks.contains(item.network)
  }

  /// The zone with `id`.
  /// - Throws: ``MediationError`` `unknownZone`, listing the known zones.
  public func zone(_ id: String) throws(MediationError) -> ZoneConfig {
    if let zone = zones.first(where: { $0.id == id }) { return zone }
    throw MediationError.unknownZone(id, known: zones.map(\.id))
  }
}

extension ZoneConfig {
  /// How a zone chooses the network that serves it.
  public enum AuctionStrategy: String, Codable, Sendable, CaseIterable {
    /// Line items one at a time: tiers by ascending priority, by descending eCPM within a tier;
    /// the first fill wins.
    case waterfall
    /// Bidding line items asked in parallel within the auction timeout; the highest bid at or above
    /// its floor wins.
    case bidding
    /// Bidding first; the best bid then competes with the waterfall: waterfall items priced at or
    /// above it are tried first, those priced below it are skipped.
    case hybrid
  }
}

/// One ad placement in the app, and the networks that can fill it.
public struct ZoneConfig: Codable, Sendable, Equatable {
  /// The zone's id, unique in the config.
  public var id: String
  /// What a completed ad grants.
  public var reward: ZoneConfig.RewardConfig
  /// The networks that can fill this zone.
  public var lineItems: [ZoneConfig.LineItem]
  /// The whole load's time budget: the load ends in `ready` or `failed` within it.
  public var loadTimeoutSeconds: Double
  /// How long a loaded ad stays showable (a network's own shorter lifetime wins).
  public var adExpirySeconds: Double
  /// How long a reward-less dismissal waits for a late reward before it is final.
  public var rewardGraceSeconds: Double
  /// Whether to preload: load the next ad after each show and after expiry, and retry failed
  /// loads with exponential backoff.
  public var autoReload: Bool
  /// How the zone chooses a network; `waterfall` when left out.
  public var strategy: ZoneConfig.AuctionStrategy
  /// How long bidders have to answer, for `bidding` and `hybrid`; 5 s when left out.
  public var auctionTimeoutSeconds: Double
  /// Frequency caps and pacing; none when left out.
  public var caps: ZoneConfig.FrequencyCaps?
  /// How many ads the zone keeps ready, 1 to ``MediationConfig/Limits/maxQueueDepth``; 1 when left out.
  /// Each queued ad keeps its own expiry and a show takes the best-priced one (see
  /// ``RewardedAd``'s rules); lowering it on a running mediator keeps the extra ready ads until
  /// they are shown or expire, and the queue does not refill past the new depth.
  public var queueDepth: Int
  /// A/B tests on this zone (at most ``MediationConfig/Limits/maxExperimentsPerZone``), each splitting
  /// users between its arms; none when left out.
  public var experiments: [Experiment]
  /// Whether the waterfall orders its line items by the eCPM each has actually been paying,
  /// learned from the zone's loads and shows (the configured `ecpm` is the starting point), rather
  /// than by the configured `priority` and `ecpm`; for `waterfall` and `hybrid` (its waterfall
  /// part). A line item that is rarely reached is still tried now and then, so a price change is
  /// learned. `false` when left out.
  public var autoECPM: Bool

  public init(
    id: String, reward: ZoneConfig.RewardConfig, lineItems: [ZoneConfig.LineItem],
    loadTimeoutSeconds: Double = 30,
    adExpirySeconds: Double = 3600, rewardGraceSeconds: Double = 5, autoReload: Bool = true,
    strategy: ZoneConfig.AuctionStrategy = .waterfall, auctionTimeoutSeconds: Double = 5,
    caps: ZoneConfig.FrequencyCaps? = nil,
    queueDepth: Int = 1, experiments: [Experiment] = [], autoECPM: Bool = false
  ) {
    self.id = id
    self.reward = reward
    self.lineItems = lineItems
    self.loadTimeoutSeconds = loadTimeoutSeconds
    self.adExpirySeconds = adExpirySeconds
    self.rewardGraceSeconds = rewardGraceSeconds
    self.autoReload = autoReload
    self.strategy = strategy
    self.auctionTimeoutSeconds = auctionTimeoutSeconds
    self.caps = caps
    self.queueDepth = queueDepth
    self.experiments = experiments
    self.autoECPM = autoECPM
  }

  /// Switches the zone to `strategy` (an experiment arm's, a tool's): learned eCPMs go with a
  /// switch to `bidding`, which has no waterfall for them to order.
  package mutating func use(_ strategy: ZoneConfig.AuctionStrategy) {
    self.strategy = strategy
    if strategy == .bidding { autoECPM = false }
  }

  private enum CodingKeys: String, CodingKey {
    case id, reward, lineItems, loadTimeoutSeconds, adExpirySeconds, rewardGraceSeconds, autoReload, strategy
    case auctionTimeoutSeconds, caps, queueDepth, experiments, autoECPM
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    id = try container.decode(String.self, forKey: .id)
    reward = try container.decode(ZoneConfig.RewardConfig.self, forKey: .reward)
    lineItems = try container.decode([ZoneConfig.LineItem].self, forKey: .lineItems)
    loadTimeoutSeconds = try container.decode(Double.self, forKey: .loadTimeoutSeconds)
    adExpirySeconds = try container.decode(Double.self, forKey: .adExpirySeconds)
    rewardGraceSeconds = try container.decode(Double.self, forKey: .rewardGraceSeconds)
    autoReload = try container.decode(Bool.self, forKey: .autoReload)
    strategy =
      try ZoneConfig.AuctionStrategy.decodeIfPresent(from: container, forKey: .strategy) ?? .waterfall
    auctionTimeoutSeconds = try container.decodeIfPresent(Double.self, forKey: .auctionTimeoutSeconds) ?? 5
    caps = try container.decodeIfPresent(ZoneConfig.FrequencyCaps.self, forKey: .caps)
    queueDepth = try container.decodeWholeNumberIfPresent(forKey: .queueDepth) ?? 1
    experiments = try container.decodeIfPresent([Experiment].self, forKey: .experiments) ?? []
    autoECPM = try container.decodeIfPresent(Bool.self, forKey: .autoECPM) ?? false
  }
}

extension KeyedDecodingContainer {
  /// The integer at `key`, `nil` when absent. What is not an `Int` is read again as a number, so
  /// that a fraction or an integer beyond `Int` is reported at its path ("expected an integer,
  /// found 2.5"): Foundation's decoder on Linux calls either "not valid JSON", without a path.
  func decodeWholeNumberIfPresent(forKey key: Key) throws -> Int? {
    // Exact first, so a large integer (2^63 - 1) is read as written and its range reported.
    if let whole = try? decode(Int.self, forKey: key) { return whole }
    let number: Double
    do {
      guard let value = try decodeIfPresent(Double.self, forKey: key) else { return nil }
      number = value
    } catch DecodingError.typeMismatch(_, let context) {
      throw DecodingError.typeMismatch(Int.self, context)  // names the integer that was expected
    }
    guard let whole = Int(exactly: number) else {
      throw DecodingError.dataCorruptedError(
        forKey: key, in: self,
        debugDescription: number.rounded() == number
          ? "expected an integer of at most 18 digits, found \(ZoneConfig.format(number))"
          : "expected an integer, found \(ZoneConfig.format(number))")
    }
    return whole
  }

  /// The integer at `key`, which must be there (see ``decodeWholeNumberIfPresent(forKey:)``).
  func decodeWholeNumber(forKey key: Key) throws -> Int {
    guard let whole = try decodeWholeNumberIfPresent(forKey: key) else {
      throw DecodingError.keyNotFound(
        key, .init(codingPath: codingPath, debugDescription: "missing required field '\(key.stringValue)'"))
    }
    return whole
  }
}

extension ZoneConfig.AuctionStrategy {
  /// The strategy named at `key`, `nil` when absent; an unknown name is an error listing the
  /// known ones.
  static func decodeIfPresent<Key: CodingKey>(
    from container: KeyedDecodingContainer<Key>, forKey key: Key
  ) throws -> ZoneConfig.AuctionStrategy? {
    guard let name = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
    guard let strategy = ZoneConfig.AuctionStrategy(rawValue: name) else {
      let names = ZoneConfig.AuctionStrategy.allCases.map(\.rawValue).joined(separator: ", ")
      throw DecodingError.dataCorruptedError(
        forKey: key, in: container, debugDescription: "must be one of \(names), found '\(name)'")
    }
    return strategy
  }
}

extension ZoneConfig {
  /// Frequency caps and pacing for one zone: a capped show fails at once with `capped`.
  public struct FrequencyCaps: Codable, Sendable, Equatable {
    /// At most this many shows in any rolling hour.
    public var maxPerHour: Int?
    /// At most this many shows in any rolling 24 hours.
    public var maxPerDay: Int?
    /// At least this long between two shows.
    public var minIntervalSeconds: Double?

    public init(maxPerHour: Int? = nil, maxPerDay: Int? = nil, minIntervalSeconds: Double? = nil) {
      self.maxPerHour = maxPerHour
      self.maxPerDay = maxPerDay
      self.minIntervalSeconds = minIntervalSeconds
    }

    private enum CodingKeys: String, CodingKey {
      case maxPerHour, maxPerDay, minIntervalSeconds
    }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      maxPerHour = try container.decodeWholeNumberIfPresent(forKey: .maxPerHour)
      maxPerDay = try container.decodeWholeNumberIfPresent(forKey: .maxPerDay)
      minIntervalSeconds = try container.decodeIfPresent(Double.self, forKey: .minIntervalSeconds)
    }
  }
}

extension ZoneConfig {
  /// The reward a zone grants.
  public struct RewardConfig: Codable, Sendable, Equatable {
    public var type: String
    public var amount: Int

    public init(type: String, amount: Int) {
      self.type = type
      self.amount = amount
    }

    private enum CodingKeys: String, CodingKey {
      case type, amount
    }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      type = try container.decode(String.self, forKey: .type)
      amount = try container.decodeWholeNumber(forKey: .amount)
    }
  }
}

extension ZoneConfig {
  /// One network's placement in a zone.
  public struct LineItem: Codable, Sendable, Equatable {
    /// The network's id, e.g. "empower".
    public var network: NetworkID
    /// The network's own placement id (Empower zone id, MAX ad unit id, AdMob ad unit id).
    public var placementId: String
    /// The tier: 0 is tried first. Also breaks ties between equal bids.
    public var priority: Int
    /// Expected price in USD per thousand impressions; orders line items within a tier. For a
    /// bidder, the centre of the bids it is expected to make.
    public var ecpm: Double
    /// How long to wait for this network's ad before moving on.
    public var timeoutSeconds: Double
    /// Whether the line item takes part in bidding (strategies `bidding` and `hybrid`).
    public var bidding: Bool
    /// The lowest bid accepted from this line item, in USD eCPM.
    public var bidFloor: Double
    /// The ad unit's server-to-server reward callback, which the network's server calls after a
    /// rewarded impression; `nil` (the default) for none.
    public var serverCallback: ZoneConfig.ServerCallbackConfig?
    /// Whether the line item is switched off (kept in the file, never used); `false` when left out.
    public var disabled: Bool

    public init(
      network: NetworkID, placementId: String, priority: Int, ecpm: Double, timeoutSeconds: Double = 10,
      bidding: Bool = false, bidFloor: Double = 0, serverCallback: ZoneConfig.ServerCallbackConfig? = nil,
      disabled: Bool = false
    ) {
      self.network = network
      self.placementId = placementId
      self.priority = priority
      self.ecpm = ecpm
      self.timeoutSeconds = timeoutSeconds
      self.bidding = bidding
      self.bidFloor = bidFloor
      self.serverCallback = serverCallback
      self.disabled = disabled
    }

    private enum CodingKeys: String, CodingKey {
      case network, placementId, priority, ecpm, timeoutSeconds, bidding, bidFloor, serverCallback, disabled
    }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      network = try container.decode(NetworkID.self, forKey: .network)
      placementId = try container.decode(String.self, forKey: .placementId)
      priority = try container.decodeWholeNumber(forKey: .priority)
      ecpm = try container.decode(Double.self, forKey: .ecpm)
      timeoutSeconds = try container.decode(Double.self, forKey: .timeoutSeconds)
      bidding = try container.decodeIfPresent(Bool.self, forKey: .bidding) ?? false
      bidFloor = try container.decodeIfPresent(Double.self, forKey: .bidFloor) ?? 0
      serverCallback = try container.decodeIfPresent(
        ZoneConfig.ServerCallbackConfig.self, forKey: .serverCallback)
      disabled = try container.decodeIfPresent(Bool.self, forKey: .disabled) ?? false
    }
  }
}

extension ZoneConfig {
  /// An ad unit's server-to-server reward callback: the publisher's endpoint the network's server
  /// calls (an HTTP GET) after each rewarded impression, so the publisher's server can grant the
  /// reward without trusting the app.
  ///
  /// - **MAX** ("Server Side Callback URL"): `url` is a template whose macros (`{USER_ID}`,
  ///   `{EVENT_ID}`, `{EVENT_TOKEN}`, `{AMOUNT}`, `{CURRENCY}`, `{CUSTOM_DATA}`, …) the server
  ///   expands; `eventKey` is the account's S2S event key, which keys `{EVENT_TOKEN}` and
  ///   `{EVENT_TOKEN_ALL}`. Required for MAX.
  /// - **Google** (SSV callback URL): `url` is the endpoint; the server appends its signed query
  ///   (`ad_network`, `ad_unit`, …, `signature`, `key_id`). Google signs with its own key, so
  ///   `eventKey` is not used.
  ///
  /// Other networks may use `eventKey` for their own keyed callbacks; validation only requires it
  /// for MAX.
  public struct ServerCallbackConfig: Codable, Sendable, Equatable {
    /// The callback URL (or, for MAX, URL template): absolute, `http` or `https`.
    public var url: String
    /// The secret key the network's server keys its callback with (MAX's event key); `nil` for none.
    public var eventKey: String?

    /// Creates a callback setting.
    ///
    /// - Parameters:
    ///   - url: The callback URL or URL template.
    ///   - eventKey: The key the callback is keyed with, if the network uses one.
    public init(url: String, eventKey: String? = nil) {
      self.url = url
      self.eventKey = eventKey
    }
  }
}

extension ZoneConfig {
  var loadTimeout: Duration { .seconds(loadTimeoutSeconds) }
  var adExpiry: Duration { .seconds(adExpirySeconds) }
  var rewardGrace: Duration { .seconds(rewardGraceSeconds) }
  var auctionTimeout: Duration { .seconds(auctionTimeoutSeconds) }
}
