import Foundation
import MaxSim
import MediationKit
import MediationKitSimulation
import MediationKitTesting
import RewardCallbacks
import Testing

/// Collects what a simulated server sends.
final class SentCallbacks: ServerCallbackSender {
  private let storage = Locked<[ServerCallbackRequest]>([])
  var requests: [ServerCallbackRequest] { storage.get() }
  func send(_ callback: ServerCallbackRequest) { storage.withLock { $0.append(callback) } }
}

@Suite("MAX S2S rewarded callbacks from the simulated server")
struct MaxServerCallbackTests {
  static let eventKey = "event-key-123"
  static let template =
    "https://rewards.example.com/max?event_id={EVENT_ID}&token={EVENT_TOKEN}&token_all={EVENT_TOKEN_ALL}"
    + "&user_id={USER_ID}&amount={AMOUNT}&currency={CURRENCY}&custom_data={CUSTOM_DATA}"
    + "&ad_unit_id={AD_UNIT_ID}&network={NETWORK_NAME}&placement={PLACEMENT}&ts={IMPRESSION_TIMESTAMP}"
  static let settings = MASimulatedServerCallbackSettings(urlTemplate: template, eventKey: eventKey)
  /// A MAX ad unit id: 16 hex digits, the shape the verifier checks `{AD_UNIT_ID}` against.
  static let adUnitID = "c0ffee0123456789"

  /// One load and show of ``adUnitID`` with an S2S callback; returns the SDK after the show ran.
  static func showOnce(
    _ profile: MaxBehaviorProfile = .wellBehaved, settings: MASimulatedServerCallbackSettings? = settings,
    userID: String? = "user-7", customData: String? = "a&b=c d/é", seed: UInt64 = 42,
    sender: SentCallbacks? = nil, recorder: CallbackRecorder? = nil
  ) -> ALSdk {
    let scheduler = VirtualScheduler()
    let sdk = ALSdk(
      scheduler: scheduler, random: SeededRandom(seed: seed), profile: profile,
      wallClockMilliseconds: { 1_700_000_000_000 + Int64(scheduler.now.milliseconds) },
      serverCallbacks: sender)
    sdk.userIdentifier = userID
    let ad = MARewardedAd.shared(withAdUnitIdentifier: Self.adUnitID, sdk: sdk)
    let recorder = recorder ?? CallbackRecorder(clock: scheduler)
    ad.delegate = recorder
    ad.load(
      simulating: MASimulatedLoad(
        auctionID: 1, lineItemECPM: 10, rewardAmount: 25, rewardLabel: "gems", serverCallback: settings))
    scheduler.run()
    ad.show(forPlacement: "level_end", customData: customData)
    scheduler.run()
    withExtendedLifetime(recorder) {}
    return sdk
  }

  @Test func aCompletedVideoSendsOneCallbackThatVerifies() throws {
    let sender = SentCallbacks()
    let sdk = Self.showOnce(sender: sender)
    let callback = try #require(sdk.simulatedServerCallbacks.first)
    #expect(sdk.simulatedServerCallbackCount == 1)
    #expect(callback.eventID.count == 40)
    #expect(callback.eventID.allSatisfy { $0.isHexDigit && !$0.isUppercase })
    #expect(callback.userIdentifier == "user-7")
    #expect(callback.customData == "a&b=c d/é")
    #expect(callback.amount == 25)
    #expect(callback.currency == "gems")
    #expect(callback.placement == "level_end")
    #expect(callback.failure == nil)
    #expect(callback.impressionTimestampMilliseconds > 1_700_000_000_000)
    let url = try #require(callback.url)
    #expect(sender.requests == [ServerCallbackRequest(network: "max", url: url)])
    #expect(url.contains("custom_data=a%26b%3Dc%20d%2F%C3%A9"))

    let verifier = MaxCallbackVerifier(
      template: try MaxCallbackTemplate(Self.template), eventKey: Self.eventKey)
    let reward = try verifier.verify(url)
    #expect(reward.transactionID == callback.eventID)
    #expect(reward.userID == "user-7")
    #expect(reward.customData == "a&b=c d/é")
    #expect(reward.amount == "25")
    #expect(reward.currency == "gems")
    #expect(reward.adUnit == Self.adUnitID)
    #expect(reward.adNetwork == callback.networkName)
    #expect(reward.timestamp == String(callback.impressionTimestampMilliseconds))
    // Delivered twice: the second is a replay.
    #expect(throws: CallbackRejection.self) { try verifier.verify(url) }
  }

