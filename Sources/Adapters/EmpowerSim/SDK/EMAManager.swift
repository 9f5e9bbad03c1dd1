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
/// ``init(scheduler:random:profile:settings:)``, each with its own zones, dashboard, settings and
/// full-screen state.
///
/// ## Determinism
/// A load's market outcome — fill or the error, the price, the latency — is a pure function of the
/// manager's seed, the zone id, the request's key and the privacy signals, whatever was loaded or
/// shown before. The key is the auction id passed through the simulation-only
/// ``loadRewardedAd(zoneId:delegate:simulation:)`` (mediation adapters), or, for loads made through
/// the vendor API, the zone's load count (1 for its first load, 2 for the next, …).
/// ``simulatedOutcome(zoneId:auctionID:privacy:)`` answers the same without loading. User
/// behaviour during a show is drawn from one stream per zone.
///
/// ## Memory
/// Nothing the manager keeps grows with the number of loads or shows: one entry per zone id (its
/// state, dashboard entry, show stream and load count) and at most
/// ``EmpowerBehaviorProfile/maxOutstandingBids`` answered bids.
public final class EMAManager: Sendable {
  /// The simulated SDK's version.
  public static let sdkVersion = "3.4.0-sim"

  private static let sharedInstance = Mutex(
    EMAManager(
      scheduler: DispatchScheduler(queue: DispatchQueue(label: "EmpowerMobileAds.main")),
      random: SeededRandom(seed: 0x454D_4131), profile: .default, settings: .shared))

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
  /// This manager's logging and privacy settings (``EMASettings/shared`` for ``shared``).
  public let settings: EMASettings
  /// Where every delay and status delivery goes (the adapter also uses it for its start latency).
  let scheduler: any Scheduler
  private let state: Mutex<State>

