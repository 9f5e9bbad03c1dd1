import Dispatch
import Foundation
import MediationKit
import MediationKitSimulation
import MediationKitTesting

/// Runs N rewarded-ad sessions on the real engine — the same ``Mediator``, adapters and simulated
/// SDKs as a single cycle — on virtual time, and streams statistics.
///
/// Requests are cut into fixed shards of ``shardSize``; each shard has its own virtual clock,
/// mediator and SDK instances, seeded from the run's seed and the shard's index. Shards run on all
/// cores and merge in shard order, so the figures depend on the seed and N only, never on the
/// number of cores. Nothing is kept per request.
///
/// A session: the app loads the zone; when it is ready the ad is shown at once; the session ends
/// with the show's terminal event (or the failed load), and the next one starts 30 virtual
/// seconds later. With a queue (``Settings/queueDepth``) the zone reloads on its own and keeps up
/// to that many ads ready: a session is a show request, answered at once from the queue, or (the
/// queue empty) by loading and showing on `ready`. Either way the session's show latency runs from
/// the request to `shown`. Per request the oracle asks every participating network's simulated SDK what it
/// would have answered for that auction (``SimulatedNetwork/quote(_:)``) and keeps the best
/// price: the revenue a perfect auction would have earned under the same seeded draws.
struct Simulator {
  struct Settings {
    var zone: ZoneConfig
    var networks: [NetworkID]
    var seed: UInt64
    var requests: Int
    var privacy = PrivacySettings()
    /// Whether to record every line item's fate in every auction (``SimulationStats/funnel``), for
    /// reports; off by default, as it costs time per request.
    var keepsFunnel = false
    /// Whether to record every line item's fills, impressions, revenue and load times
    /// (``SimulationStats/lineItems``), for the optimizer; off by default, as it costs time too.
    var keepsLineItemEarnings = false
    /// What the networks pay, when not the configured eCPMs (``MarketPrices``).
    var market: MarketPrices?
    /// What the networks do, when a market file says (``CalibratedMarket``): fill, prices and
    /// latency of the line items it lists.
    var calibrated: CalibratedMarket?
    /// What the run records besides its figures: the event log, the vendors' report counts.
    var recording = SimulationRecording()
    /// The zone's queue depth for the queue model (the zone reloads on its own; sessions show
    /// from its queue); `nil` for the load-per-session model, whose zone does not reload.
    var queueDepth: Int?
    /// With `--record`: the flight recorder of the last shard's mediator, whose last sessions
    /// ``run(parallel:progress:eventLog:flightRecording:)`` hands back (within the recorder's
    /// bounds).
    var flightRecorder: MediatorOptions.FlightRecorder?
  }

  static let shardSize = 5_000
  static let sessionGap = Duration.seconds(30)

  let settings: Settings
  let registry: AdapterRegistry

  /// Runs every shard; `progress` is called with the number of requests done after each shard.
  /// - Parameters:
  ///   - parallel: Run shards on every core (`true`) or one after another; the figures are the same.
  ///   - progress: Called with the number of requests done after each shard.
  ///   - eventLog: With ``Settings/recording`` asking for it, called with each shard's event log
  ///     lines, in shard order, as the shards finish (so the log is never held whole).
  ///   - flightRecording: With ``Settings/flightRecorder``, set to the last shard's flight recording.
  func run(
    parallel: Bool = true, progress: (@Sendable (Int) -> Void)? = nil,
    eventLog: (@Sendable (String) -> Void)? = nil, flightRecording: Locked<FlightRecording?>? = nil
  ) throws(MediationError) -> SimulationStats {
    let taking = try registry.subset(settings.networks)
    let subset = settings.market.map { $0.wrapping(taking) } ?? taking
    let shardCount = (settings.requests + Self.shardSize - 1) / Self.shardSize
    let merger = Locked(ShardMerger(eventLog: eventLog))
    let done = Locked(0)
    let settings = self.settings
    let runShard: @Sendable (Int) -> Void = { shard in
      let requests = min(Self.shardSize, settings.requests - shard * Self.shardSize)
      let flightRecorder = shard == shardCount - 1 ? settings.flightRecorder : nil
      let (stats, recorded) = Self.runShard(
        shard, requests: requests, settings: settings, registry: subset, flightRecorder: flightRecorder)
      if let recorded { flightRecording?.withLock { $0 = recorded } }
      merger.withLock { $0.add(stats, shard: shard) }
      let total = done.withLock { done in
        done += requests
        return done
      }
      progress?(total)
    }
    if parallel {
      DispatchQueue.concurrentPerform(iterations: shardCount, execute: runShard)
    } else {
      for shard in 0..<shardCount { runShard(shard) }
    }
    return merger.withLock { $0.merged }
  }

