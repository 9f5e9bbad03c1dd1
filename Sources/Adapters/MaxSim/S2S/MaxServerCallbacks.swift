import MediationKit
import MediationKitSimulation
import RewardCallbacks

/// An ad unit's S2S rewarded callback, as the MAX dashboard holds it (simulation wiring): the
/// "Server Side Callback URL" template and the account's event key.
public struct MASimulatedServerCallbackSettings: Sendable, Equatable {
  /// The callback URL template, e.g. `https://example.com/reward?user={USER_ID}&token={EVENT_TOKEN}`.
  public var urlTemplate: String
  /// The account's S2S event key, which keys `{EVENT_TOKEN}` and `{EVENT_TOKEN_ALL}`.
  public var eventKey: String

  /// Creates the settings.
  public init(urlTemplate: String, eventKey: String) {
    self.urlTemplate = urlTemplate
    self.eventKey = eventKey
  }
}

/// One S2S rewarded callback the simulated AppLovin server built after a completed video.
public struct MASimulatedServerCallback: Sendable, Equatable {
  /// The ad unit that served the impression (`{AD_UNIT_ID}`).
  public var adUnitIdentifier: String
  /// The unique event id: 40 hex characters (`{EVENT_ID}`).
  public var eventID: String
  /// ``ALSdk/userIdentifier`` when the ad was shown (`{USER_ID}`).
  public var userIdentifier: String?
  /// The custom data the show passed (`{CUSTOM_DATA}`).
  public var customData: String?
  /// The ad unit's S2S reward amount (`{AMOUNT}`).
  public var amount: Int
  /// The ad unit's S2S reward currency (`{CURRENCY}`).
  public var currency: String
  /// The mediated network that served the ad (`{NETWORK_NAME}`).
  public var networkName: String
  /// The placement the show passed (`{PLACEMENT}`).
  public var placement: String?
  /// When the impression happened, in milliseconds since 1970 (`{IMPRESSION_TIMESTAMP}`).
  public var impressionTimestampMilliseconds: Int64
  /// The callback URL: the template with every macro expanded; `nil` when the template is not a
  /// valid MAX template (then ``failure`` says why, and nothing is sent).
  public var url: String?
  /// Why no URL could be built; `nil` when ``url`` is set.
  public var failure: String?

  /// The decoded value of every macro the simulated server knows, as the template expands them.
  /// Device identifiers the simulation has none of (`{IDFA}`, `{IDFV}`, `{IP}`,
  /// `{PACKAGE_NAME}`) are empty.
  public var macroValues: [MaxMacro: String] {
    [
      .AD_UNIT_ID: adUnitIdentifier, .AD_UNIT_NAME: adUnitIdentifier, .AMOUNT: String(amount), .CC: "US",
      .CURRENCY: currency, .CUSTOM_DATA: customData ?? "", .EVENT_ID: eventID,
      .IMPRESSION_TIMESTAMP: String(impressionTimestampMilliseconds), .NETWORK_NAME: networkName,
      .PLACEMENT: placement ?? "", .PLATFORM: "ios", .USER_ID: userIdentifier ?? "",
    ]
  }
}

/// The simulated AppLovin server's S2S state: the stream event ids are drawn from (its own, so
/// callbacks never shift the SDK's other draws) and the most recent callbacks.
struct MaxServerCallbackLog: Sendable {
  private var eventIDs: SeededRandom
  private let limit: Int
  private(set) var history: [MASimulatedServerCallback] = []
  private(set) var count = 0

  init(eventIDs: SeededRandom, limit: Int) {
    self.eventIDs = eventIDs
    self.limit = max(0, limit)
  }

  /// The next event id: 40 lowercase hex characters from the seeded stream.
  mutating func nextEventID() -> String {
    var hex = ""
    for _ in 0..<3 {
      let digits = String(eventIDs.next(), radix: 16)
      hex += String(repeating: "0", count: 16 - digits.count) + digits
    }
    return String(hex.prefix(40))
  }

  mutating func record(_ callback: MASimulatedServerCallback) {
    count += 1
    guard limit > 0 else { return }
    if history.count == limit { history.removeFirst() }
    history.append(callback)
  }
}

extension ALSdk {
  /// The most recent S2S rewarded callbacks the simulated AppLovin server built, oldest first: one
  /// per completed video of an ad unit with a server callback, whether or not the client-side
  /// `didRewardUser` came (late, twice, or not at all). Keeps at most
  /// ``MaxBehaviorProfile/serverCallbackHistoryLimit``.
  public var simulatedServerCallbacks: [MASimulatedServerCallback] {
    serverCallbacks.withLock { $0.history }
  }

  /// How many S2S rewarded callbacks the simulated server built in all.
  public var simulatedServerCallbackCount: Int { serverCallbacks.withLock { $0.count } }

  /// Builds the S2S callback of `ad`'s completed video, records it and hands it to the sender.
  func sendServerCallback(for ad: MAAd) {
    guard let settings = ad.serverCallback else { return }
    let context = ad.shownWith
    let eventID = serverCallbacks.withLock { $0.nextEventID() }
    var callback = MASimulatedServerCallback(
      adUnitIdentifier: ad.adUnitIdentifier, eventID: eventID, userIdentifier: context.userIdentifier,
      customData: context.customData, amount: ad.rewardAmount, currency: ad.rewardLabel,
      networkName: ad.networkName, placement: ad.placement,
      impressionTimestampMilliseconds: context.impressionMilliseconds ?? wallClockMilliseconds())
    do {
      let template = try MaxCallbackTemplate(settings.urlTemplate)
      callback.url = template.expand(callback.macroValues, eventKey: settings.eventKey)
    } catch {
      callback.failure = "the ad unit's callback URL is not a valid MAX template: \(error)"
    }
    serverCallbacks.withLock { $0.record(callback) }
    if let url = callback.url, let serverCallbackSender {
      serverCallbackSender.send(ServerCallbackRequest(network: MaxNetwork.id, url: url))
    }
  }
}