  /// Creates an isolated SDK instance.
  ///
  /// - Parameters:
  ///   - scheduler: Where every delay and status delivery goes.
  ///   - random: The seed of every draw; each zone gets its own stream derived from it.
  ///   - profile: How the simulated network and its users behave.
  ///   - settings: Its logging and privacy settings; by default its own, with logging off and no
  ///     privacy signal.
  public init(
    scheduler: any Scheduler, random: SeededRandom, profile: EmpowerBehaviorProfile = .default,
    settings: EMASettings = EMASettings()
  ) {
    self.scheduler = scheduler
    self.profile = profile
    self.settings = settings
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
    startLoad(zoneId: zoneId, simulation: nil)
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
      let plan = state.showStreams.withStream(zoneId, root: state.showRoot) { random in
        ShowPlan(ad: ad, profile: profile, random: &random)
      }
      return .showing(plan, zone.instance, session)
    }
    switch outcome {
    case .refused(let error, let instance):
      settings.log(.warning, "showRewarded(\(zoneId)) refused: \(error)")
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
    settings.log(.info, "zone \(zoneId): destroyed")
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

  /// Simulation wiring: configures `zoneId` with `settings()` unless it is already configured, in
  /// one step (`settings` is only called when needed).
  func configureZoneIfAbsent(_ zoneId: String, _ settings: () -> EmpowerZoneSettings) {
    state.withLock { state in
      if state.dashboard[zoneId] == nil { state.dashboard[zoneId] = settings() }
    }
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

  /// Simulation wiring: ``loadRewardedAd(zoneId:delegate:)`` with what a mediation adapter knows
  /// and the vendor API has no place for — the auction id that keys the load's draws, and the
  /// token of a won bid.
  ///
  /// Behaves like ``loadRewardedAd(zoneId:delegate:)``. With a bid token, the load fills at the
  /// bid's price after ``EmpowerBehaviorProfile/bidLoadLatency``, with no second fill draw; a
  /// token the server does not know (never issued, for another zone, already used, or expired)
  /// fails with ``EMAError/Code/invalidBid``.
  /// - Parameters:
  ///   - zoneId: The zone, as configured in the dashboard.
  ///   - delegate: Receives the zone's statuses; `nil` keeps the current one.
  ///   - simulation: The auction id and bid token.
  public func loadRewardedAd(zoneId: String, delegate: AdStatusDelegate?, simulation: EMASimulatedRequest) {
    let box = state.withLock { $0.zone(zoneId).delegate }
    if let delegate { box.set(delegate) }
    startLoad(zoneId: zoneId, simulation: simulation)
  }

  /// Simulation only: what a load of `zoneId` keyed by `auctionID` would answer under `privacy` —
  /// the price it fills at, or the error — without loading or drawing anything.
  ///
  /// Equals the outcome of ``loadRewardedAd(zoneId:delegate:simulation:)`` with that auction id
  /// (when the zone is neither loading nor holding an ad, which a load would join or re-report)
  /// and the same privacy signals in ``settings``. With `auctionID` `nil`, answers for the zone's
  /// next vendor-API load.
  public func simulatedOutcome(zoneId: String, auctionID: UInt64?, privacy: PrivacySettings) -> Result<
    Double, EMAError
  > {
    outcome(zoneId: zoneId, auctionID: auctionID, privacy: privacy, fallback: nil)
  }

  /// Simulation only (server-side bidding, which the Empower guide does not cover): asks the
  /// Empower server for a bid on `zoneId` in the auction `auctionID`, under ``settings``' privacy
  /// signals.
  ///
  /// Answers after a log-normal latency (``EmpowerBehaviorProfile/bidLatencyMedian``) on the
  /// scheduler: with the price ``simulatedOutcome(zoneId:auctionID:privacy:)`` gives, when that
  /// fills, and a token to pass in ``EMASimulatedRequest/bidToken``; otherwise with
  /// ``EMAError/Code/noFill`` ("no bid": no demand or a network error, and always for
  /// child-directed requests), or ``EMAError/Code/invalidZone`` for a zone not in the dashboard.
  /// - Returns: A handle that withdraws the request: the completion is then never called.
  @discardableResult
  public func requestBid(
    zoneId: String, auctionID: UInt64?, completion: @escaping @Sendable (Result<EMABid, EMAError>) -> Void
  ) -> Cancellable {
    let privacy = settings.privacy
    let (outcome, latency) = state.withLock { state in
      let key = state.loadKey(zoneId, auctionID: auctionID, consume: false)
      var random = state.bidStream(zoneId, key: key)
      let seconds = random.logNormal(median: profile.bidLatencyMedian.seconds, sigma: profile.bidLatencySigma)
      var plan = state.planStream(zoneId, key: key)
      let outcome = LoadPlan(
        settings: state.dashboard[zoneId], profile: profile, privacy: privacy, random: &plan
      )
      .result
      return (outcome, Duration.milliseconds(Int64((seconds * 1000).rounded())))
    }
    return scheduler.schedule(after: latency) { [self] in
      if privacy.isChildDirected {
        completion(.failure(EMAError(.noFill, "no bids for child-directed requests")))
        return
      }
      switch outcome {
      case .failure(let error) where error.code == .invalidZone:
        completion(.failure(error))
      case .failure:
        completion(.failure(EMAError(.noFill, "no bid for the zone")))
      case .success(let ad):
        let id = state.withLock { state in
          let id = state.nextID()
          state.bids.insert(
            OpenBid(id: id, zoneId: zoneId, price: ad.ecpm), capacity: profile.maxOutstandingBids)
          return id
        }
        completion(.success(EMABid(price: ad.ecpm, token: OpenBid.token(id))))
      }
    }
  }

  // MARK: - Loading

  /// The outcome of a load keyed by `auctionID` under `privacy`, drawn without side effects.
  /// `fallback` stands in for the dashboard entry when the zone is not configured.
  func outcome(zoneId: String, auctionID: UInt64?, privacy: PrivacySettings, fallback: EmpowerZoneSettings?)
    -> Result<Double, EMAError>
  {
    state.withLock { state in
      let key = state.loadKey(zoneId, auctionID: auctionID, consume: false)
      var random = state.planStream(zoneId, key: key)
      return LoadPlan(
        settings: state.dashboard[zoneId] ?? fallback, profile: profile, privacy: privacy, random: &random
      ).result.map(\.ecpm)
    }
  }

  private func startLoad(zoneId: String, simulation: EMASimulatedRequest?) {
    let privacy = simulation?.bidToken == nil ? settings.privacy : PrivacySettings()
    let start = state.withLock { state -> LoadStart in
      var zone = state.zone(zoneId)
      if zone.load != nil { return .joined }
      if zone.ad != nil { return .alreadyReady(zone.instance) }
      let settings = state.dashboard[zoneId]
      let plan: LoadPlan
      if let token = simulation?.bidToken {
        plan = LoadPlan(bid: state.bids.take(token, zoneId: zoneId), settings: settings, profile: profile)
      } else {
        let key = state.loadKey(zoneId, auctionID: simulation?.auctionID, consume: true)
        var random = state.planStream(zoneId, key: key)
        plan = LoadPlan(settings: settings, profile: profile, privacy: privacy, random: &random)
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
      settings.log(.info, "zone \(zoneId): loading")
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
      settings.log(.info, "zone \(zoneId): ready (eCPM \(ad.ecpm))")
      deliver(.ready, zoneId: zoneId, instance: instance)
    case .failure(let error):
      settings.log(.info, "zone \(zoneId): load failed: \(error)")
      deliver(.failed(error), zoneId: zoneId, instance: instance)
    }
  }

  // MARK: - Showing

  private func run(_ plan: ShowPlan, zoneId: String, instance: UInt64, session: UInt64) {
    settings.log(.info, "zone \(zoneId): showing")
    scheduler.execute { [self] in deliver(.shown, zoneId: zoneId, instance: instance) }
    if let click = plan.clickAt {
      scheduler.schedule(after: click) { [self] in
        guard let box = delegateBox(zoneId: zoneId, instance: instance) else { return }
        settings.log(.debug, "zone \(zoneId): clicked")
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
      settings.log(.info, "zone \(zoneId): auto-reloading")
      startLoad(zoneId: zoneId, simulation: nil)
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
    settings.log(.debug, "zone \(zoneId): \(status)")
    box.delegate?.rewardedStatusChanged(adStatus: status)
  }
}

// MARK: - Internal state

extension EMAManager {
  fileprivate struct State {
    /// The root of the per-zone show streams.
    let showRoot: SeededRandom
    /// The root of the keyed load streams: `loadRoot.derived(zoneId, auctionID)`.
    let loadRoot: SeededRandom
    /// The root of the load streams of vendor-API loads: `sequenceRoot.derived(zoneId, count)`.
    let sequenceRoot: SeededRandom
    /// The root of the keyed bid-latency streams.
    let bidRoot: SeededRandom
    var showStreams = Streams()
    /// Per zone id: how many vendor-API (keyless) loads it started.
    var loadCounts: [String: UInt64] = [:]
    var bids = BidBook()
    var zones: [String: Zone] = [:]
    var dashboard: [String: EmpowerZoneSettings] = [:]
    var fullScreen: FullScreen?
    var lastID: UInt64 = 0

    init(random: SeededRandom) {
      self.showRoot = random
      self.loadRoot = random.derived("empower.load")
      self.sequenceRoot = random.derived("empower.load.sequence")
      self.bidRoot = random.derived("empower.bid")
    }

    /// The key of a load: its auction id, or the zone's next load count (taken when `consume`).
    mutating func loadKey(_ zoneId: String, auctionID: UInt64?, consume: Bool) -> LoadKey {
      if let auctionID { return .auction(auctionID) }
      let count = (loadCounts[zoneId] ?? 0) + 1
      if consume { loadCounts[zoneId] = count }
      return .sequence(count)
    }

    /// The stream of a load's market draws.
    func planStream(_ zoneId: String, key: LoadKey) -> SeededRandom {
      switch key {
      case .auction(let id): loadRoot.derived(zoneId, id)
      case .sequence(let count): sequenceRoot.derived(zoneId, count)
      }
    }

    /// The stream of a bid's latency.
    func bidStream(_ zoneId: String, key: LoadKey) -> SeededRandom {
      switch key {
      case .auction(let id): bidRoot.derived(zoneId, id)
      case .sequence(let count): bidRoot.derived(zoneId, count).derived("sequence")
      }
    }

    var bookkeeping: Bookkeeping {
      Bookkeeping(
        zones: zones.count, dashboardEntries: dashboard.count, showStreams: showStreams.count,
        loadCounts: loadCounts.count, openBids: bids.count, bidRing: bids.ringCount)
    }

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

    var count: Int { byZone.count }

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

  fileprivate enum LoadKey {
    /// A mediation load's auction id.
    case auction(UInt64)
    /// A vendor-API load: the zone's load count.
    case sequence(UInt64)
  }

  /// A load's outcome, drawn when it starts.
  fileprivate struct LoadPlan {
    let latency: Duration
    let result: Result<LoadedAd, EMAError>

    /// The market outcome of a request, from its own keyed stream: latency, then network error,
    /// then fill, then (only when it fills) the price.
    init(
      settings: EmpowerZoneSettings?, profile: EmpowerBehaviorProfile, privacy: PrivacySettings,
      random: inout SeededRandom
    ) {
      let seconds = random.logNormal(
        median: profile.loadLatencyMedian.seconds, sigma: profile.loadLatencySigma)
      latency = .milliseconds(Int64((seconds * 1000).rounded()))
      guard let settings else {
        result = .failure(EMAError(.invalidZone, "zone is not configured in the dashboard"))
        return
      }
      if random.chance(profile.networkErrorRate) {
        result = .failure(EMAError(.networkError, "the ad request failed"))
      } else if random.chance(profile.fillRate * profile.fillFactor(privacy)) {
        let noise = random.logNormal(median: 1, sigma: profile.priceSigma)
        let ecpm = (settings.baseECPM * noise * profile.priceFactor(privacy) * 100).rounded() / 100
        result = .success(
          LoadedAd(ecpm: ecpm, rewardType: settings.rewardType, rewardAmount: settings.rewardAmount))
      } else {
        result = .failure(EMAError(.noFill, "no ad available for the zone"))
      }
    }

    /// The load of a won bid: its price, no draw.
    init(bid: OpenBid?, settings: EmpowerZoneSettings?, profile: EmpowerBehaviorProfile) {
      latency = profile.bidLoadLatency
      guard let bid else {
        result = .failure(EMAError(.invalidBid, "unknown, expired or already used bid token"))
        return
      }
      guard let settings else {
        result = .failure(EMAError(.invalidZone, "zone is not configured in the dashboard"))
        return
      }
      result = .success(
        LoadedAd(ecpm: bid.price, rewardType: settings.rewardType, rewardAmount: settings.rewardAmount))
    }
  }

  /// A bid the server answered and nobody loaded yet.
  fileprivate struct OpenBid {
    static let prefix = "emb_"

    let id: UInt64
    let zoneId: String
    let price: Double

    static func token(_ id: UInt64) -> String { prefix + String(id, radix: 16) }

    static func id(_ token: String) -> UInt64? {
      guard token.hasPrefix(prefix) else { return nil }
      return UInt64(token.dropFirst(prefix.count), radix: 16)
    }
  }

  /// The server's answered bids, at most `capacity` of them: the oldest expires when a new one
  /// would exceed it, so bids that lose their auction never accumulate.
  fileprivate struct BidBook {
    private var open: [UInt64: OpenBid] = [:]
    /// Ids in the order they were issued (a ring once full); ids already taken are skipped.
    private var ring: [UInt64] = []
    private var next = 0

    var count: Int { open.count }
    var ringCount: Int { ring.count }

    mutating func insert(_ bid: OpenBid, capacity: Int) {
      guard capacity > 0 else { return }
      if ring.count < capacity {
        ring.append(bid.id)
      } else {
        open.removeValue(forKey: ring[next % ring.count])
        ring[next % ring.count] = bid.id
        next = (next + 1) % ring.count
      }
      open[bid.id] = bid
    }

    /// Removes and returns the bid `token` names, if it is open and for `zoneId`.
    mutating func take(_ token: String, zoneId: String) -> OpenBid? {
      guard let id = OpenBid.id(token), let bid = open[id], bid.zoneId == zoneId else { return nil }
      open.removeValue(forKey: id)
      return bid
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

// MARK: - Test hooks

extension EMAManager {
  /// The sizes of everything the manager keeps, for tests that check nothing grows with the number
  /// of loads and shows.
  struct Bookkeeping: Equatable {
    var zones: Int
    var dashboardEntries: Int
    var showStreams: Int
    var loadCounts: Int
    var openBids: Int
    var bidRing: Int
  }

  /// The current sizes of the manager's bookkeeping.
  var bookkeeping: Bookkeeping { state.withLock { $0.bookkeeping } }
}

// MARK: - Simulation types

/// Simulation wiring: what a mediation adapter passes with a load, through
/// ``EMAManager/loadRewardedAd(zoneId:delegate:simulation:)``, that the vendor API has no place
/// for.
public struct EMASimulatedRequest: Sendable, Equatable {
  /// The auction the load is for: its market draws are keyed by the zone id and this id. `nil`
  /// keys them by the zone's load count, like a vendor-API load.
  public var auctionID: UInt64?
  /// The token of a won bid (``EMABid/token``): the load fills at the bid's price.
  public var bidToken: String?

  /// Creates the simulation part of a load request.
  public init(auctionID: UInt64? = nil, bidToken: String? = nil) {
    self.auctionID = auctionID
    self.bidToken = bidToken
  }
}

/// Simulation only: a bid from the Empower server (``EMAManager/requestBid(zoneId:auctionID:completion:)``).
public struct EMABid: Sendable, Equatable {
  /// The price the server commits to, in USD per thousand impressions.
  public var price: Double
  /// Pass it in ``EMASimulatedRequest/bidToken`` to load the ad; single-use.
  public var token: String

  /// Creates a bid.
  public init(price: Double, token: String) {
    self.price = price
    self.token = token
  }
}

extension EmpowerBehaviorProfile {
  /// The factor the privacy signals apply to the fill probability.
  func fillFactor(_ privacy: PrivacySettings) -> Double {
    var factor = 1.0
    if privacy.hasUserConsent == false { factor *= noConsentFillFactor }
    if privacy.isChildDirected { factor *= childDirectedFillFactor }
    return factor
  }

  /// The factor the privacy signals apply to the price.
  func priceFactor(_ privacy: PrivacySettings) -> Double {
    var factor = 1.0
    if privacy.hasUserConsent == false { factor *= noConsentPriceFactor }
    if privacy.doNotSell == true { factor *= doNotSellPriceFactor }
    if privacy.isChildDirected { factor *= childDirectedPriceFactor }
    return factor
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
