import Dispatch
import Foundation
import MediationKit
import Synchronization

/// The simulated Empower Mobile Ads SDK: loads and shows rewarded ads by zone id.
///
/// Reproduces the vendor's public Swift API (`EMAManager.shared.loadRewardedAd(zoneId:delegate:)`
/// and friends) with ``AdPresenting`` in place of `UIViewController`. Each zone holds at most one
/// loaded ad; showing consumes it. Statuses are delivered to the zone's delegate, asynchronously, as
/// actions on the manager's ``Scheduler``; every delay goes through that scheduler and every random
/// draw through a ``SeededRandom``, so the same seed gives the same behaviour.
///
/// ``shared`` is the process default; mediators and tests build their own isolated instances with
/// ``init(scheduler:random:profile:)``, each with its own zones, dashboard and full-screen state.
public final class EMAManager: Sendable {
  /// The simulated SDK's version.
  public static let sdkVersion = "3.4.0-sim"

  private static let sharedInstance = Mutex(
    EMAManager(
      scheduler: DispatchScheduler(queue: DispatchQueue(label: "EmpowerMobileAds.main")),
      random: SeededRandom(seed: 0x454D_4131), profile: .default))

  /// The process-wide manager the vendor guide uses.
  ///
  /// By default it runs on wall-clock time (a private serial `DispatchQueue`, where the real SDK
  /// uses the main thread) with a fixed seed. Tests replace it with ``installShared(_:)``.
  public static var shared: EMAManager { sharedInstance.withLock { $0 } }

  /// Makes `manager` the process-wide ``shared`` instance, e.g. one on a ``VirtualScheduler``.
  ///
  /// Thread-safe. Tests that install a manager should run serialized and put the previous one back.
  /// - Returns: The manager that was shared before.
  @discardableResult
  public static func installShared(_ manager: EMAManager) -> EMAManager {
    sharedInstance.withLock { current in
      let previous = current
      current = manager
      return previous
    }
  }

  /// The behaviour this manager simulates.
  public let profile: EmpowerBehaviorProfile
  /// Where every delay and status delivery goes (the adapter also uses it for its start latency).
  let scheduler: any Scheduler
  private let state: Mutex<State>

  /// Creates an isolated SDK instance.
  ///
  /// - Parameters:
  ///   - scheduler: Where every delay and status delivery goes.
  ///   - random: The seed of every draw; each zone gets its own stream derived from it.
  ///   - profile: How the simulated network and its users behave.
  public init(scheduler: any Scheduler, random: SeededRandom, profile: EmpowerBehaviorProfile = .default) {
    self.scheduler = scheduler
    self.profile = profile
    self.state = Mutex(State(random: random))
  }

  // MARK: - The vendor API

  /// Loads a rewarded ad for `zoneId`, reporting `.initializing` then `.ready` or `.failed`.
  ///
  /// A non-nil `delegate` becomes the zone's delegate (kept weakly); `nil` keeps the current one.
  /// Loading a zone that is already loading joins that load; loading a zone that already holds an
  /// ad reports `.ready` again. So reloading from `.closed`/`.skipped` is safe even when the zone
  /// auto-reloads.
  /// - Parameters:
  ///   - zoneId: The zone, as configured in the dashboard.
  ///   - delegate: Receives the zone's statuses.
  public func loadRewardedAd(zoneId: String, delegate: AdStatusDelegate? = nil) {
    let box = state.withLock { $0.zone(zoneId).delegate }
    if let delegate { box.set(delegate) }
    startLoad(zoneId: zoneId)
  }

  /// Whether `zoneId` holds a loaded ad that ``showRewarded(zoneId:from:)`` can show.
  public func isRewardedReady(zoneId: String) -> Bool {
    state.withLock { $0.zones[zoneId]?.ad != nil }
  }

