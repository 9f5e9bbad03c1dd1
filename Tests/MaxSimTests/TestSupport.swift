import Foundation
import MaxSim
import MediationKit
import MediationKitTesting

/// Records every delegate call of a `MARewardedAd`, with the virtual time it arrived at.
final class CallbackRecorder: MARewardedAdDelegate, MAAdRevenueDelegate, Sendable {
  private let clock: any Scheduler
  private let entries = Locked<[(time: Duration, call: String)]>([])
  private let adsStorage = Locked<[MAAd]>([])
  private let errorsStorage = Locked<[MAError]>([])
  private let rewardsStorage = Locked<[MAReward]>([])
  private let onCall: (@Sendable (String) -> Void)?

  init(clock: any Scheduler, onCall: (@Sendable (String) -> Void)? = nil) {
    self.clock = clock
    self.onCall = onCall
  }

  /// The calls, in order, without times.
  var calls: [String] { entries.withLock { $0.map(\.call) } }
  /// The virtual time of the first call named `call`.
  func time(of call: String) -> Duration? { entries.withLock { $0.first { $0.call == call }?.time } }
  /// Every time `call` happened.
  func times(of call: String) -> [Duration] { entries.withLock { $0.filter { $0.call == call }.map(\.time) } }
  /// A printable log, `time call` per line.
  var log: String {
    entries.withLock { $0.map { "\($0.time.milliseconds) \($0.call)" }.joined(separator: "\n") }
  }
  var ads: [MAAd] { adsStorage.withLock { $0 } }
  var errors: [MAError] { errorsStorage.withLock { $0 } }
  var rewards: [MAReward] { rewardsStorage.withLock { $0 } }

  private func record(_ call: String, _ ad: MAAd? = nil) {
    let now = clock.now
    entries.withLock { $0.append((now, call)) }
    if let ad { adsStorage.withLock { $0.append(ad) } }
    onCall?(call)
  }

  func didLoad(_ ad: MAAd) { record("didLoad", ad) }
  func didFailToLoadAd(forAdUnitIdentifier adUnitIdentifier: String, withError error: MAError) {
    errorsStorage.withLock { $0.append(error) }
    record("didFailToLoadAd(\(error.code.rawValue))")
  }
  func didDisplay(_ ad: MAAd) { record("didDisplay", ad) }
  func didClick(_ ad: MAAd) { record("didClick", ad) }
  func didHide(_ ad: MAAd) { record("didHide", ad) }
  func didFail(toDisplay ad: MAAd, withError error: MAError) {
    errorsStorage.withLock { $0.append(error) }
    record("didFailToDisplay(\(error.code.rawValue))", ad)
  }
  func didStartRewardedVideo(for ad: MAAd) { record("didStartRewardedVideo", ad) }
  func didCompleteRewardedVideo(for ad: MAAd) { record("didCompleteRewardedVideo", ad) }
  func didRewardUser(for ad: MAAd, with reward: MAReward) {
    rewardsStorage.withLock { $0.append(reward) }
    record("didRewardUser", ad)
  }
  func didPayRevenue(for ad: MAAd) { record("didPayRevenue", ad) }
}

extension AdapterSignal {
  /// A short name, for order assertions.
  var name: String {
    switch self {
    case .displayed: "displayed"
    case .clicked: "clicked"
    case .revenuePaid: "revenuePaid"
    case .rewarded: "rewarded"
    case .dismissed: "dismissed"
    case .showFailed(let error): "showFailed(\(error.vendorCode ?? 0))"
    }
  }
}

/// A virtual-time SDK instance with `profile`.
func makeSDK(_ profile: MaxBehaviorProfile = .wellBehaved, seed: UInt64 = 42) -> (VirtualScheduler, ALSdk) {
  let scheduler = VirtualScheduler()
  return (scheduler, ALSdk(scheduler: scheduler, random: SeededRandom(seed: seed), profile: profile))
}

/// A ``MaxAdapter`` made through the public registration, on virtual time.
func makeAdapter(_ profile: MaxBehaviorProfile = .wellBehaved, seed: UInt64 = 42) -> (
  VirtualScheduler, MaxAdapter
) {
  let scheduler = VirtualScheduler()
  let environment = AdapterEnvironment(scheduler: scheduler, random: SeededRandom(seed: seed))
  let adapter = MaxNetwork.registration(profile: profile).makeAdapter(environment) as! MaxAdapter
  return (scheduler, adapter)
}

func loadRequest(
  _ placementID: String = "unit-a", ecpm: Double = 20, auctionID: UInt64 = 0,
  privacy: PrivacySettings = PrivacySettings(), bid: AdapterBid? = nil
) -> AdapterLoadRequest {
  AdapterLoadRequest(
    zoneID: "zone-1", placementID: placementID, ecpm: ecpm,
    reward: AdapterSignal.NetworkReward(type: "coins", amount: 10),
    auctionID: auctionID, privacy: privacy, bid: bid)
}

/// Collects bid answers.
final class BidRecorder: Sendable {
  private let storage = Locked<[(time: Duration, result: Result<AdapterBid, AdapterError>)]>([])
  private let clock: any Scheduler

  init(clock: any Scheduler) { self.clock = clock }

  var completion: @Sendable (Result<AdapterBid, AdapterError>) -> Void {
    { [self] result in
      let now = clock.now
      storage.withLock { $0.append((now, result)) }
    }
  }

  var results: [Result<AdapterBid, AdapterError>] { storage.withLock { $0.map(\.result) } }
  var times: [Duration] { storage.withLock { $0.map(\.time) } }
  var bid: AdapterBid? {
    if case .success(let bid)? = results.first { return bid }
    return nil
  }
  var error: AdapterError? {
    if case .failure(let error)? = results.first { return error }
    return nil
  }
}
