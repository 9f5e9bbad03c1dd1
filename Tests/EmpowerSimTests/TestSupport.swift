import EmpowerSim
import MediationKit
import MediationKitTesting

/// A profile with no randomness in the outcome: always fills, never errors, skips or clicks.
let alwaysComplete = EmpowerBehaviorProfile(
  fillRate: 1, networkErrorRate: 0, skipProbability: 0, clickProbability: 0)

/// Always fills; the user always skips.
let alwaysSkip = EmpowerBehaviorProfile(
  fillRate: 1, networkErrorRate: 0, skipProbability: 1, clickProbability: 0)

/// Never fills.
let neverFill = EmpowerBehaviorProfile(fillRate: 0, networkErrorRate: 0)

/// Makes a manager on a fresh virtual clock.
func makeManager(
  seed: UInt64 = 42, profile: EmpowerBehaviorProfile = alwaysComplete
) -> (EMAManager, VirtualScheduler) {
  let scheduler = VirtualScheduler()
  return (EMAManager(scheduler: scheduler, random: SeededRandom(seed: seed), profile: profile), scheduler)
}

/// Records every status (and click) a zone reports, with the virtual time it arrived.
final class StatusRecorder: AdStatusDelegate, AdClickDelegate {
  let scheduler: VirtualScheduler
  private(set) var statuses: [String] = []
  private(set) var timeline: [String] = []
  private(set) var clicks = 0

  init(scheduler: VirtualScheduler) { self.scheduler = scheduler }

  func rewardedStatusChanged(adStatus: AdStatus) {
    statuses.append(adStatus.description)
    timeline.append("\(scheduler.now.milliseconds)ms \(adStatus)")
  }

  func rewardedAdClicked(zoneId: String) {
    clicks += 1
    timeline.append("\(scheduler.now.milliseconds)ms clicked(\(zoneId))")
  }

  /// The virtual time, in milliseconds, at which `status` was first reported.
  func time(of status: String) -> Int64? {
    timeline.first { $0.hasSuffix(" " + status) }.flatMap { Int64($0.prefix { $0.isNumber }) }
  }
}

/// A thread-safe list, for signals and completions reported from any thread.
final class Recorded<Element: Sendable>: Sendable {
  private let items = Locked<[Element]>([])

  init() {}

  func append(_ item: Element) { items.withLock { $0.append(item) } }
  var all: [Element] { items.withLock { $0 } }
}

/// An adapter made through the public registration, on a fresh virtual clock.
func makeEmpowerAdapter(profile: EmpowerBehaviorProfile = .default, seed: UInt64 = 1) -> (
  EmpowerAdapter, VirtualScheduler
)? {
  let scheduler = VirtualScheduler()
  let environment = AdapterEnvironment(scheduler: scheduler, random: SeededRandom(seed: seed))
  guard
    let adapter = EmpowerNetwork.registration(profile: profile).makeAdapter(environment) as? EmpowerAdapter
  else { return nil }
  return (adapter, scheduler)
}

/// A load (or bid) request for `placement` in auction `auction`.
func loadRequest(
  _ placement: String = "zone-1", auction: UInt64, privacy: PrivacySettings = PrivacySettings(),
  bid: AdapterBid? = nil, ecpm: Double = 12
) -> AdapterLoadRequest {
  AdapterLoadRequest(
    zoneID: "app-zone", placementID: placement, ecpm: ecpm,
    reward: AdapterSignal.NetworkReward(type: "coins", amount: 10),
    auctionID: auction, privacy: privacy, bid: bid)
}

/// What one load through the adapter did, once the clock ran out of work.
struct LoadOutcome {
  var result: Result<AdapterLoadedAd, AdapterError>?
  var elapsed: Duration

  /// The price it filled at, or `nil` when it did not fill.
  var ecpm: Double? {
    guard case .success(let loaded) = result else { return nil }
    return loaded.ecpm
  }

  /// The error kind when it failed.
  var errorKind: AdapterError.Kind? {
    guard case .failure(let error) = result else { return nil }
    return error.kind
  }
}

/// Loads `request` through `adapter`, runs the clock and discards the ad, so the placement is idle
/// again.
func loadOnce(_ adapter: EmpowerAdapter, _ scheduler: VirtualScheduler, _ request: AdapterLoadRequest)
  -> LoadOutcome
{
  let results = Recorded<(Result<AdapterLoadedAd, AdapterError>, Duration)>()
  let start = scheduler.now
  _ = adapter.load(request) { results.append(($0, scheduler.now)) }
  scheduler.run()
  guard let (result, finished) = results.all.first else { return LoadOutcome(result: nil, elapsed: .zero) }
  if case .success(let loaded) = result { loaded.ad.discard() }
  return LoadOutcome(result: result, elapsed: finished - start)
}