  /// One shard: `requests` sessions, back to back, on a fresh virtual clock and mediator; with
  /// `flightRecorder`, also what its flight recorder kept.
  static func runShard(
    _ shard: Int, requests: Int, settings: Settings, registry: AdapterRegistry,
    flightRecorder: MediatorOptions.FlightRecorder? = nil
  ) -> (SimulationStats, FlightRecording?) {
    let scheduler = VirtualScheduler()
    var zone = settings.zone
    if let depth = settings.queueDepth {
      // The zone keeps its queue filled on its own; the last session switches that off.
      zone.queueDepth = depth
      zone.autoReload = true
    } else {
      // Sessions drive every load; the zone's own preload and retry would keep the clock running.
      zone.autoReload = false
    }
    var shardRandom = SeededRandom(seed: settings.seed).derived("shard", UInt64(shard))
    let shardSeed = shardRandom.next()
    // A market's auctions belong to segments keyed by the shard's seed.
    let registry = settings.calibrated.map { $0.wrapping(registry, segmentSeed: shardSeed) } ?? registry
    let mediator: Mediator
    let ad: RewardedAd
    // The adapters this shard's mediator makes, kept for the oracle's quotes.
    let made = MadeAdapters()
    do {
      mediator = try Mediator(
        config: MediationConfig(zones: [zone]), registry: made.recording(registry), scheduler: scheduler,
        options: MediatorOptions(
          seed: shardSeed, transactionIDs: .seeded,
          flightRecorder: flightRecorder ?? MediatorOptions.FlightRecorder()))
      ad = try mediator.rewardedAd(zone: zone.id)
    } catch {
      preconditionFailure("the simulation settings were validated: \(error)")
    }
    mediator.privacy = settings.privacy
    let recorder =
      settings.recording.isOn
      ? ShardRecorder(
        settings.recording, market: settings.calibrated, segmentSeed: shardSeed,
        latestAuctionID: { [mediator] in mediator.latestAuctionID }) : nil
    let session = SessionDriver(
      mediator: mediator, adapters: made, ad: ad, zone: zone, privacy: settings.privacy, requests: requests,
      keepsFunnel: settings.keepsFunnel, keepsEarnings: settings.keepsLineItemEarnings,
      queued: settings.queueDepth != nil, recorder: recorder)
    let subscription = mediator.observeEvents { event in session.handle(event) }
    // Let the adapters start, then run the sessions back to back.
    scheduler.schedule(after: .seconds(1)) { session.startNext() }
    scheduler.run()
    subscription.cancel()
    var stats = session.stats
    if let recorder { (stats.eventLog, stats.reports) = recorder.output }
    return (stats, flightRecorder.map { _ in mediator.exportRecording() })
  }
}

/// Drives one shard's sessions from the mediator's events. Runs on the shard's scheduler only.
private final class SessionDriver: Sendable {
  private struct State {
    var stats = SimulationStats()
    var remaining: Int
    var requestStartedAt: Duration = .zero
    /// Queue model: the session's show request waits for a `ready`.
    var waitingToShow = false
    /// Queue model: a load is open (each ends in one `ready` or `failed`), so a `ready` is a fill
    /// and not the answer to a load the queue already satisfied.
    var loadOpen = false
    /// Queue model: the last session ended; later events (the zone winding down) are not counted.
    var done = false

    /// The load request the oracle quotes to each of ``SessionDriver/oracleNetworks``, made once
    /// (only the auction id changes per request).
    var oracleRequests: [AdapterLoadRequest] = []
    /// Wins and revenue by network, in the order the networks first won or earned, folded into
    /// ``SimulationStats/wins`` and ``SimulationStats/revenueByNetwork`` when the stats are read.
    /// Performance: comparing a few network ids costs less than hashing one per fill and payment.
    var byNetwork: [(network: NetworkID, wins: Int?, revenueUSD: Double?)] = []

    /// The entry of `network` in ``byNetwork``, made if needed.
    mutating func entry(_ network: NetworkID) -> Int {
      for index in byNetwork.indices where byNetwork[index].network == network { return index }
      byNetwork.append((network, nil, nil))
      return byNetwork.count - 1
    }