  /// Shows the ad loaded for `zoneId`, reporting `.shown`, then `.rewarded` and `.closed`, or
  /// `.skipped`. Consumes the ad.
  ///
  /// When the zone has no ad, or another full-screen ad is up, nothing is shown and the zone's
  /// delegate gets `.failed` with ``EMAError/Code/notReady`` or
  /// ``EMAError/Code/anotherAdShowing``.
  /// - Parameters:
  ///   - zoneId: The zone to show.
  ///   - viewController: What to present from (`UIViewController` in the real SDK).
  public func showRewarded(zoneId: String, from viewController: AdPresenting) {
    let outcome = state.withLock { state -> ShowOutcome in
      guard var zone = state.zones[zoneId] else {
        return .refused(EMAError(.notReady, "zone '\(zoneId)' has no ad loaded"), nil)
      }
      if let showing = state.fullScreen {
        return .refused(
          EMAError(.anotherAdShowing, "a full-screen ad is already showing (zone '\(showing.zoneId)')"),
          zone.instance)
      }
      guard let ad = zone.ad else {
        return .refused(EMAError(.notReady, "zone '\(zoneId)' has no ad loaded"), zone.instance)
      }
      zone.ad = nil
      state.zones[zoneId] = zone
      let session = state.nextID()
      state.fullScreen = FullScreen(zoneId: zoneId, session: session)
      let plan = state.streams.withStream(zoneId, root: state.random) { random in
        ShowPlan(ad: ad, profile: profile, random: &random)
      }
      return .showing(plan, zone.instance, session)
    }
    switch outcome {
    case .refused(let error, let instance):
      EMASettings.shared.log(.warning, "showRewarded(\(zoneId)) refused: \(error)")
      if let instance {
        scheduler.execute { [self] in deliver(.failed(error), zoneId: zoneId, instance: instance) }
      }
    case .showing(let plan, let instance, let session):
      run(plan, zoneId: zoneId, instance: instance, session: session)
    }
  }

  /// Whether the ad of `zoneId` is on screen.
  public func isRewardedShowing(zoneId: String) -> Bool {
    state.withLock { $0.fullScreen?.zoneId == zoneId }
  }

  /// Releases `zoneId`: cancels its load, drops its loaded ad and its delegate.
  ///
  /// An ad already on screen plays to its end, but no further status is delivered and the zone
  /// does not auto-reload. Loading the zone again starts afresh.
  public func destroyRewardedZone(zoneId: String) {
    let load = state.withLock { state -> Cancellable? in
      state.zones.removeValue(forKey: zoneId)?.load?.cancellable
    }
    load?.cancel()
    EMASettings.shared.log(.info, "zone \(zoneId): destroyed")
  }

  /// Whether any full-screen ad of this manager is on screen.
  public func isAnyFullScreenAdShowing() -> Bool {
    state.withLock { $0.fullScreen != nil }
  }

  // MARK: - Simulation extensions (not in the vendor API)

  /// Simulation only: sets a zone's server-side configuration (the Empower dashboard).
  ///
  /// Takes effect from the next load. A zone that is not configured fails to load with
  /// ``EMAError/Code/invalidZone``.
  public func configureZone(_ settings: EmpowerZoneSettings) {
    state.withLock { $0.dashboard[settings.zoneId] = settings }
  }

  /// Simulation only: the server-side configuration of `zoneId`, if any.
  public func zoneSettings(zoneId: String) -> EmpowerZoneSettings? {
    state.withLock { $0.dashboard[zoneId] }
  }

  /// Simulation only: the price (USD eCPM) of the ad loaded for `zoneId`, or `nil` when none is
  /// loaded.
  public func rewardedECPM(zoneId: String) -> Double? {
    state.withLock { $0.zones[zoneId]?.ad?.ecpm }
  }

  // MARK: - Loading

  private func startLoad(zoneId: String) {
    let start = state.withLock { state -> LoadStart in
      var zone = state.zone(zoneId)
      if zone.load != nil { return .joined }
      if zone.ad != nil { return .alreadyReady(zone.instance) }
      let settings = state.dashboard[zoneId]
      let plan = state.streams.withStream(zoneId, root: state.random) { random in
        LoadPlan(settings: settings, profile: profile, random: &random)
      }
      let ticket = state.nextID()
      zone.load = Load(ticket: ticket, cancellable: nil)
      state.zones[zoneId] = zone
      return .started(plan, zone.instance, ticket)
    }
    switch start {
    case .joined:
      break
    case .alreadyReady(let instance):
      scheduler.execute { [self] in deliver(.ready, zoneId: zoneId, instance: instance) }
    case .started(let plan, let instance, let ticket):
      EMASettings.shared.log(.info, "zone \(zoneId): loading")
      scheduler.execute { [self] in deliver(.initializing, zoneId: zoneId, instance: instance) }
      let cancellable = scheduler.schedule(after: plan.latency) { [self] in
        finishLoad(plan, zoneId: zoneId, instance: instance, ticket: ticket)
      }
      state.withLock { state in
        if state.zones[zoneId]?.instance == instance, state.zones[zoneId]?.load?.ticket == ticket {
          state.zones[zoneId]?.load?.cancellable = cancellable
        }
      }
    }
  }

