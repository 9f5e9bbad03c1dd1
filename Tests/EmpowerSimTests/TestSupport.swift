import EmpowerSim
import MediationKit
import Synchronization

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
  private let items = Mutex<[Element]>([])

  init() {}

  func append(_ item: Element) { items.withLock { $0.append(item) } }
  var all: [Element] { items.withLock { $0 } }
}