    /// The stats, with ``byNetwork`` folded in.
    var folded: SimulationStats {
      var stats = stats
      for (network, wins, revenueUSD) in byNetwork {
        if let wins { stats.wins[network, default: 0] += wins }
        if let revenueUSD { stats.revenueByNetwork[network, default: 0] += revenueUSD }
      }
      return stats
    }

    /// The tenth of the shard the session under way is in, if the first or the last.
    mutating func tenth(of total: Int, record: (inout RevenueAgainstOracle) -> Void) {
      let tenth = max(1, total / 10)
      if stats.requests <= tenth { record(&stats.firstTenth) }
      if stats.requests > total - tenth { record(&stats.lastTenth) }
    }
  }

  private let mediator: Mediator
  private let ad: RewardedAd
  private let zone: ZoneConfig
  private let privacy: PrivacySettings
  /// Each participating simulated network, which the oracle asks for a quote.
  private let oracleNetworks: [any SimulatedNetwork]
  private let state: Locked<State>
  private let presenter = HeadlessPresenter()
  private let keepsFunnel: Bool
  private let keepsEarnings: Bool
  private let requests: Int
  private let queued: Bool
  private let recorder: ShardRecorder?

  init(
    mediator: Mediator, adapters: MadeAdapters, ad: RewardedAd, zone: ZoneConfig, privacy: PrivacySettings,
    requests: Int,
    keepsFunnel: Bool, keepsEarnings: Bool, queued: Bool = false, recorder: ShardRecorder? = nil
  ) {
    self.recorder = recorder
    self.queued = queued
    self.keepsFunnel = keepsFunnel
    self.keepsEarnings = keepsEarnings
    self.requests = requests
    self.mediator = mediator
    self.ad = ad
    self.zone = zone
    self.privacy = privacy
    self.state = Locked(State(remaining: requests))
    let participating: [ZoneConfig.LineItem] =
      switch zone.strategy {
      case .waterfall: zone.lineItems
      case .bidding: zone.lineItems.filter(\.bidding)
      case .hybrid: zone.lineItems
      }
    let oracle = participating.compactMap { item -> (AdapterLoadRequest, any SimulatedNetwork)? in
      guard let network = adapters[item.network] as? any SimulatedNetwork else { return nil }
      let request = AdapterLoadRequest(
        zoneID: zone.id, placementID: item.placementId, ecpm: item.ecpm,
        reward: AdapterSignal.NetworkReward(type: zone.reward.type, amount: Double(zone.reward.amount)),
        auctionID: 0, privacy: privacy)
      return (request, network)
    }
    oracleNetworks = oracle.map(\.1)
    let unquoted = participating.filter { item in
      adapters[item.network].map { !($0 is any SimulatedNetwork) } ?? false
    }
    state.withLock { state in
      state.stats.unquotedNetworks = Set(unquoted.map(\.network))
      state.oracleRequests = oracle.map(\.0)
    }
  }

  var stats: SimulationStats { state.withLock { $0.folded } }

  func startNext() {
    let start = state.withLock { state -> Bool in
      guard state.remaining > 0 else { return false }
      state.remaining -= 1
      state.stats.requests += 1
      state.requestStartedAt = mediator.engineScheduler.now
      state.waitingToShow = queued
      return true
    }
    guard start else { return }
    if queued { requestShow() } else { ad.load() }
  }

  /// Queue model: the session's show request, from the queue at once, else by loading (a load
  /// already under way answers it with its `ready`).
  private func requestShow() {
    do throws(MediationError) {
      try ad.show(from: presenter)
      state.withLock { $0.waitingToShow = false }
    } catch {
      switch error.code {
      case .notReady, .expired, .alreadyUsed:
        ad.load()
      default:
        state.withLock { state in
          state.waitingToShow = false
          if error.code == .capped { state.stats.capped += 1 } else { state.stats.showFailures += 1 }
        }
        endSession()
      }
    }
  }

  private func endSession() {
    let last = state.withLock { state -> Bool in
      state.waitingToShow = false
      guard queued, state.remaining == 0 else { return false }
      state.done = true
      return true
    }
    if last {
      // The zone stops reloading, so that the shard's clock runs dry once its ads expire.
      var zone = zone
      zone.autoReload = false
      try? mediator.apply(MediationConfig(zones: [zone]))
      return
    }
    mediator.engineScheduler.schedule(after: Simulator.sessionGap) { [self] in startNext() }
  }

  func handle(_ event: Mediator.ZoneEvent) {
    recorder?.record(event)
    if queued { handleQueued(event) } else { handleLoadPerSession(event) }
  }