  private func finishLoad(_ plan: LoadPlan, zoneId: String, instance: UInt64, ticket: UInt64) {
    let current = state.withLock { state -> Bool in
      guard var zone = state.zones[zoneId], zone.instance == instance, zone.load?.ticket == ticket else {
        return false
      }
      zone.load = nil
      if case .success(let ad) = plan.result { zone.ad = ad }
      state.zones[zoneId] = zone
      return true
    }
    guard current else { return }
    switch plan.result {
    case .success(let ad):
      EMASettings.shared.log(.info, "zone \(zoneId): ready (eCPM \(ad.ecpm))")
      deliver(.ready, zoneId: zoneId, instance: instance)
    case .failure(let error):
      EMASettings.shared.log(.info, "zone \(zoneId): load failed: \(error)")
      deliver(.failed(error), zoneId: zoneId, instance: instance)
    }
  }

  // MARK: - Showing

  private func run(_ plan: ShowPlan, zoneId: String, instance: UInt64, session: UInt64) {
    EMASettings.shared.log(.info, "zone \(zoneId): showing")
    scheduler.execute { [self] in deliver(.shown, zoneId: zoneId, instance: instance) }
    if let click = plan.clickAt {
      scheduler.schedule(after: click) { [self] in
        guard let box = delegateBox(zoneId: zoneId, instance: instance) else { return }
        EMASettings.shared.log(.debug, "zone \(zoneId): clicked")
        (box.delegate as? AdClickDelegate)?.rewardedAdClicked(zoneId: zoneId)
      }
    }
    switch plan.ending {
    case .skip(let after):
      scheduler.schedule(after: after) { [self] in
        dismiss(.skipped, zoneId: zoneId, instance: instance, session: session)
      }
    case .complete(let after, let endCard):
      let reward = AdStatus.rewarded(type: plan.ad.rewardType, amount: plan.ad.rewardAmount)
      scheduler.schedule(after: after) { [self] in deliver(reward, zoneId: zoneId, instance: instance) }
      scheduler.schedule(after: after + endCard) { [self] in
        dismiss(.closed, zoneId: zoneId, instance: instance, session: session)
      }
    }
  }

  private func dismiss(_ status: AdStatus, zoneId: String, instance: UInt64, session: UInt64) {
    let autoReload = state.withLock { state -> Bool in
      if state.fullScreen?.session == session { state.fullScreen = nil }
      return state.zones[zoneId]?.instance == instance && state.dashboard[zoneId]?.autoReload == true
    }
    deliver(status, zoneId: zoneId, instance: instance)
    if autoReload, state.withLock({ $0.zones[zoneId]?.instance == instance }) {
      EMASettings.shared.log(.info, "zone \(zoneId): auto-reloading")
      startLoad(zoneId: zoneId)
    }
  }

  // MARK: - Delivery

  private func delegateBox(zoneId: String, instance: UInt64) -> DelegateBox? {
    state.withLock { state in
      guard let zone = state.zones[zoneId], zone.instance == instance else { return nil }
      return zone.delegate
    }
  }

  /// Tells the zone's delegate, if the zone still exists as it was when the work was scheduled.
  private func deliver(_ status: AdStatus, zoneId: String, instance: UInt64) {
    guard let box = delegateBox(zoneId: zoneId, instance: instance) else { return }
    EMASettings.shared.log(.debug, "zone \(zoneId): \(status)")
    box.delegate?.rewardedStatusChanged(adStatus: status)
  }
}

// MARK: - Internal state

extension EMAManager {
  fileprivate struct State {
    let random: SeededRandom
    var streams = Streams()
    var zones: [String: Zone] = [:]
    var dashboard: [String: EmpowerZoneSettings] = [:]
    var fullScreen: FullScreen?
    var lastID: UInt64 = 0

    init(random: SeededRandom) { self.random = random }

    mutating func nextID() -> UInt64 {
      lastID += 1
      return lastID
    }

    /// The zone's entry, created (with a fresh instance number) if it does not exist.
    mutating func zone(_ zoneId: String) -> Zone {
      if let zone = zones[zoneId] { return zone }
      let zone = Zone(instance: nextID(), delegate: DelegateBox())
      zones[zoneId] = zone
      return zone
    }
  }

