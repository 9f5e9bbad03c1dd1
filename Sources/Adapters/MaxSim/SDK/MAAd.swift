import MediationKit

/// The format of a MAX ad (the simulated SDK serves rewarded ads only).
public final class MAAdFormat: Sendable, CustomStringConvertible {
  /// The format's label, e.g. `"REWARDED"`.
  public let label: String

  private init(label: String) { self.label = label }

  /// A full-screen rewarded ad.
  public static let rewarded = MAAdFormat(label: "REWARDED")

  public var description: String { label }
}

/// An ad that MAX served for an ad unit, passed to every delegate callback.
///
/// Mirrors the vendor's `MAAd`: which network filled, what the impression is worth, and the
/// placement the show was tied to.
public final class MAAd: Sendable, CustomStringConvertible {
  /// The ad's format (always ``MAAdFormat/rewarded`` here).
  public let format: MAAdFormat
  /// The ad unit this ad was loaded for.
  public let adUnitIdentifier: String
  /// The mediated network that filled, e.g. `"AppLovin"` or `"Google AdMob"`.
  public let networkName: String
  /// The mediated network's own placement for this ad.
  public var networkPlacement: String {
    "\(networkName.lowercased().replacingOccurrences(of: " ", with: "_"))-\(adUnitIdentifier)"
  }
  /// The creative's identifier, if the network shares one.
  public var creativeIdentifier: String? {
    creativeNumber > 0 ? "creative-\(creativeNumber)" : nil
  }
  /// What this impression earns, in US dollars (the eCPM divided by 1000); 0 when unknown.
  public let revenue: Double
  /// How exact ``revenue`` is: `"exact"`, `"publisher_defined"`, `"estimated"` or `"undefined"`.
  public let revenuePrecision: String

  // Simulation wiring, read by the mediation adapter in this module (not vendor API).

  /// The price in USD per thousand, exactly as drawn (``revenue`` is this divided by 1000).
  let ecpm: Double
  /// The auction the ad was loaded for through ``MARewardedAd/load(simulating:)``; `nil` for a
  /// plain ``MARewardedAd/load()``.
  let simulatedAuctionID: UInt64?
  /// The reward configured for the load (the S2S reward of the ad unit).
  let rewardAmount: Int
  let rewardLabel: String
  /// The ad unit's S2S rewarded callback, as configured for the load; `nil` for none.
  let serverCallback: MASimulatedServerCallbackSettings?
  /// Makes ``creativeIdentifier`` on demand, so no string is built for ads nobody inspects.
  private let creativeNumber: Int

  /// What the show tied to the ad: its placement and, for its S2S callback, custom data, the user
  /// id and the wall clock when the impression happened. (One lock box per ad, not one per field:
  /// an ad is made per load.)
  private let showContext = Locked(ShowContext())

  struct ShowContext: Sendable {
    var placement: String?
    var customData: String?
    var userIdentifier: String?
    var impressionMilliseconds: Int64?
  }

  /// The placement passed to `show(forPlacement:customData:)`, once the ad is shown.
  public var placement: String? { showContext.withLock { $0.placement } }

  init(
    adUnitIdentifier: String, networkName: String, creativeNumber: Int, ecpm: Double,
    revenuePrecision: String, simulatedAuctionID: UInt64?, rewardAmount: Int, rewardLabel: String,
    serverCallback: MASimulatedServerCallbackSettings? = nil
  ) {
    self.format = .rewarded
    self.adUnitIdentifier = adUnitIdentifier
    self.networkName = networkName
    self.creativeNumber = creativeNumber
    self.ecpm = ecpm
    self.revenue = ecpm / 1000
    self.revenuePrecision = revenuePrecision
    self.simulatedAuctionID = simulatedAuctionID
    self.rewardAmount = rewardAmount
    self.rewardLabel = rewardLabel
    self.serverCallback = serverCallback
  }

  /// The stand-in the SDK passes to `didFail(toDisplay:withError:)` when there is no loaded ad.
  static func placeholder(adUnitIdentifier: String) -> MAAd {
    MAAd(
      adUnitIdentifier: adUnitIdentifier, networkName: "", creativeNumber: 0, ecpm: 0,
      revenuePrecision: "undefined", simulatedAuctionID: nil, rewardAmount: MAReward.defaultAmount,
      rewardLabel: MAReward.defaultLabel)
  }

