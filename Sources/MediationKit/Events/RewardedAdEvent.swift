/// What a ``RewardedAd`` tells the app: one normalized stream, whatever the network.
///
/// ```
/// load → loading → ready(AdInfo) ─ show → shown → [clicked] [revenuePaid] → rewarded(Reward) → closed
///            └─→ failed(error)              └─→ showFailed(error)          └──────────────→ skipped
/// ready ─(expiry, or the network withdrew it)→ expired
/// ```
/// Per show: at most one `rewarded`, always before `closed`; `skipped` never follows `rewarded`;
/// exactly one terminal event (`closed`, `skipped` or `showFailed`), after which only
/// `diagnostic` may come.
public enum RewardedAdEvent: Sendable, Equatable {
  /// A load started.
  case loading
  /// An ad is ready to show; says who serves it and how the auction went.
  case ready(AdInfo)
  /// The load failed: no network filled within the zone's budget.
  case failed(MediationError)
  /// The ad is on screen.
  case shown(AdInfo)
  /// The user tapped the ad.
  case clicked
  /// The impression's revenue.
  case revenuePaid(RewardedAdEvent.Revenue)
  /// The user earned the reward. Grant it here, and only here.
  case rewarded(Reward)
  /// The ad was dismissed after the reward (terminal).
  case closed
  /// The ad was dismissed without a reward (terminal).
  case skipped
  /// The ad could not be shown (terminal).
  case showFailed(MediationError)
  /// The ready ad expired, or the network withdrew it (an `ad_withdrawn` diagnostic says why),
  /// before it was shown; load again.
  case expired
  /// Something the network did that the core corrected or ignored (a duplicate or late reward,
  /// a callback after the terminal event). Informational; never grant on it.
  case diagnostic(RewardedAdEvent.Diagnostic)

  /// The event's wire name, as the CLI prints it (`revenue_paid`, `show_failed`, …).
  public var name: String {
    switch self {
    case .loading: "loading"
    case .ready: "ready"
    case .failed: "failed"
    case .shown: "shown"
    case .clicked: "clicked"
    case .revenuePaid: "revenue_paid"
    case .rewarded: "rewarded"
    case .closed: "closed"
    case .skipped: "skipped"
    case .showFailed: "show_failed"
    case .expired: "expired"
    case .diagnostic: "diagnostic"
    }
  }

  /// Whether this event ends a show.
  public var isTerminal: Bool {
    switch self {
    case .closed, .skipped, .showFailed: true
    default: false
    }
  }
}

/// The reward the user earned, with an id unique to this grant.
public struct Reward: Sendable, Equatable, Codable {
  /// The reward's currency or item, e.g. "coins".
  public var type: String
  /// How many units.
  public var amount: Int
  /// A unique id for this grant, for de-duplication on the app's server.
  public var transactionID: String
  /// The network that served the ad.
  public var network: NetworkID
  /// What the network itself reported, when it reported a payload.
  public var networkReward: AdapterSignal.NetworkReward?
  /// Whether this is a redelivery, on a later start, of a reward the app did not acknowledge
  /// (see ``RewardLedger``). Credit it only if its transaction id was not credited before.
  public var isRedelivery: Bool
  /// The A/B test arms of the load that made the rewarded ad (``AdInfo/experimentArms``): kept in
  /// the ledger with the reward, so a redelivery reports them too. Empty when there were none.
  public var experimentArms: [String: String]

  /// Creates a reward; the mediator makes these, tests and ledgers rebuild them.
  public init(
    type: String, amount: Int, transactionID: String, network: NetworkID,
    networkReward: AdapterSignal.NetworkReward? = nil,
    isRedelivery: Bool = false, experimentArms: [String: String] = [:]
  ) {
    self.experimentArms = experimentArms
    self.type = type
    self.amount = amount
    self.transactionID = transactionID
    self.network = network
    self.networkReward = networkReward
    self.isRedelivery = isRedelivery
  }

  private enum CodingKeys: String, CodingKey {
    case type, amount, transactionID, network, networkReward, isRedelivery, experimentArms
  }

