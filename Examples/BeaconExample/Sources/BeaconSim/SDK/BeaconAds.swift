import MediationKit

/// The one listener a ``BeaconAds`` SDK reports everything to: availability per placement, and
/// every show callback, named by placement and impression id — never by a show or an ad object.
public protocol BeaconListener: AnyObject, Sendable {
  /// The SDK finished starting; `error` is `nil` on success.
  func beaconDidStart(error: BeaconError?)
  /// The placement's availability flag changed (an ad arrived, expired, or was shown).
  func beaconAvailabilityChanged(placement: String, available: Bool)
  /// The SDK's load of `placement` found no ad.
  func beaconLoadFailed(placement: String, error: BeaconError)
  /// The ad opened on screen.
  func beaconAdOpened(placement: String, impression: String)
  /// The user tapped the ad.
  func beaconAdClicked(placement: String, impression: String)
  /// The user earned the reward. Often after ``beaconAdClosed(placement:impression:)``.
  func beaconAdRewarded(placement: String, impression: String, reward: BeaconReward)
  /// The ad left the screen.
  func beaconAdClosed(placement: String, impression: String)
  /// The ad could not be shown.
  func beaconAdShowFailed(placement: String, error: BeaconError)
}

/// An error the Beacon SDK reports.
public struct BeaconError: Error, Sendable, Equatable {
  public var code: Int
  public var message: String

  /// No ad to serve.
  public static let noFill = BeaconError(code: 509, message: "no ads to show")
  /// `show` on a placement that is not available.
  public static let notAvailable = BeaconError(code: 520, message: "no ad available for placement")
  /// The SDK is not started.
  public static let notStarted = BeaconError(code: 508, message: "SDK not initialized")
  /// The app key is empty.
  public static let badAppKey = BeaconError(code: 501, message: "invalid app key")
}

/// The reward a Beacon placement grants, as the SDK names it.
public struct BeaconReward: Sendable, Equatable {
  public var name: String
  public var amount: Int
}

/// How a simulated Beacon network behaves.
public struct BeaconProfile: Sendable {
  /// The chance a load finds an ad.
  public var fillRate: Double
  /// How long a load takes.
  public var loadLatency: ClosedRange<Duration>
  /// How long the SDK keeps an ad before expiring it on its own (availability turns false).
  public var adLifetime: Duration
  /// The chance the user closes the ad before earning the reward.
  public var skipRate: Double
  /// The chance an earned reward arrives after the close rather than before.
  public var rewardAfterCloseRate: Double
  /// How long after the close such a reward arrives.
  public var rewardAfterCloseDelay: ClosedRange<Duration>

  public init(
    fillRate: Double = 0.85, loadLatency: ClosedRange<Duration> = .milliseconds(200)...(.seconds(3)),
    adLifetime: Duration = .seconds(1800), skipRate: Double = 0.2, rewardAfterCloseRate: Double = 0.5,
    rewardAfterCloseDelay: ClosedRange<Duration> = .milliseconds(100)...(.seconds(12))
  ) {
    self.fillRate = fillRate
    self.loadLatency = loadLatency
    self.adLifetime = adLifetime
    self.skipRate = skipRate
    self.rewardAfterCloseRate = rewardAfterCloseRate
    self.rewardAfterCloseDelay = rewardAfterCloseDelay
  }

  public static let `default` = BeaconProfile()
}

/// A simulated availability-based ad SDK: one listener, an availability flag per placement,
/// `loadAd` without a completion, `showAd` by placement, rewards that often come after the close.
///
/// A real SDK of this kind is a process-wide singleton; the simulation makes one per mediator, on
/// the mediator's scheduler and random stream, so runs are reproducible.
public final class BeaconAds: Sendable {
  /// The SDK version the adapter is built against.
  public static let version = "3.2.0"
  /// Watch time of a rewarded video.
  static let videoLength: Duration = .seconds(30)

  private struct State {
    var listener: (any BeaconListener)?
    var started = false
    var loading: Set<String> = []
    /// Per placement, the generation of the ad it holds (to expire only that one).
    var ads: [String: Int] = [:]
    var generation = 0
    var impressions = 0
    var random: SeededRandom
    /// The last two impressions, newest last, for ``deliverLateCallbacksOfPreviousShow()``.
    var recentShows: [(placement: String, impression: String)] = []
  }

  private let scheduler: any Scheduler
  private let profile: BeaconProfile
  private let state: Locked<State>

  public init(scheduler: any Scheduler, random: SeededRandom, profile: BeaconProfile = .default) {
    self.scheduler = scheduler
    self.profile = profile
    self.state = Locked(State(random: random))
  }

  /// Sets the one listener every callback goes to.
  public func setListener(_ listener: any BeaconListener) { state.withLock { $0.listener = listener } }

  private var listener: (any BeaconListener)? { state.withLock { $0.listener } }

