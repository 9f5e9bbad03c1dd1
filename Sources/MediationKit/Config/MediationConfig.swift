/// A mediation configuration: the zones an app shows rewarded ads in.
///
/// Loaded from JSON with ``ConfigLoader``; every duration is in seconds.
/// ```json
/// { "zones": [ { "id": "level_complete", "reward": { "type": "coins", "amount": 100 },
///     "loadTimeoutSeconds": 30, "adExpirySeconds": 3600, "rewardGraceSeconds": 5, "autoReload": true,
///     "lineItems": [ { "network": "empower", "placementId": "emp-1", "priority": 0,
///                      "ecpm": 12.5, "timeoutSeconds": 8 } ] } ] }
/// ```
public struct MediationConfig: Codable, Sendable, Equatable {
  /// The zones, in the order the file lists them.
  public var zones: [ZoneConfig]

  public init(zones: [ZoneConfig]) { self.zones = zones }

  /// The zone with `id`.
  /// - Throws: ``MediationError`` `unknownZone`, listing the known zones.
  public func zone(_ id: String) throws(MediationError) -> ZoneConfig {
    if let zone = zones.first(where: { $0.id == id }) { return zone }
    throw MediationError.unknownZone(id, known: zones.map(\.id))
  }
}

/// One ad placement in the app, and the networks that can fill it.
public struct ZoneConfig: Codable, Sendable, Equatable {
  /// The zone's id, unique in the config.
  public var id: String
  /// What a completed ad grants.
  public var reward: RewardConfig
  /// The networks that can fill this zone.
  public var lineItems: [LineItem]
  /// The whole load's time budget: the load ends in `ready` or `failed` within it.
  public var loadTimeoutSeconds: Double
  /// How long a loaded ad stays showable (a network's own shorter lifetime wins).
  public var adExpirySeconds: Double
  /// How long a reward-less dismissal waits for a late reward before it is final.
  public var rewardGraceSeconds: Double
  /// Whether to load the next ad after each show and after expiry.
  public var autoReload: Bool

  public init(
    id: String, reward: RewardConfig, lineItems: [LineItem], loadTimeoutSeconds: Double = 30,
    adExpirySeconds: Double = 3600, rewardGraceSeconds: Double = 5, autoReload: Bool = true
  ) {
    self.id = id
    self.reward = reward
    self.lineItems = lineItems
    self.loadTimeoutSeconds = loadTimeoutSeconds
    self.adExpirySeconds = adExpirySeconds
    self.rewardGraceSeconds = rewardGraceSeconds
    self.autoReload = autoReload
  }
}

/// The reward a zone grants.
public struct RewardConfig: Codable, Sendable, Equatable {
  public var type: String
  public var amount: Int

  public init(type: String, amount: Int) {
    self.type = type
    self.amount = amount
  }
}

/// One network's placement in a zone's waterfall.
public struct LineItem: Codable, Sendable, Equatable {
  /// The network's id, e.g. "empower".
  public var network: NetworkID
  /// The network's own placement id (Empower zone id, MAX ad unit id, AdMob ad unit id).
  public var placementId: String
  /// The tier: 0 is tried first.
  public var priority: Int
  /// Expected price in USD per thousand impressions; orders line items within a tier.
  public var ecpm: Double
  /// How long to wait for this network before moving on.
  public var timeoutSeconds: Double

  public init(
    network: NetworkID, placementId: String, priority: Int, ecpm: Double, timeoutSeconds: Double = 10
  ) {
    self.network = network
    self.placementId = placementId
    self.priority = priority
    self.ecpm = ecpm
    self.timeoutSeconds = timeoutSeconds
  }
}

extension ZoneConfig {
  var loadTimeout: Duration { .seconds(loadTimeoutSeconds) }
  var adExpiry: Duration { .seconds(adExpirySeconds) }
  var rewardGrace: Duration { .seconds(rewardGraceSeconds) }
}