  /// Reads a reward; `isRedelivery` defaults to `false` and `experimentArms` to none when absent
  /// (entries written before arms existed).
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      type: try container.decode(String.self, forKey: .type),
      amount: try container.decode(Int.self, forKey: .amount),
      transactionID: try container.decode(String.self, forKey: .transactionID),
      network: try container.decode(NetworkID.self, forKey: .network),
      networkReward: try container.decodeIfPresent(AdapterSignal.NetworkReward.self, forKey: .networkReward),
      isRedelivery: try container.decodeIfPresent(Bool.self, forKey: .isRedelivery) ?? false,
      experimentArms: try container.decodeIfPresent([String: String].self, forKey: .experimentArms) ?? [:])
  }

  /// Writes a reward; `experimentArms` is left out when empty, so a reward without arms is
  /// written as before arms existed.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(type, forKey: .type)
    try container.encode(amount, forKey: .amount)
    try container.encode(transactionID, forKey: .transactionID)
    try container.encode(network, forKey: .network)
    try container.encodeIfPresent(networkReward, forKey: .networkReward)
    try container.encode(isRedelivery, forKey: .isRedelivery)
    if !experimentArms.isEmpty { try container.encode(experimentArms, forKey: .experimentArms) }
  }
}

extension RewardedAdEvent {
  /// Revenue for one impression, attributed to a zone and network.
  public struct Revenue: Sendable, Equatable {
    /// The network that served the impression.
    public var network: NetworkID
    /// The zone that showed it.
    public var zoneID: String
    /// The network's placement id.
    public var placementID: String
    /// Revenue in USD for this impression.
    public var usd: Double
    /// How exact ``usd`` is.
    public var precision: AdapterSignal.RevenuePrecision
    /// The A/B test arms of the load that made the ad (``AdInfo/experimentArms``), so revenue can
    /// be summed per arm. Empty when there were none.
    public var experimentArms: [String: String]

    /// Creates the revenue of one impression.
    public init(
      network: NetworkID, zoneID: String, placementID: String, usd: Double,
      precision: AdapterSignal.RevenuePrecision, experimentArms: [String: String] = [:]
    ) {
      self.experimentArms = experimentArms
      self.network = network
      self.zoneID = zoneID
      self.placementID = placementID
      self.usd = usd
      self.precision = precision
    }
  }
}

extension RewardedAdEvent {
  /// A note about a network's behaviour that the core corrected or ignored.
  public struct Diagnostic: Sendable, Equatable {
    /// What kind of thing happened.
    public enum Kind: String, Sendable, Equatable, Codable {
      /// The network reported the reward again; it was granted once.
      case duplicateReward = "duplicate_reward"
      /// The reward came after the dismissal was final; it was not granted.
      case lateReward = "late_reward"
      /// A callback arrived after the show's terminal event and was ignored.
      case signalAfterTerminal = "signal_after_terminal"
      /// A callback implied the ad was displayed before `displayed` arrived.
      case impliedDisplay = "implied_display"
      /// The network reported something twice (display, dismissal, revenue).
      case duplicateSignal = "duplicate_signal"
      /// The network did something out of order the core treated as the nearest valid step
      /// (a show failure after the display counts as the dismissal).
      case outOfOrderSignal = "out_of_order_signal"
      /// The network never reported the dismissal; the core ended the show after the maximum show
      /// duration.
      case endedByCore = "ended_by_core"
      /// A load completed after its line item timed out or was cancelled; the ad was discarded.
      case lateLoad = "late_load"
      /// The reward could not be recorded in the ledger; it is delivered anyway, but will not be
      /// redelivered if the app stops before crediting it. Or the app's acknowledgement of a reward
      /// could not be written: the reward stays pending and will be redelivered on a later start.
      case ledgerWriteFailed = "ledger_write_failed"
      /// The rewards still pending from earlier runs could not be read at start, so none were
      /// redelivered; ``Mediator/pendingRewards()`` reads them again. Sent to every zone.
      case ledgerReadFailed = "ledger_read_failed"
      /// A network that declares ``AdapterInfo/Capability/impressionRevenue`` reported no revenue for a
      /// shown impression; the core published its own estimate instead.
      case missingRevenue = "missing_revenue"
      /// A consent string a CMP stored (TCF, GPP, US Privacy) is malformed; the message names the
      /// key. It was left out of the privacy signals.
      case malformedConsent = "malformed_consent"
      /// The network withdrew a loaded ad (``AdapterWithdrawal/Sink``): before the show it was
      /// discarded and `expired` follows; after the show started it changed nothing.
      case adWithdrawn = "ad_withdrawn"
      /// The zone's plan changed on the running mediator: ``Mediator/apply(_:)`` (the message names
      /// the configuration's ``MediationConfig/version`` and what changed in the zone, or that the
      /// zone was removed), or a network its line items name was registered or unregistered.
      case configurationApplied = "configuration_applied"
    }

    /// What kind of note this is; stable, for filtering.
    public var kind: Kind
    /// The details, for the log.
    public var message: String

    /// Creates a note of `kind` with `message`.
    public init(_ kind: Kind, _ message: String) {
      self.kind = kind
      self.message = message
    }
  }
}