  /// Starts the SDK; the listener hears ``BeaconListener/beaconDidStart(error:)``.
  public func start(appKey: String) {
    scheduler.schedule(after: .milliseconds(400)) { [self] in
      if appKey.isEmpty {
        listener?.beaconDidStart(error: .badAppKey)
        return
      }
      state.withLock { $0.started = true }
      listener?.beaconDidStart(error: nil)
    }
  }

  /// Whether `placement` has an ad to show.
  public func isAvailable(placement: String) -> Bool { state.withLock { $0.ads[placement] != nil } }

  /// Asks for an ad for `placement`; the answer is an availability change or a load failure.
  public func loadAd(placement: String) {
    enum Start { case notStarted, already, load(Duration, Bool) }
    let start = state.withLock { state -> Start in
      guard state.started else { return .notStarted }
      if state.ads[placement] != nil || !state.loading.insert(placement).inserted { return .already }
      return .load(state.random.duration(in: profile.loadLatency), state.random.chance(profile.fillRate))
    }
    switch start {
    case .notStarted:
      listener?.beaconLoadFailed(placement: placement, error: .notStarted)
    case .already:
      if isAvailable(placement: placement) {
        listener?.beaconAvailabilityChanged(placement: placement, available: true)
      }
    case .load(let latency, let fills):
      scheduler.schedule(after: latency) { [self] in
        guard fills else {
          state.withLock { _ = $0.loading.remove(placement) }
          listener?.beaconLoadFailed(placement: placement, error: .noFill)
          return
        }
        let generation = state.withLock { state in
          state.loading.remove(placement)
          state.generation += 1
          state.ads[placement] = state.generation
          return state.generation
        }
        listener?.beaconAvailabilityChanged(placement: placement, available: true)
        scheduler.schedule(after: profile.adLifetime) { [self] in expire(placement, generation: generation) }
      }
    }
  }

  private func expire(_ placement: String, generation: Int) {
    let expired = state.withLock { state in
      guard state.ads[placement] == generation else { return false }
      state.ads[placement] = nil
      return true
    }
    if expired { listener?.beaconAvailabilityChanged(placement: placement, available: false) }
  }

  /// Shows `placement`'s ad: availability turns false at once, then the show's callbacks follow.
  public func showAd(placement: String, from presenter: any AdPresenting) {
    struct Plan {
      var impression: String
      var watched: Duration
      var rewarded: Bool
      var rewardAfterClose: Duration?
    }
    let plan = state.withLock { state -> Plan? in
      guard state.ads.removeValue(forKey: placement) != nil else { return nil }
      state.impressions += 1
      let skipped = state.random.chance(profile.skipRate)
      let late = state.random.chance(profile.rewardAfterCloseRate)
      let delay = state.random.duration(in: profile.rewardAfterCloseDelay)
      let watched = skipped ? state.random.duration(in: .seconds(2)...(.seconds(25))) : Self.videoLength
      let impression = "imp-\(state.impressions)"
      state.recentShows = state.recentShows.suffix(1) + [(placement, impression)]
      return Plan(
        impression: impression, watched: watched, rewarded: !skipped, rewardAfterClose: late ? delay : nil)
    }
    guard let plan else {
      listener?.beaconAdShowFailed(placement: placement, error: .notAvailable)
      return
    }
    listener?.beaconAvailabilityChanged(placement: placement, available: false)
    let reward = BeaconReward(name: "coins", amount: 10)
    scheduler.schedule(after: .milliseconds(300)) { [self] in
      listener?.beaconAdOpened(placement: placement, impression: plan.impression)
    }
    let closeAt = .milliseconds(300) + plan.watched
    if plan.rewarded, plan.rewardAfterClose == nil {
      scheduler.schedule(after: closeAt) { [self] in
        listener?.beaconAdRewarded(placement: placement, impression: plan.impression, reward: reward)
      }
    }
    scheduler.schedule(after: closeAt) { [self] in
      listener?.beaconAdClosed(placement: placement, impression: plan.impression)
    }
    if plan.rewarded, let after = plan.rewardAfterClose {
      scheduler.schedule(after: closeAt + after) { [self] in
        listener?.beaconAdRewarded(placement: placement, impression: plan.impression, reward: reward)
      }
    }
  }

  /// Test support: delivers now, for the impression before the last one shown, the late callbacks
  /// such SDKs are known to send — a reward and a second close. Returns whether there was one.
  @discardableResult
  public func deliverLateCallbacksOfPreviousShow() -> Bool {
    guard let last = state.withLock({ $0.recentShows.count == 2 ? $0.recentShows[0] : nil }) else {
      return false
    }
    listener?.beaconAdRewarded(
      placement: last.placement, impression: last.impression, reward: BeaconReward(name: "coins", amount: 10))
    listener?.beaconAdClosed(placement: last.placement, impression: last.impression)
    return true
  }
}