  func setPlacement(_ placement: String?) {
    showContext.withLock { $0.placement = placement }
  }

  /// Ties the show's custom data and user id to the ad, for its S2S callback.
  func setShowContext(customData: String?, userIdentifier: String?) {
    showContext.withLock {
      $0.customData = customData
      $0.userIdentifier = userIdentifier
    }
  }

  /// Stamps the impression with the wall clock (milliseconds since 1970), once.
  func stampImpression(_ milliseconds: Int64) {
    showContext.withLock { $0.impressionMilliseconds = $0.impressionMilliseconds ?? milliseconds }
  }

  var shownWith: ShowContext { showContext.withLock { $0 } }

  public var description: String {
    "MAAd(\(format) \(adUnitIdentifier) \(networkName) revenue: \(revenue) \(revenuePrecision))"
  }
}

/// The reward a rewarded ad grants, as configured for the ad unit.
public final class MAReward: Sendable, CustomStringConvertible {
  /// The default amount when the ad unit has no reward configured.
  public static let defaultAmount = 0
  /// The default label when the ad unit has no reward configured.
  public static let defaultLabel = ""

  /// How many units the user earned.
  public let amount: Int
  /// The reward's currency or item name.
  public let label: String

  /// Creates a reward of `amount` units of `label`.
  public init(amount: Int, label: String) {
    self.amount = amount
    self.label = label
  }

  public var description: String { "MAReward(\(amount) \(label))" }
}

/// MAX's error codes: the vendor's `MAErrorCode` enum, as Swift sees it (raw values are the
/// codes MAX documents for iOS).
///
/// ``MAError/code`` is typed with it, as in the current SDK: compare with
/// `error.code == .noFill`, read the number with `error.code.rawValue`, or `switch error.code`.
public enum MAErrorCode: Int, Sendable, CaseIterable {
  /// An error that fits no other code; see the message.
  case unspecified = -1
  /// No mediated network had an eligible ad for this device.
  case noFill = 204
  /// Networks returned ads but every one failed to load.
  case adLoadFailed = -5001
  /// The ad failed to display.
  case adDisplayFailed = -4205
  /// A generic network error.
  case networkError = -1000
  /// The ad request timed out (slow connection).
  case networkTimeout = -1001
  /// The device is offline.
  case noNetwork = -1009
  /// `show` was called while another full-screen ad is on screen.
  case fullscreenAdAlreadyShowing = -23
  /// `show` was called before an ad loaded.
  case fullscreenAdNotReady = -24
  /// `show` was given a presenter that cannot present.
  case fullscreenAdInvalidViewController = -25
  /// The ad unit identifier is not valid.
  case invalidAdUnitIdentifier = -5603
  /// Simulation only (no vendor equivalent): a bid token that is unknown, expired, already used
  /// or for another auction was passed to ``MARewardedAd/load(simulating:)``.
  case simulatedInvalidBidToken = -5701
}

/// A MAX load or display error: a code from ``MAErrorCode`` and a message.
public final class MAError: Sendable, CustomStringConvertible {
  /// The error's code.
  public let code: MAErrorCode
  /// What went wrong.
  public let message: String
  /// The mediated network's own code, for display failures; 0 otherwise.
  public let mediatedNetworkErrorCode: Int
  /// The mediated network's own message, for display failures; empty otherwise.
  public let mediatedNetworkErrorMessage: String

  /// Simulation wiring: the auction of the failed ``MARewardedAd/load(simulating:)``, so the
  /// adapter answers that auction's loads only; `nil` otherwise.
  let simulatedAuctionID: UInt64?

  /// Creates an error.
  public init(
    code: MAErrorCode, message: String, mediatedNetworkErrorCode: Int = 0,
    mediatedNetworkErrorMessage: String = ""
  ) {
    self.code = code
    self.message = message
    self.mediatedNetworkErrorCode = mediatedNetworkErrorCode
    self.mediatedNetworkErrorMessage = mediatedNetworkErrorMessage
    self.simulatedAuctionID = nil
  }

  /// A load error of the simulated SDK, tagged with its auction.
  init(code: MAErrorCode, message: String, simulatedAuctionID: UInt64?) {
    self.code = code
    self.message = message
    self.mediatedNetworkErrorCode = 0
    self.mediatedNetworkErrorMessage = ""
    self.simulatedAuctionID = simulatedAuctionID
  }

  public var description: String { "MAError(\(code.rawValue): \(message))" }
}