  /// One random stream per zone id, derived from the manager's seed, kept across destroys, so one
  /// zone's draws never shift another's.
  fileprivate struct Streams {
    private var byZone: [String: SeededRandom] = [:]

    mutating func withStream<T>(_ zoneId: String, root: SeededRandom, _ body: (inout SeededRandom) -> T) -> T
    {
      var random = byZone[zoneId] ?? root.derived("empower.zone." + zoneId)
      defer { byZone[zoneId] = random }
      return body(&random)
    }
  }

  fileprivate struct Zone {
    /// Distinguishes this zone from an earlier, destroyed zone with the same id.
    let instance: UInt64
    let delegate: DelegateBox
    var load: Load?
    var ad: LoadedAd?
  }

  fileprivate struct Load {
    let ticket: UInt64
    var cancellable: Cancellable?
  }

  fileprivate struct LoadedAd {
    let ecpm: Double
    let rewardType: String
    let rewardAmount: Int
  }

  fileprivate struct FullScreen {
    let zoneId: String
    let session: UInt64
  }

  fileprivate enum LoadStart {
    case joined
    case alreadyReady(UInt64)
    case started(LoadPlan, UInt64, UInt64)
  }

  fileprivate enum ShowOutcome {
    case refused(EMAError, UInt64?)
    case showing(ShowPlan, UInt64, UInt64)
  }

  /// A load's outcome, drawn when it starts.
  fileprivate struct LoadPlan {
    let latency: Duration
    let result: Result<LoadedAd, EMAError>

    init(settings: EmpowerZoneSettings?, profile: EmpowerBehaviorProfile, random: inout SeededRandom) {
      let seconds = random.logNormal(
        median: profile.loadLatencyMedian.seconds, sigma: profile.loadLatencySigma)
      latency = .milliseconds(Int64((seconds * 1000).rounded()))
      guard let settings else {
        result = .failure(EMAError(.invalidZone, "zone is not configured in the dashboard"))
        return
      }
      if random.chance(profile.networkErrorRate) {
        result = .failure(EMAError(.networkError, "the ad request failed"))
      } else if random.chance(profile.fillRate) {
        let noise = random.logNormal(median: 1, sigma: profile.priceSigma)
        let ecpm = (settings.baseECPM * noise * 100).rounded() / 100
        result = .success(
          LoadedAd(ecpm: ecpm, rewardType: settings.rewardType, rewardAmount: settings.rewardAmount))
      } else {
        result = .failure(EMAError(.noFill, "no ad available for the zone"))
      }
    }
  }

  /// What the user does with a shown ad, drawn at show time.
  fileprivate struct ShowPlan {
    enum Ending {
      /// Dismissed early, this long after `.shown`.
      case skip(after: Duration)
      /// Rewarded this long after `.shown`, closed `endCard` later.
      case complete(after: Duration, endCard: Duration)
    }

    let ad: LoadedAd
    let ending: Ending
    let clickAt: Duration?

    init(ad: LoadedAd, profile: EmpowerBehaviorProfile, random: inout SeededRandom) {
      self.ad = ad
      let watch = random.duration(in: profile.watchTime)
      let endCard = random.duration(in: profile.endCardTime)
      let onScreen: Duration
      if random.chance(profile.skipProbability) {
        let earliest = min(profile.earliestSkip, watch)
        let skipAt = random.duration(in: earliest...watch)
        ending = .skip(after: skipAt)
        onScreen = skipAt
      } else {
        ending = .complete(after: watch, endCard: endCard)
        onScreen = watch
      }
      let clicks = random.chance(profile.clickProbability)
      let clickAt = random.duration(in: .zero...onScreen)
      self.clickAt = clicks ? clickAt : nil
    }
  }
}

/// A zone's delegate, held weakly, behind a lock.
///
/// `@unchecked Sendable` because `AdStatusDelegate` is not `Sendable` (the guide's delegates are
/// view controllers). It is safe: the reference is only read and written under `lock`, and the
/// SDK only calls the delegate from its scheduler's serial executor, as a real SDK calls its
/// delegates on the main thread.
private final class DelegateBox: @unchecked Sendable {
  private let lock = NSLock()
  private weak var reference: AdStatusDelegate?

  var delegate: AdStatusDelegate? { lock.withLock { reference } }

  func set(_ delegate: AdStatusDelegate) { lock.withLock { reference = delegate } }
}
