import Foundation
import GoogleSim
import MediationKit
import MediationKitSimulation
import MediationKitTesting
import RewardCallbacks
import RewardCrypto
import Testing

/// Collects what a simulated server sends.
final class SentCallbacks: ServerCallbackSender {
  private let storage = Locked<[ServerCallbackRequest]>([])
  var requests: [ServerCallbackRequest] { storage.get() }
  func send(_ callback: ServerCallbackRequest) { storage.withLock { $0.append(callback) } }
}

@Suite("Google SSV callbacks from the simulated ad server")
struct SSVCallbackTests {
  static let base: Int64 = 1_700_000_000_000
  static let ssvURL = "https://rewards.example.com/admob/ssv"

  /// An SDK instance whose ad unit `ca-app-pub-test/1` has an SSV URL, on a wall clock that
  /// follows virtual time.
  static func makeServer(
    _ profile: GoogleBehaviorProfile = .wellBehaved, seed: UInt64 = 42, url: String? = ssvURL,
    sender: SentCallbacks? = nil
  ) -> (VirtualScheduler, MobileAds) {
    let scheduler = VirtualScheduler()
    let mobileAds = MobileAds(
      scheduler: scheduler, random: SeededRandom(seed: seed), profile: profile,
      wallClockMilliseconds: { base + Int64(scheduler.now.milliseconds) }, serverCallbacks: sender)
    mobileAds.setSimulatedAdUnit(
      GADSimulatedAdUnit(ecpm: 10, rewardType: "coins", rewardAmount: 50, serverSideVerificationURL: url),
      forAdUnitID: "ca-app-pub-test/1")
    return (scheduler, mobileAds)
  }

  /// Loads and presents one ad with `customData` and `userID`.
  static func present(
    _ mobileAds: MobileAds, on scheduler: VirtualScheduler, customData: String? = "a=b c d/é",
    userID: String? = "user-7", recorder: CallbackRecorder? = nil
  ) throws -> GoogleSim.RewardedAd {
    let ad = try #require(loadAd(mobileAds, on: scheduler).0)
    if customData != nil || userID != nil {
      let options = ServerSideVerificationOptions()
      options.customRewardText = customData
      options.userIdentifier = userID
      ad.serverSideVerificationOptions = options
    }
    ad.fullScreenContentDelegate = recorder
    ad.present(from: nil) {}
    scheduler.run()
    return ad
  }

  @Test func aRewardedImpressionSendsASignedCallbackThatVerifies() throws {
    let sender = SentCallbacks()
    let (scheduler, mobileAds) = Self.makeServer(sender: sender)
    let ad = try Self.present(mobileAds, on: scheduler)
    let callback = try #require(mobileAds.simulatedRewardCallbacks.first)
    let url = try #require(callback.url)
    #expect(callback.failure == nil)
    #expect(sender.requests == [ServerCallbackRequest(network: "google", url: url)])
    #expect(
      url.hasPrefix(
        Self.ssvURL
          + "?ad_network=5450213213286189855&ad_unit=ca-app-pub-test%2F1&custom_data=a%3Db%20c%20d%2F%C3%A9&reward_amount=50&reward_item=coins&timestamp="
      ))
    #expect(url.contains("&key_id=\(mobileAds.simulatedSSVKeyID)"))

