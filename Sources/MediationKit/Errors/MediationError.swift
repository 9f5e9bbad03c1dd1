/// An error MediationKit reports to the app: a stable code, what happened, and what to do.
///
/// Every code carries a name, its cause and a resolution (``Code/resolution``), so a developer can
/// act on it without reading MediationKit's source.
public struct MediationError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A stable error code.
  public enum Code: String, Sendable, Equatable, CaseIterable, Codable {
    case noFill = "no_fill"
    case loadTimeout = "load_timeout"
    case notReady = "not_ready"
    case expired
    case alreadyUsed = "already_used"
    case anotherAdShowing = "another_ad_showing"
    case showFailed = "show_failed"
    case displayTimeout = "display_timeout"
    case unknownZone = "unknown_zone"
    case unknownNetwork = "unknown_network"
    case duplicateNetwork = "duplicate_network"
    case invalidConfiguration = "invalid_configuration"
    case capped
    case ledgerFailure = "ledger_failure"
    case invalidUserID = "invalid_user_id"
    case incompatibleAdapter = "incompatible_adapter"

    /// What usually causes this error.
    public var cause: String {
      switch self {
      case .noFill: "No network in the zone's line items had an ad to serve."
      case .loadTimeout: "The zone's load time budget ran out before any network filled."
      case .notReady: "show was called before an ad finished loading."
      case .expired: "The loaded ad passed its expiry before it was shown."
      case .alreadyUsed: "Ads are single-use; this one was already shown."
      case .anotherAdShowing: "Another full-screen ad is on screen (MAX error -23 semantics)."
      case .showFailed: "The network could not display the ad."
      case .displayTimeout: "The network accepted the show but never reported the ad on screen."
      case .unknownZone: "The zone id is not in the configuration."
      case .unknownNetwork: "No adapter is registered under that network id."
      case .duplicateNetwork: "Two adapters were registered under one network id."
      case .invalidConfiguration: "The zone configuration breaks a rule."
      case .capped: "The zone's frequency cap or pacing does not allow another show yet."
      case .ledgerFailure: "The reward ledger could not read or write its storage."
      case .invalidUserID: "The user id is longer than the networks' server callbacks accept."
      case .incompatibleAdapter:
        "The adapter was built for another MediationKit adapter API, or does not support the linked network SDK."
      }
    }

    /// What to do about it.
    public var resolution: String {
      switch self {
      case .noFill: "Retry later with backoff, or add line items from more networks."
      case .loadTimeout: "Raise the zone's loadTimeoutSeconds or lower line item timeouts."
      case .notReady: "Wait for the ready event, or check isReady before showing."
      case .expired: "Load again; enable autoReload to replace expired ads automatically."
      case .alreadyUsed: "Load a new ad after each show."
      case .anotherAdShowing: "Show the ad after the current one is dismissed."
      case .showFailed: "Load a new ad; if it persists, check the network's dashboard."
      case .displayTimeout: "Load a new ad; report the network's misbehaviour to its vendor."
      case .unknownZone: "Use one of the zone ids the configuration lists."
      case .unknownNetwork: "Register the adapter first, or use one of the registered ids."
      case .duplicateNetwork: "Register each network once."
      case .invalidConfiguration: "Fix the reported fields; `mediate validate FILE` lists them all."
      case .capped: "Show again after retryAfter, or raise the zone's caps."
      case .ledgerFailure: "Check the ledger file's path, permissions and free space."
      case .invalidUserID: "Use an id of at most 8192 characters, e.g. a hash of a longer one."
      case .incompatibleAdapter:
        "Upgrade what the message names: the adapter, MediationKit or the network SDK."
      }
    }
  }

  /// The error's code.
  public var code: Code
  /// What happened, specifically.
  public var message: String
  /// For a failed load: every line item considered and what became of it.
  public var waterfall: [AdInfo.NetworkResponse]
  /// For `capped`: how long until a show is allowed.
  public var retryAfter: Duration?

  /// Creates an error with `code` and a specific `message`.
  public init(
    _ code: Code, _ message: String, waterfall: [AdInfo.NetworkResponse] = [], retryAfter: Duration? = nil
  ) {
    self.code = code
    self.message = message
    self.waterfall = waterfall
    self.retryAfter = retryAfter
  }

  public var description: String { "\(code.rawValue): \(message)" }

  /// "unknown network 'maxx'; registered: empower, google, max".
  public static func unknownNetwork(_ id: NetworkID, known: [NetworkID]) -> MediationError {
    let list = known.isEmpty ? "none" : known.map(\.rawValue).joined(separator: ", ")
    return MediationError(.unknownNetwork, "unknown network '\(id)'; registered: \(list)")
  }

  /// "unknown zone 'x'; known: a, b".
  public static func unknownZone(_ id: String, known: [String]) -> MediationError {
    let list = known.isEmpty ? "none" : known.joined(separator: ", ")
    return MediationError(.unknownZone, "unknown zone '\(id)'; known: \(list)")
  }
}