  /// The queue model's events: fills are counted per load, a `ready` answers a waiting show
  /// request, a failed load ends a waiting session and is otherwise the zone's to retry.
  private func handleQueued(_ event: Mediator.ZoneEvent) {
    if state.withLock({ $0.done }) { return }
    switch event.event {
    case .loading:
      state.withLock { $0.loadOpen = true }
      recordOracle()
    case .ready(let info):
      // The load's own time: a fill into the queue is not tied to a session's request.
      let waiting = state.withLock { state -> Bool in
        if state.loadOpen { recordFill(info, latency: info.latency, &state) }
        state.loadOpen = false
        return state.waitingToShow
      }
      if waiting { requestShow() }
    case .failed(let error):
      let waiting = state.withLock { state -> Bool in
        state.loadOpen = false
        if keepsFunnel { state.stats.funnel.record(error.waterfall) }
        return state.waitingToShow
      }
      if waiting { endSession() }
    default:
      handleShowEvent(event)
    }
  }

  private func recordOracle() {
    let auctionID = mediator.latestAuctionID
    state.withLock { state in
      let oracle = oracleECPM(auctionID: auctionID, requests: &state.oracleRequests)
      state.stats.oracleRevenueUSD += oracle / 1000
      state.tenth(of: requests) { $0.oracleRevenueUSD += oracle / 1000 }
    }
  }

  private func recordFill(_ info: AdInfo, latency: Duration, _ state: inout State) {
    state.stats.fills += 1
    state.stats.readyLatency.record(latency)
    let entry = state.entry(info.network)
    state.byNetwork[entry].wins = (state.byNetwork[entry].wins ?? 0) + 1
    if keepsFunnel { state.stats.funnel.record(info.responses) }
    if keepsEarnings { state.stats.lineItems.recordFill(info) }
  }

  private func handleLoadPerSession(_ event: Mediator.ZoneEvent) {
    switch event.event {
    case .loading:
      recordOracle()
    case .ready(let info):
      state.withLock { state in recordFill(info, latency: event.time - state.requestStartedAt, &state) }
      do throws(MediationError) {
        try ad.show(from: presenter)
      } catch {
        state.withLock { state in
          if error.code == .capped { state.stats.capped += 1 } else { state.stats.showFailures += 1 }
        }
        endSession()
      }
    case .failed(let error):
      if keepsFunnel { state.withLock { $0.stats.funnel.record(error.waterfall) } }
      endSession()
    default:
      handleShowEvent(event)
    }
  }

  /// A show's events, the same in both models.
  private func handleShowEvent(_ event: Mediator.ZoneEvent) {
    switch event.event {
    case .shown(let info):
      state.withLock { state in
        state.stats.shows += 1
        state.stats.showLatency.record(event.time - state.requestStartedAt)
        state.stats.shownECPMSum += info.ecpm
        if keepsEarnings { state.stats.lineItems.recordImpression(info) }
      }
    case .revenuePaid(let revenue):
      state.withLock { state in
        state.stats.revenueUSD += revenue.usd
        let entry = state.entry(revenue.network)
        state.byNetwork[entry].revenueUSD = (state.byNetwork[entry].revenueUSD ?? 0) + revenue.usd
        state.tenth(of: requests) { $0.revenueUSD += revenue.usd }
        if keepsEarnings { state.stats.lineItems.recordRevenue(revenue) }
      }
    case .rewarded:
      state.withLock { $0.stats.rewards += 1 }
    case .skipped:
      state.withLock { $0.stats.skips += 1 }
      endSession()
    case .closed:
      endSession()
    case .showFailed:
      state.withLock { $0.stats.showFailures += 1 }
      endSession()
    case .loading, .ready, .failed, .clicked, .expired, .diagnostic:
      break
    }
  }

  /// The best price any participating network would have filled at in auction `auctionID`;
  /// `requests` are the networks' requests, set to that auction in place.
  private func oracleECPM(auctionID: UInt64, requests: inout [AdapterLoadRequest]) -> Double {
    var best = 0.0
    // Performance: each request is quoted where it lies; copying it (strings, privacy, a closure)
    // per network and auction cost more than some quotes.
    requests.withUnsafeMutableBufferPointer { requests in
      for index in requests.indices {
        requests[index].auctionID = auctionID
        let quote = oracleNetworks[index].quote(requests[index])
        if quote.fills { best = max(best, quote.ecpm) }
      }
    }
    return best
  }
}