    let verifier = GoogleSSVVerifier(keys: mobileAds.simulatedVerifierKeys)
    let reward = try verifier.verify(url)
    #expect(reward.transactionID == ad.responseInfo.responseIdentifier)
    #expect(reward.transactionID == callback.transactionID)
    #expect(reward.userID == "user-7")
    #expect(reward.customData == "a=b c d/é")
    #expect(reward.amount == "50")
    #expect(reward.currency == "coins")
    #expect(reward.adUnit == "ca-app-pub-test/1")
    #expect(reward.keyID == mobileAds.simulatedSSVKeyID)
    #expect(reward.timestamp == callback.timestampMilliseconds.map(String.init))
    #expect(throws: CallbackRejection.self) { try verifier.verify(url) }  // replayed
  }

  @Test func tamperedOrForeignCallbacksAreRejected() throws {
    let (scheduler, mobileAds) = Self.makeServer()
    _ = try Self.present(mobileAds, on: scheduler)
    let url = try #require(mobileAds.simulatedRewardCallbacks.first?.url)
    func reason(_ url: String, keys: VerifierKeys = mobileAds.simulatedVerifierKeys) -> CallbackRejection
      .Reason?
    {
      do {
        _ = try GoogleSSVVerifier(keys: keys).verify(url)
        return nil
      } catch {
        return error.reason
      }
    }
    #expect(reason(url) == nil)
    #expect(
      reason(url.replacingOccurrences(of: "reward_amount=50", with: "reward_amount=5000"))
        == .invalidSignature)
    #expect(
      reason(url.replacingOccurrences(of: "user_id=user-7", with: "user_id=user-8")) == .invalidSignature)
    // Another seed's server: another key (and key id).
    let other = Self.makeServer(seed: 43).1
    #expect(other.simulatedSSVKeyID != mobileAds.simulatedSSVKeyID)
    let foreignKeys = VerifierKeys.publishing([
      (id: mobileAds.simulatedSSVKeyID, key: other.simulatedVerifierKeys.keys[0].publicKey)
    ])
    #expect(reason(url, keys: foreignKeys) == .invalidSignature)
    #expect(reason(url, keys: other.simulatedVerifierKeys) == .unknownKey)
  }

  @Test func theKeyIsDerivedFromTheSeedAndPublishedAsGoogleDoes() throws {
    let one = Self.makeServer(seed: 7).1
    let same = Self.makeServer(seed: 7).1
    #expect(one.simulatedVerifierKeys == same.simulatedVerifierKeys)
    #expect(one.simulatedVerifierKeysJSON() == same.simulatedVerifierKeysJSON())
    let json = one.simulatedVerifierKeysJSON()
    let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
    let keys = try #require(object["keys"] as? [[String: Any]])
    #expect(keys.count == 1)
    #expect(keys[0]["keyId"] as? NSNumber == NSNumber(value: one.simulatedSSVKeyID))
    #expect((keys[0]["pem"] as? String)?.hasPrefix("-----BEGIN PUBLIC KEY-----") == true)
    #expect(try VerifierKeys(json: json) == one.simulatedVerifierKeys)
  }

  @Test func customDataAndUserIDAreLeftOutWhenNotSet() throws {
    let (scheduler, mobileAds) = Self.makeServer()
    _ = try Self.present(mobileAds, on: scheduler, customData: nil, userID: nil)
    let url = try #require(mobileAds.simulatedRewardCallbacks.first?.url)
    #expect(!url.contains("custom_data="))
    #expect(!url.contains("user_id="))
    let reward = try GoogleSSVVerifier(keys: mobileAds.simulatedVerifierKeys).verify(url)
    #expect(reward.customData == nil)
    #expect(reward.userID == nil)
  }

  @Test func theServerSignsWhenTheRewardIsEarnedNotWhenTheClientHearsIt() throws {
    let (scheduler, mobileAds) = Self.makeServer(.wellBehaved.with { $0.rewardAfterDismissRate = 1 })
    let recorder = CallbackRecorder(scheduler: scheduler)
    _ = try Self.present(mobileAds, on: scheduler, recorder: recorder)
    let callback = try #require(mobileAds.simulatedRewardCallbacks.first)
    let signedAt = Duration.milliseconds(try #require(callback.timestampMilliseconds) - Self.base)
    let dismissedAt = try #require(recorder.times.last)
    #expect(recorder.events.last == "didDismiss")
    #expect(signedAt < dismissedAt)
    #expect(mobileAds.simulatedRewardCallbackCount == 1)
  }

  @Test func noURLNothingSignedOrSent() throws {
    let sender = SentCallbacks()
    let (scheduler, mobileAds) = Self.makeServer(url: nil, sender: sender)
    _ = try Self.present(mobileAds, on: scheduler)
    let callback = try #require(mobileAds.simulatedRewardCallbacks.first)
    #expect(callback.url == nil)
    #expect(callback.timestampMilliseconds == nil)
    #expect(sender.requests.isEmpty)
  }

  @Test func aURLWithAQueryKeepsItUnderTheSignature() throws {
    let (scheduler, mobileAds) = Self.makeServer(url: Self.ssvURL + "?app=demo")
    _ = try Self.present(mobileAds, on: scheduler)
    let url = try #require(mobileAds.simulatedRewardCallbacks.first?.url)
    #expect(url.hasPrefix(Self.ssvURL + "?app=demo&ad_network="))
    #expect(try GoogleSSVVerifier(keys: mobileAds.simulatedVerifierKeys).verify(url).userID == "user-7")
  }

  @Test func anUnusableURLIsRecordedWithItsReason() throws {
    let sender = SentCallbacks()
    let (scheduler, mobileAds) = Self.makeServer(url: "https://a.example/cb#frag", sender: sender)
    _ = try Self.present(mobileAds, on: scheduler)
    let callback = try #require(mobileAds.simulatedRewardCallbacks.first)
    #expect(callback.url == nil)
    #expect(callback.failure?.hasPrefix("the ad unit's SSV callback URL cannot be used") == true)
    #expect(sender.requests.isEmpty)
  }

  @Test func theAdapterPassesTheLineItemsURLAndTheUserID() throws {
    let scheduler = VirtualScheduler()
    let sender = SentCallbacks()
    let environment = AdapterEnvironment(scheduler: scheduler, random: SeededRandom(seed: 5))
    let registration = GoogleNetwork.registration(
      profile: .wellBehaved, wallClockMilliseconds: { 99 }, serverCallbacks: sender)
    let adapter = registration.makeAdapter(environment) as! GoogleAdapter
    var request = AdapterLoadRequest(
      zoneID: "zone", placementID: "ca-app-pub-test/1", ecpm: 12,
      reward: AdapterSignal.NetworkReward(type: "gems", amount: 5))
    request.serverCallback = ZoneConfig.ServerCallbackConfig(url: Self.ssvURL)
    let loaded = Box<Result<AdapterLoadedAd, AdapterError>>()
    _ = adapter.load(request) { loaded.set($0) }
    scheduler.run()
    let ad = try #require(try loaded.value?.get())
    ad.ad.show(
      AdapterShowRequest(zoneID: "zone", customData: nil, userID: "u-9"), from: HeadlessPresenter(),
      signals: SignalRecorder().sink)
    scheduler.run()
    let url = try #require(sender.requests.first?.url)
    let reward = try GoogleSSVVerifier(keys: adapter.mobileAds.simulatedVerifierKeys).verify(url)
    #expect(reward.userID == "u-9")
    #expect(reward.customData == nil)
    #expect(reward.amount == "5")
    #expect(reward.currency == "gems")
    #expect(reward.timestamp == "99")
  }
}
