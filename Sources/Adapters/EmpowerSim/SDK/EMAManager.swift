import Dispatch
import Foundation
import MediationKit

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
/// state, delegate, dashboard entry, show stream, load count and keyed-stream roots) and at most
/// ``EmpowerBehaviorProfile/maxOutstandingBids`` answered bids.
public final class EMAManager: Sendable {
  /// The simulated SDK's version.
  public static let sdkVersion = "3.4.0-sim"

  private static let sharedInstance = Locked(
    EMAManager(
      scheduler: DispatchScheduler(queue: DispatchQueue(label: "EmpowerMobileAds.main")),
      random: SeededRandom(seed: 0x454D_4131), profile: .default, settings: .shared))

  /// The process-wide manager the vendor guide uses.
  ///
  /// By default it runs on wall-clock time (a private serial `DispatchQueue`, where the real SDK
  /// uses the main thread) with a fixed seed. Tests replace it with ``installShared(_:)``.
  public static var shared: EMAManager { sharedInstance.withLock { $0 } }

  /// Makes `manager` the process-wide ``shared`` instance, e.g. one on a `VirtualScheduler`.
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
  private let state: Locked<State>

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
    self.state = Locked(State(random: random))
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
    startLoad(slot: slot(zoneId).index, delegate: delegate, simulation: nil)
  }

  /// Whether `zoneId` holds a loaded ad that ``showRewarded(zoneId:from:)`` can show.
  public func isRewardedReady(zoneId: String) -> Bool {
    state.withLock { state in state.index(of: zoneId).map { state.slots[$0].zone?.ad != nil } ?? false }
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
      guard let slot = state.index(of: zoneId) else {
        return .refused(EMAError(.notReady, "zone '\(zoneId)' has no ad loaded"), nil)
      }
      return state.show(slot, profile: profile)
    }
    perform(outcome, zoneId: zoneId)
  }

  /// Whether the ad of `zoneId` is on screen.
  public func isRewardedShowing(zoneId: String) -> Bool {
    state.withLock { state in state.fullScreen.map { state.slots[$0.slot].zoneId == zoneId } ?? false }
  }

  /// Releases `zoneId`: cancels its load, drops its loaded ad and its delegate.
  ///
  /// An ad already on screen plays to its end, but no further status is delivered and the zone
  /// does not auto-reload. Loading the zone again starts afresh.
  public func destroyRewardedZone(zoneId: String) {
    let load = state.withLock { state -> Cancellable? in
      state.index(of: zoneId).flatMap { state.destroy($0) }
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
    state.withLock { state in
      let slot = state.slot(settings.zoneId)
      state.slots[slot].dashboard = settings
    }
  }

  /// Simulation wiring: configures the zone of `slot` with `settings()` unless it is already
  /// configured, in one step (`settings` is only called when needed).
  func configureZoneIfAbsent(slot: ZoneSlot, _ settings: () -> EmpowerZoneSettings) {
    state.withLock { state in
      if state.slots[slot.index].dashboard == nil { state.slots[slot.index].dashboard = settings() }
    }
  }

  /// Simulation only: the server-side configuration of `zoneId`, if any.
  public func zoneSettings(zoneId: String) -> EmpowerZoneSettings? {
    state.withLock { state in state.index(of: zoneId).flatMap { state.slots[$0].dashboard } }
  }

  /// Simulation only: the price (USD eCPM) of the ad loaded for `zoneId`, or `nil` when none is
  /// loaded.
  public func rewardedECPM(zoneId: String) -> Double? {
    state.withLock { state in state.index(of: zoneId).flatMap { state.slots[$0].zone?.ad?.ecpm } }
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
    startLoad(slot: slot(zoneId).index, delegate: delegate, simulation: simulation)
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
    outcome(zoneId: zoneId, auctionID: auctionID, privacy: privacy) { nil }
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
      let slot = state.slot(zoneId)
      let key = state.loadKey(slot, auctionID: auctionID, consume: false)
      var random = state.slots[slot].streams.bid(key)
      let seconds = random.logNormal(median: profile.bidLatencyMedian.seconds, sigma: profile.bidLatencySigma)
      var plan = state.slots[slot].streams.plan(key)
      let outcome = LoadPlan(
        settings: state.slots[slot].dashboard, profile: profile, privacy: privacy, random: &plan
      )
      .result
      return (outcome, Duration.milliseconds(roundingSeconds: seconds))
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

  // MARK: - Slot-based entry points (simulation wiring for the adapter)

  /// The handle of `zoneId`'s entry, created if needed. Stable for the manager's lifetime (across
  /// destroys), so an adapter looks a zone id up once and passes the handle on every call.
  func slot(_ zoneId: String) -> ZoneSlot {
    ZoneSlot(index: state.withLock { $0.slot(zoneId) })
  }

  /// Sets ``settings``' privacy signals to `privacy` (as through ``EMASettings``' privacy API),
  /// then ``loadRewardedAd(zoneId:delegate:simulation:)`` for the zone of `slot`, which loads under
  /// those signals: the load uses `privacy` instead of reading the settings back.
  func loadRewardedAd(
    slot: ZoneSlot, delegate: AdStatusDelegate?, simulation: EMASimulatedRequest, privacy: PrivacySettings
  ) {
    settings.privacy = privacy
    startLoad(slot: slot.index, delegate: delegate, simulation: simulation, privacy: privacy)
  }

  /// ``rewardedECPM(zoneId:)`` for the zone of `slot`.
  func rewardedECPM(slot: ZoneSlot) -> Double? {
    state.withLock { $0.slots[slot.index].zone?.ad?.ecpm }
  }

  /// ``showRewarded(zoneId:from:)`` for the zone of `slot` when it holds an ad; otherwise does
  /// nothing (no status either) and returns `false`, which ``isRewardedReady(zoneId:)`` would have
  /// answered.
  func showRewardedIfReady(slot: ZoneSlot, from viewController: AdPresenting) -> Bool {
    let outcome = state.withLock { state -> ShowOutcome? in
      guard state.slots[slot.index].zone?.ad != nil else { return nil }
      return state.show(slot.index, profile: profile)
    }
    guard let outcome else { return false }
    perform(outcome)
    return true
  }

  /// ``isRewardedReady(zoneId:)`` for the zone of `slot`.
  func isRewardedReady(slot: ZoneSlot) -> Bool {
    state.withLock { $0.slots[slot.index].zone?.ad != nil }
  }

  /// ``destroyRewardedZone(zoneId:)`` for the zone of `slot`.
  func destroyRewardedZone(slot: ZoneSlot) {
    let (load, zoneId) = state.withLock { state in
      (state.destroy(slot.index), state.slots[slot.index].zoneId)
    }
    load?.cancel()
    settings.log(.info, "zone \(zoneId): destroyed")
  }

  // MARK: - Loading

  /// The outcome of a load keyed by `auctionID` under `privacy`, drawn without side effects.
  /// `fallback` stands in for the dashboard entry when the zone is not configured (only called
  /// then).
  func outcome(
    zoneId: String, auctionID: UInt64?, privacy: PrivacySettings, fallback: () -> EmpowerZoneSettings?
  ) -> Result<Double, EMAError> {
    state.withLock { state in
      guard let slot = state.index(of: zoneId) else {
        // Never seen: no entry is made for a question. Its first load would have count 1.
        let streams = ZoneStreams(zoneId, state: state)
        var random = streams.plan(auctionID.map(LoadKey.auction) ?? .sequence(1))
        return LoadPlan(settings: fallback(), profile: profile, privacy: privacy, random: &random).result.map(
          \.ecpm)
      }
      let key = state.loadKey(slot, auctionID: auctionID, consume: false)
      var random = state.slots[slot].streams.plan(key)
      return LoadPlan(
        settings: state.slots[slot].dashboard ?? fallback(), profile: profile, privacy: privacy,
        random: &random
      ).result.map(\.ecpm)
    }
  }

  /// Starts (or joins) a load of the zone of `slot`, under `privacy` or, when `nil`, the signals
  /// in ``settings``. A bid's load ignores them: its price was set when the bid was made.
  private func startLoad(
    slot: Int, delegate: AdStatusDelegate?, simulation: EMASimulatedRequest?, privacy: PrivacySettings? = nil
  ) {
    let privacy = simulation?.bidToken == nil ? privacy ?? settings.privacy : PrivacySettings()
    let (start, box) = state.withLock { state -> (LoadStart, DelegateBox) in
      let zone = state.zone(slot)
      let box = state.slots[slot].delegate
      if zone.load != nil { return (.joined, box) }
      if zone.ad != nil { return (.alreadyReady(zone.instance), box) }
      let settings = state.slots[slot].dashboard
      let plan: LoadPlan
      if let token = simulation?.bidToken {
        plan = LoadPlan(
          bid: state.bids.take(token, zoneId: state.slots[slot].zoneId), settings: settings, profile: profile)
      } else {
        let key = state.loadKey(slot, auctionID: simulation?.auctionID, consume: true)
        var random = state.slots[slot].streams.plan(key)
        plan = LoadPlan(settings: settings, profile: profile, privacy: privacy, random: &random)
      }
      let ticket = state.nextID()
      state.slots[slot].zone?.load = Load(ticket: ticket, cancellable: nil)
      return (.started(plan, zone.instance, ticket), box)
    }
    if let delegate { box.set(delegate) }
    switch start {
    case .joined:
      break
    case .alreadyReady(let instance):
      scheduler.execute { [self] in deliver(.ready, box: box, instance: instance) }
    case .started(let plan, let instance, let ticket):
      settings.log(.info, "zone \(box.zoneId): loading")
      scheduler.execute { [self] in deliver(.initializing, box: box, instance: instance) }
      let cancellable = scheduler.schedule(after: plan.latency) { [self] in
        finishLoad(plan, slot: slot, box: box, instance: instance, ticket: ticket)
      }
      state.withLock { state in
        if state.slots[slot].zone?.instance == instance, state.slots[slot].zone?.load?.ticket == ticket {
          state.slots[slot].zone?.load?.cancellable = cancellable
        }
      }
    }
  }

  private func finishLoad(_ plan: LoadPlan, slot: Int, box: DelegateBox, instance: UInt64, ticket: UInt64) {
    let current = state.withLock { state -> Bool in
      guard let zone = state.slots[slot].zone, zone.instance == instance, zone.load?.ticket == ticket else {
        return false
      }
      state.slots[slot].zone?.load = nil
      if case .success(let ad) = plan.result { state.slots[slot].zone?.ad = ad }
      return true
    }
    guard current else { return }
    switch plan.result {
    case .success(let ad):
      settings.log(.info, "zone \(box.zoneId): ready (eCPM \(ad.ecpm))")
      deliver(.ready, box: box, instance: instance)
    case .failure(let error):
      settings.log(.info, "zone \(box.zoneId): load failed: \(error)")
      deliver(.failed(error), box: box, instance: instance)
    }
  }

  // MARK: - Showing

  /// Carries out a show decided under the lock; `zoneId` names the zone in the log (by default
  /// the refusing zone's).
  private func perform(_ outcome: ShowOutcome, zoneId: String? = nil) {
    switch outcome {
    case .refused(let error, let target):
      settings.log(.warning, "showRewarded(\(zoneId ?? target?.box.zoneId ?? "")) refused: \(error)")
      if let (box, instance) = target {
        scheduler.execute { [self] in deliver(.failed(error), box: box, instance: instance) }
      }
    case .showing(let plan, let slot, let box, let instance, let session):
      run(plan, slot: slot, box: box, instance: instance, session: session)
    }
  }

  private func run(_ plan: ShowPlan, slot: Int, box: DelegateBox, instance: UInt64, session: UInt64) {
    settings.log(.info, "zone \(box.zoneId): showing")
    scheduler.execute { [self] in deliver(.shown, box: box, instance: instance) }
    if let click = plan.clickAt {
      scheduler.schedule(after: click) { [self] in
        guard let delegate = box.delegate(of: instance) else { return }
        settings.log(.debug, "zone \(box.zoneId): clicked")
        (delegate as? AdClickDelegate)?.rewardedAdClicked(zoneId: box.zoneId)
      }
    }
    switch plan.ending {
    case .skip(let after):
      scheduler.schedule(after: after) { [self] in
        dismiss(.skipped, slot: slot, box: box, instance: instance, session: session)
      }
    case .complete(let after, let endCard):
      let reward = AdStatus.rewarded(type: plan.ad.rewardType, amount: plan.ad.rewardAmount)
      scheduler.schedule(after: after) { [self] in deliver(reward, box: box, instance: instance) }
      scheduler.schedule(after: after + endCard) { [self] in
        dismiss(.closed, slot: slot, box: box, instance: instance, session: session)
      }
    }
  }

  private func dismiss(_ status: AdStatus, slot: Int, box: DelegateBox, instance: UInt64, session: UInt64) {
    let autoReload = state.withLock { state -> Bool in
      if state.fullScreen?.session == session { state.fullScreen = nil }
      return state.slots[slot].zone?.instance == instance && state.slots[slot].dashboard?.autoReload == true
    }
    deliver(status, box: box, instance: instance)
    if autoReload, state.withLock({ $0.slots[slot].zone?.instance == instance }) {
      settings.log(.info, "zone \(box.zoneId): auto-reloading")
      startLoad(slot: slot, delegate: nil, simulation: nil)
    }
  }

  // MARK: - Delivery

  /// Tells the zone's delegate, if the zone still exists as it was when the work was scheduled.
  private func deliver(_ status: AdStatus, box: DelegateBox, instance: UInt64) {
    guard let delegate = box.delegate(of: instance) else { return }
    settings.log(.debug, "zone \(box.zoneId): \(status)")
    delegate.rewardedStatusChanged(adStatus: status)
  }
}

/// Simulation wiring: a handle on one zone id's entry in an ``EMAManager`` (see
/// ``EMAManager/slot(_:)``), so the adapter's calls skip the zone-id lookup.
struct ZoneSlot: Sendable, Equatable {
  fileprivate let index: Int
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
    /// The slot of every zone id seen: one per zone id, kept across destroys.
    var slotIndex: [String: Int] = [:]
    var slots: [Slot] = []
    var bids = BidBook()
    var fullScreen: FullScreen?
    var lastID: UInt64 = 0

    init(random: SeededRandom) {
      self.showRoot = random
      self.loadRoot = random.derived("empower.load")
      self.sequenceRoot = random.derived("empower.load.sequence")
      self.bidRoot = random.derived("empower.bid")
    }

    /// The slot of `zoneId`, if it was seen. Performance: with a few slots (an app has a few
    /// zones) comparing their ids costs less than hashing one for `slotIndex`, once per quote.
    func index(of zoneId: String) -> Int? {
      guard slots.count <= 8 else { return slotIndex[zoneId] }
      for slot in slots.indices where slots[slot].zoneId == zoneId { return slot }
      return nil
    }

    /// The slot of `zoneId`, created if needed.
    mutating func slot(_ zoneId: String) -> Int {
      if let slot = index(of: zoneId) { return slot }
      let slot = slots.count
      slots.append(Slot(zoneId: zoneId, streams: ZoneStreams(zoneId, state: self)))
      slotIndex[zoneId] = slot
      return slot
    }

    /// The key of a load: its auction id, or the zone's next load count (taken when `consume`).
    mutating func loadKey(_ slot: Int, auctionID: UInt64?, consume: Bool) -> LoadKey {
      if let auctionID { return .auction(auctionID) }
      let count = (slots[slot].loadCount ?? 0) + 1
      if consume { slots[slot].loadCount = count }
      return .sequence(count)
    }

    var bookkeeping: Bookkeeping {
      var counts = Bookkeeping(
        zones: 0, dashboardEntries: 0, showStreams: 0, loadCounts: 0, openBids: bids.count,
        bidRing: bids.ringCount)
      for slot in slots {
        if slot.zone != nil { counts.zones += 1 }
        if slot.dashboard != nil { counts.dashboardEntries += 1 }
        if slot.showStream != nil { counts.showStreams += 1 }
        if slot.loadCount != nil { counts.loadCounts += 1 }
      }
      return counts
    }

    mutating func nextID() -> UInt64 {
      lastID += 1
      return lastID
    }

    /// The slot's zone, created (with a fresh instance number and no delegate) if it does not
    /// exist.
    mutating func zone(_ slot: Int) -> Zone {
      if let zone = slots[slot].zone { return zone }
      let zone = Zone(instance: nextID())
      slots[slot].delegate.open(zone.instance)
      slots[slot].zone = zone
      return zone
    }

    /// Drops the slot's zone and its delegate; returns its load to cancel.
    mutating func destroy(_ slot: Int) -> Cancellable? {
      guard let zone = slots[slot].zone else { return nil }
      slots[slot].zone = nil
      slots[slot].delegate.close()
      return zone.load?.cancellable
    }

    /// Starts showing the slot's ad, drawing the user's behaviour from the zone's show stream.
    mutating func show(_ slot: Int, profile: EmpowerBehaviorProfile) -> ShowOutcome {
      let zoneId = slots[slot].zoneId
      guard let zone = slots[slot].zone else {
        return .refused(EMAError(.notReady, "zone '\(zoneId)' has no ad loaded"), nil)
      }
      let box = slots[slot].delegate
      if let showing = fullScreen {
        return .refused(
          EMAError(
            .anotherAdShowing, "a full-screen ad is already showing (zone '\(slots[showing.slot].zoneId)')"),
          (box, zone.instance))
      }
      guard let ad = zone.ad else {
        return .refused(EMAError(.notReady, "zone '\(zoneId)' has no ad loaded"), (box, zone.instance))
      }
      slots[slot].zone?.ad = nil
      let session = nextID()
      fullScreen = FullScreen(slot: slot, session: session)
      var random = slots[slot].showStream ?? showRoot.derived("empower.zone." + zoneId)
      let plan = ShowPlan(ad: ad, profile: profile, random: &random)
      slots[slot].showStream = random
      return .showing(plan, slot, box, zone.instance, session)
    }
  }

  /// Everything the manager keeps for one zone id. Only `zone` is dropped by a destroy; the
  /// dashboard entry, show stream and load count stay, so one zone's draws never shift another's.
  ///
  /// A class so that reading or writing one field does not copy the others; only ever used under
  /// the manager's lock (it is not `Sendable` and never leaves ``State``).
  fileprivate final class Slot {
    let zoneId: String
    /// The zone's delegate; bound to the live zone's instance, cleared by a destroy.
    let delegate: DelegateBox
    /// The zone's keyed load and bid streams.
    let streams: ZoneStreams
    /// The live zone, if any.
    var zone: Zone?
    var dashboard: EmpowerZoneSettings?
    /// The zone's show stream, once it showed.
    var showStream: SeededRandom?
    /// How many vendor-API (keyless) loads it started, once it started one.
    var loadCount: UInt64?

    init(zoneId: String, streams: ZoneStreams) {
      self.zoneId = zoneId
      self.delegate = DelegateBox(zoneId: zoneId)
      self.streams = streams
    }
  }

  /// The keyed streams of one zone id: `root.derived(zoneId, key)` for the load, sequence and bid
  /// roots, with the zone id hashed once instead of on every draw.
  fileprivate struct ZoneStreams {
    let load: KeyedStreams
    let sequence: KeyedStreams
    let bid: KeyedStreams

    init(_ zoneId: String, state: State) {
      load = KeyedStreams(state.loadRoot, zoneId)
      sequence = KeyedStreams(state.sequenceRoot, zoneId)
      bid = KeyedStreams(state.bidRoot, zoneId)
    }

    /// The stream of a load's market draws.
    func plan(_ key: LoadKey) -> SeededRandom {
      switch key {
      case .auction(let id): load.stream(id)
      case .sequence(let count): sequence.stream(count)
      }
    }

    /// The stream of a bid's latency.
    func bid(_ key: LoadKey) -> SeededRandom {
      switch key {
      case .auction(let id): bid.stream(id)
      case .sequence(let count): bid.stream(count).derived("sequence")
      }
    }
  }

  fileprivate struct Zone {
    /// Distinguishes this zone from an earlier, destroyed zone with the same id.
    let instance: UInt64
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
    let slot: Int
    let session: UInt64
  }

  fileprivate enum LoadStart {
    case joined
    case alreadyReady(UInt64)
    case started(LoadPlan, UInt64, UInt64)
  }

  fileprivate enum ShowOutcome {
    /// Refused; the zone's delegate and instance to tell, if the zone exists.
    case refused(EMAError, (box: DelegateBox, instance: UInt64)?)
    case showing(ShowPlan, Int, DelegateBox, UInt64, UInt64)
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
      latency = .milliseconds(roundingSeconds: seconds)
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
    if privacy.personalizedAdsConsent == false { factor *= noConsentFillFactor }
    if privacy.isChildDirected { factor *= childDirectedFillFactor }
    return factor
  }

  /// The factor the privacy signals apply to the price.
  func priceFactor(_ privacy: PrivacySettings) -> Double {
    var factor = 1.0
    if privacy.personalizedAdsConsent == false { factor *= noConsentPriceFactor }
    if privacy.doNotSell == true { factor *= doNotSellPriceFactor }
    if privacy.isChildDirected { factor *= childDirectedPriceFactor }
    return factor
  }
}

