import Foundation
import GoogleSim
import MaxSim
import MediationKit
import MediationKitSimulation
import MediationKitTesting
import RewardCallbacks
import S2SDelivery
import Testing

/// The end-to-end test: a mediator's simulated MAX and Google servers call a receiver on
/// loopback over real HTTP after one show each, and the publisher-side verifiers accept what
/// arrives — once.
@Suite("Server-to-server reward callbacks end to end")
struct EndToEndTests {
  static let eventKey = "e2e-event-key"
  // No '&': Google's verifier refuses a signed value holding one (its decoded query would read two
  // ways); '=', '/', spaces and non-ASCII text go through.
  static let userID = "player 42/é=x 1"
  static let customData = "a=b c d/é"

  @Test func bothNetworksCallTheReceiverAndTheCallbacksVerifyOnce() async throws {
    let receiver = try LoopbackHTTPReceiver()
    defer { receiver.stop() }
    let maxTemplate =
      "\(receiver.baseURL)/max/reward?event_id={EVENT_ID}&token={EVENT_TOKEN}&token_all={EVENT_TOKEN_ALL}"
      + "&user_id={USER_ID}&amount={AMOUNT}&currency={CURRENCY}&custom_data={CUSTOM_DATA}"
      + "&ad_unit_id={AD_UNIT_ID}&network={NETWORK_NAME}&placement={PLACEMENT}"
      + "&timestamp={IMPRESSION_TIMESTAMP}"
    let config = MediationConfig(zones: [
      ZoneConfig(
        id: "max_zone", reward: ZoneConfig.RewardConfig(type: "gems", amount: 30),
        lineItems: [
          ZoneConfig.LineItem(
            network: MaxNetwork.id, placementId: "6d1a2b3c4d5e6f70", priority: 0, ecpm: 10,
            serverCallback: ZoneConfig.ServerCallbackConfig(url: maxTemplate, eventKey: Self.eventKey))
        ], autoReload: false),
      ZoneConfig(
        id: "google_zone", reward: ZoneConfig.RewardConfig(type: "coins", amount: 75),
        lineItems: [
          ZoneConfig.LineItem(
            network: GoogleNetwork.id, placementId: "ca-app-pub-1/2", priority: 0, ecpm: 10,
            serverCallback: ZoneConfig.ServerCallbackConfig(url: "\(receiver.baseURL)/admob/ssv"))
        ], autoReload: false),
    ])
    let dispatcher = ServerCallbackDispatcher(client: URLSessionHTTPGetClient())
    let scheduler = VirtualScheduler()
    let wallClock: @Sendable () -> Int64 = { 1_750_000_000_000 + Int64(scheduler.now.milliseconds) }
    // The simulated servers' wall clock and sender come with their registrations.
    let made = MadeAdapters()
    let registry = try AdapterRegistry([
      MaxNetwork.registration(
        profile: .wellBehaved, wallClockMilliseconds: wallClock, serverCallbacks: dispatcher),
      GoogleNetwork.registration(
        profile: .wellBehaved, wallClockMilliseconds: wallClock, serverCallbacks: dispatcher),
    ])
    let mediator = try Mediator(
      config: config, registry: made.recording(registry), scheduler: scheduler,
      options: MediatorOptions(seed: 11))
    try mediator.setUserID(Self.userID)

    for zoneID in ["max_zone", "google_zone"] {
      let ad = try mediator.rewardedAd(zone: zoneID)
      // The synchronous forms (in an async function `load()` and `show` mean the async ones):
      // this test drives the virtual clock itself.
      func startLoad() { ad.load() }
      func startShow() throws { try ad.show(from: HeadlessPresenter(), customData: Self.customData) }
      startLoad()
      scheduler.advance(by: .seconds(30))
      #expect(ad.isReady, "zone \(zoneID) did not fill")
      try startShow()
      scheduler.advance(by: .seconds(120))
      // Virtual time runs ahead of the real HTTP: wait for this network's callback.
      #expect(await dispatcher.waitUntilIdle(timeout: .seconds(30)))
    }

    #expect(dispatcher.deliveries.map(\.outcome) == [.delivered(status: 200), .delivered(status: 200)])
    #expect(dispatcher.deliveries.map(\.network) == ["max", "google"])
    let requests = receiver.requests
    #expect(requests.map(\.path) == ["/max/reward", "/admob/ssv"])
    #expect(requests.allSatisfy { $0.method == "GET" })

    // MAX: the publisher's server checks the event token and the all-macro token.
    let maxVerifier = MaxCallbackVerifier(
      template: try MaxCallbackTemplate(maxTemplate), eventKey: Self.eventKey)
    let maxReward = try maxVerifier.verify(try #require(requests.first).target)
    #expect(maxReward.userID == Self.userID)
    #expect(maxReward.customData == Self.customData)
    #expect(maxReward.amount == "30")
    #expect(maxReward.currency == "gems")
    #expect(maxReward.adUnit == "6d1a2b3c4d5e6f70")

    // Google: the publisher's server checks the signature with the simulated server's keys.
    let google = try #require(made[GoogleNetwork.id] as? GoogleAdapter)
    let googleVerifier = GoogleSSVVerifier(
      keys: try VerifierKeys(json: google.mobileAds.simulatedVerifierKeysJSON()))
    let googleReward = try googleVerifier.verify(requests[1].target)
    #expect(googleReward.userID == Self.userID)
    #expect(googleReward.customData == Self.customData)
    #expect(googleReward.amount == "75")
    #expect(googleReward.currency == "coins")
    #expect(googleReward.adUnit == "ca-app-pub-1/2")

    // The same callbacks delivered a second time are replays.
    for delivery in dispatcher.deliveries {
      dispatcher.send(ServerCallbackRequest(network: delivery.network, url: delivery.url))
      #expect(await dispatcher.waitUntilIdle(timeout: .seconds(30)))
    }
    let again = Array(receiver.requests.dropFirst(2).map(\.target))
    #expect(again == requests.map(\.target))
    let maxReplay = #expect(throws: CallbackRejection.self) { try maxVerifier.verify(again[0]) }
    #expect(maxReplay?.reason == .replayed)
    let googleReplay = #expect(throws: CallbackRejection.self) { try googleVerifier.verify(again[1]) }
    #expect(googleReplay?.reason == .replayed)
  }
}