  @Test func tamperedForgedOrWronglyKeyedCallbacksAreRejected() throws {
    let url = try #require(Self.showOnce().simulatedServerCallbacks.first?.url)
    let template = try MaxCallbackTemplate(Self.template)
    func rejection(_ url: String, key: String = Self.eventKey) -> CallbackRejection.Reason? {
      do {
        _ = try MaxCallbackVerifier(template: template, eventKey: key).verify(url)
        return nil
      } catch {
        return error.reason
      }
    }
    #expect(rejection(url) == nil)
    #expect(rejection(url.replacingOccurrences(of: "amount=25", with: "amount=2500")) == .invalidToken)
    #expect(
      rejection(url.replacingOccurrences(of: "user_id=user-7", with: "user_id=user-8")) == .invalidToken)
    #expect(rejection(url, key: "another-key") == .invalidToken)
    let forgedID = String(repeating: "0", count: 40)
    let eventID = try #require(Self.showOnce().simulatedServerCallbacks.first?.eventID)
    #expect(rejection(url.replacingOccurrences(of: eventID, with: forgedID)) == .invalidToken)
  }

  @Test func theServerSendsEvenWhenTheClientRewardMisbehaves() throws {
    for quirk in [\MaxBehaviorProfile.rewardAfterHideRate, \.duplicateRewardRate] {
      var profile = MaxBehaviorProfile.wellBehaved
      profile[keyPath: quirk] = 1
      let scheduler = VirtualScheduler()
      let recorder = CallbackRecorder(clock: scheduler)
      let sdk = Self.showOnce(profile, recorder: recorder)
      #expect(sdk.simulatedServerCallbackCount == 1)
      #expect(sdk.simulatedServerCallbacks.first?.url != nil)
    }
  }

  @Test func noCompletedVideoNoCallback() {
    var skips = MaxBehaviorProfile.wellBehaved
    skips.skipRate = 1
    #expect(Self.showOnce(skips).simulatedServerCallbackCount == 0)
    var fails = MaxBehaviorProfile.wellBehaved
    fails.displayFailureRate = 1
    #expect(Self.showOnce(fails).simulatedServerCallbackCount == 0)
  }

  @Test func anAdUnitWithoutACallbackSendsNone() {
    let sender = SentCallbacks()
    let sdk = Self.showOnce(settings: nil, sender: sender)
    #expect(sdk.simulatedServerCallbackCount == 0)
    #expect(sender.requests.isEmpty)
  }

  @Test func anInvalidTemplateIsRecordedWithItsReasonAndNotSent() throws {
    let sender = SentCallbacks()
    let sdk = Self.showOnce(
      settings: MASimulatedServerCallbackSettings(
        urlTemplate: "https://a.example/cb?u={USERID}", eventKey: "k"),
      sender: sender)
    let callback = try #require(sdk.simulatedServerCallbacks.first)
    #expect(callback.url == nil)
    #expect(callback.failure?.contains("unknown macro {USERID}") == true)
    #expect(sender.requests.isEmpty)
  }

  @Test func noUserIDOrCustomDataExpandsToEmptyValues() throws {
    let url = try #require(Self.showOnce(userID: nil, customData: nil).simulatedServerCallbacks.first?.url)
    #expect(url.contains("&user_id=&"))
    #expect(url.contains("&custom_data=&"))
    let verifier = MaxCallbackVerifier(
      template: try MaxCallbackTemplate(Self.template), eventKey: Self.eventKey)
    #expect(try verifier.verify(url).userID == "")
  }

  @Test func eventIDsAreSeededAndLeaveTheOtherDrawsAlone() throws {
    let first = try #require(Self.showOnce(seed: 9).simulatedServerCallbacks.first)
    let again = try #require(Self.showOnce(seed: 9).simulatedServerCallbacks.first)
    let other = try #require(Self.showOnce(seed: 10).simulatedServerCallbacks.first)
    #expect(first == again)
    #expect(first.eventID != other.eventID)
    // The same show with and without a callback: the same delegate timeline.
    let withCallback = CallbackRecorder(clock: VirtualScheduler())
    let without = CallbackRecorder(clock: VirtualScheduler())
    _ = Self.showOnce(MaxBehaviorProfile.default, seed: 3, recorder: withCallback)
    _ = Self.showOnce(MaxBehaviorProfile.default, settings: nil, seed: 3, recorder: without)
    #expect(withCallback.calls == without.calls)
  }

  @Test func theVendorLoadTakesTheCallbackFromExtraParameters() throws {
    let scheduler = VirtualScheduler()
    let sdk = ALSdk(scheduler: scheduler, random: SeededRandom(seed: 1), profile: .wellBehaved)
    let ad = MARewardedAd.shared(withAdUnitIdentifier: Self.adUnitID, sdk: sdk)
    let recorder = CallbackRecorder(clock: scheduler)
    ad.delegate = recorder
    ad.setExtraParameter(forKey: MARewardedAd.simulatedServerCallbackURLKey, value: Self.template)
    ad.setExtraParameter(forKey: MARewardedAd.simulatedEventKeyKey, value: Self.eventKey)
    ad.setExtraParameter(forKey: MARewardedAd.simulatedRewardAmountKey, value: "3")
    ad.load()
    scheduler.run()
    ad.show()
    scheduler.run()
    let url = try #require(sdk.simulatedServerCallbacks.first?.url)
    let verifier = MaxCallbackVerifier(
      template: try MaxCallbackTemplate(Self.template), eventKey: Self.eventKey)
    #expect(try verifier.verify(url).amount == "3")
  }

  @Test func theHistoryIsBounded() {
    var profile = MaxBehaviorProfile.wellBehaved
    profile.serverCallbackHistoryLimit = 0
    let sdk = Self.showOnce(profile)
    #expect(sdk.simulatedServerCallbacks.isEmpty)
    #expect(sdk.simulatedServerCallbackCount == 1)
  }

  @Test func theAdapterPassesTheLineItemsCallbackAndTheUserID() throws {
    let scheduler = VirtualScheduler()
    let sender = SentCallbacks()
    let environment = AdapterEnvironment(scheduler: scheduler, random: SeededRandom(seed: 5))
    let registration = MaxNetwork.registration(
      profile: .wellBehaved, wallClockMilliseconds: { 1_234 }, serverCallbacks: sender)
    let adapter = registration.makeAdapter(environment) as! MaxAdapter
    var request = loadRequest(Self.adUnitID, auctionID: 1)
    request.serverCallback = ZoneConfig.ServerCallbackConfig(url: Self.template, eventKey: Self.eventKey)
    let loaded = Locked<AdapterLoadedAd?>(nil)
    _ = adapter.load(request) { result in loaded.set(try? result.get()) }
    scheduler.run()
    let ad = try #require(loaded.get())
    let signals = Locked<[String]>([])
    ad.ad.show(
      AdapterShowRequest(zoneID: "zone-1", customData: "cd", userID: "u-9"), from: HeadlessPresenter(),
      signals: AdapterSignal.Sink { signal in signals.withLock { $0.append(signal.name) } })
    scheduler.run()
    #expect(adapter.sdk.userIdentifier == "u-9")
    let url = try #require(sender.requests.first?.url)
    let verifier = MaxCallbackVerifier(
      template: try MaxCallbackTemplate(Self.template), eventKey: Self.eventKey)
    let reward = try verifier.verify(url)
    #expect(reward.userID == "u-9")
    #expect(reward.customData == "cd")
    #expect(reward.amount == "10")
    #expect(reward.currency == "coins")
    #expect(reward.timestamp == "1234")
    #expect(signals.get().contains("rewarded"))
  }
}