/// `root.derived(label, index)` for one label and any index, with the label hashed once.
///
/// ``SeededRandom/derived(_:_:)`` is `derived(label)`'s first draw mixed with the index; this
/// keeps that draw, so ``stream(_:)`` gives the same stream for a fraction of the cost (the
/// equality is checked by `KeyedStreamsTests`).
struct KeyedStreams: Sendable {
  private let base: UInt64

  init(_ root: SeededRandom, _ label: String) {
    var keyed = root.derived(label)
    base = keyed.next()
  }

  /// `root.derived(label, index)`.
  func stream(_ index: UInt64) -> SeededRandom {
    SeededRandom(seed: base ^ (index &* 0x9E37_79B9_7F4A_7C15))
  }
}

/// A zone id's delegate, held weakly, behind a lock, and bound to one instance of the zone.
///
/// `@unchecked Sendable` because `AdStatusDelegate` is not `Sendable` (the guide's delegates are
/// view controllers). It is safe: the mutable fields are only read and written under `lock`, and
/// the SDK only calls the delegate from its scheduler's serial executor, as a real SDK calls its
/// delegates on the main thread.
private final class DelegateBox: @unchecked Sendable {
  let zoneId: String
  private let lock = NSLock()
  /// The live zone's instance; 0 when the zone does not exist.
  private var instance: UInt64 = 0
  private weak var reference: AdStatusDelegate?

  init(zoneId: String) { self.zoneId = zoneId }

  /// The delegate, if the zone still is instance `instance`.
  func delegate(of instance: UInt64) -> AdStatusDelegate? {
    lock.withLock { self.instance == instance ? reference : nil }
  }

  func set(_ delegate: AdStatusDelegate) { lock.withLock { reference = delegate } }

  /// A new instance of the zone, with no delegate yet.
  func open(_ instance: UInt64) {
    lock.withLock {
      self.instance = instance
      reference = nil
    }
  }

  /// The zone was destroyed: its delegate is dropped.
  func close() { open(0) }
}
