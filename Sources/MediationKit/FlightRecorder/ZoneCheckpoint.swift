/// A zone at rest, as plain values: what a replay restores before it feeds a session's inputs, so
/// every session of a recording replays on its own, even when the sessions before it left the
/// recorder's ring.
///
/// A zone is at rest when no load is under way and no show is on screen
/// (``ZoneMachine/isAtRest``). What it holds then: its ready ads, the ended shows waiting out their
/// late-signal windows, the counters behind its backoffs and ids, the times of its recent shows
/// (frequency caps), the learned eCPMs, and the expiry, retry and late-signal timers.
struct ZoneCheckpoint: Codable, Sendable, Equatable {
  struct ReadyAd: Codable, Sendable, Equatable {
    var load: Int
    var entry: Int
    var info: RecordedAdInfo
    var ad: RecordedAd
    var expiresAtNS: Int64
    var networkReportsRevenue: Bool
  }

  /// An ended show waiting out its late-signal window: its late signals become diagnostics.
  struct EndedShow: Codable, Sendable, Equatable {
    var show: Int
    var ad: ReadyAd
    var untilNS: Int64
    var didReward: Bool
    var didReportRevenue: Bool
    var graceWindowNS: Int64
    var learningEpoch: Int
  }

  struct ArmedTimer: Codable, Sendable, Equatable {
    var timer: RecordedTimer
    var dueNS: Int64
  }

  var setup: RecordedSetup
  var lastLoadID: Int
  var lastShowID: Int
  var lastTimerGeneration: Int
  var consecutiveFailures: Int
  var consecutiveWithdrawals: Int
  var learningEpoch: Int
  var removal: String?
  var showTimesNS: [Int64]
  var queue: [ReadyAd]
  var endedShows: [EndedShow]
  /// What became of the ad that left the queue last (``AdQueue/Empty``), as its name.
  var lastGone: String
  var lastGoneWithdrawal: RecordedWithdrawal?
  var timers: [ArmedTimer]
  var acceptedAdToken: Int?
  var learned: LearnedECPMs.Snapshot?
}

/// An ``AdInfo``, as a checkpoint keeps a queued ad's.
struct RecordedAdInfo: Codable, Sendable, Equatable {
  struct Response: Codable, Sendable, Equatable {
    var network: String
    var placementID: String
    var priority: Int
    var ecpm: Double
    var state: AdInfo.NetworkResponse.State
    var latencyNS: Int64?
    var bid: Double?
    var error: String?
  }

  var network: String
  var placementID: String
  var ecpm: Double
  var precision: AdapterSignal.RevenuePrecision
  var strategy: ZoneConfig.AuctionStrategy
  var responses: [Response]
  var latencyNS: Int64
  var experimentArms: [String: String]
  var auctionID: UInt64

  init(_ info: AdInfo) {
    network = info.network.rawValue
    placementID = info.placementID
    ecpm = info.ecpm
    precision = info.precision
    strategy = info.strategy
    responses = info.responses.map {
      Response(
        network: $0.network.rawValue, placementID: $0.placementID, priority: $0.priority, ecpm: $0.ecpm,
        state: $0.state, latencyNS: $0.latency?.nanoseconds, bid: $0.bid, error: $0.error.map(recordedText))
    }
    latencyNS = info.latency.nanoseconds
    experimentArms = info.experimentArms
    auctionID = info.auctionID
  }

  func info(zoneID: String) -> AdInfo {
    AdInfo(
      zoneID: zoneID, network: NetworkID(network), placementID: placementID, ecpm: ecpm,
      responses: responses.map {
        AdInfo.NetworkResponse(
          of: NetworkID($0.network), placementID: $0.placementID, priority: $0.priority, ecpm: $0.ecpm,
          state: $0.state, latency: $0.latencyNS.map(Duration.nanoseconds), bid: $0.bid, error: $0.error)
      },
      latency: .nanoseconds(latencyNS), precision: precision, strategy: strategy,
      experimentArms: experimentArms,
      auctionID: auctionID)
  }
}

extension ZoneMachine {
  /// How many ended shows in their late-signal windows a checkpoint keeps, the latest: a rewarded
  /// ad takes tens of seconds, so more than a few never end within one window (60 s by default),
  /// except in a benchmark; a late signal of an older one replays as ignored.
  static let checkpointedEndedShows = 8

  /// Whether the zone is at rest: no load under way, no show on screen (ended shows may still wait
  /// out their late-signal windows).
  var isAtRest: Bool { load == nil && session == nil }

  /// The zone as a checkpoint, when it is at rest (else `nil`): `setup` is the record of its
  /// current setup, `adToken` names each queued ad's object, `due` each armed timer's deadline.
  func checkpoint(setup: RecordedSetup, adToken: (any AdapterAd) -> Int, due: (TimerID) -> Duration?)
    -> ZoneCheckpoint?
  {
    guard isAtRest else { return nil }
    var lastGoneName = "not_loaded"
    var lastGoneWithdrawal: RecordedWithdrawal?
    switch queue.lastGone {
    case .notLoaded: break
    case .shown: lastGoneName = "shown"
    case .expired: lastGoneName = "expired"
    case .withdrawn(let withdrawal):
      lastGoneName = "withdrawn"
      lastGoneWithdrawal = RecordedWithdrawal(withdrawal)
    }
    return ZoneCheckpoint(
      setup: setup, lastLoadID: lastLoadID, lastShowID: lastShowID,
      lastTimerGeneration: timerGeneration, consecutiveFailures: consecutiveFailures,
      consecutiveWithdrawals: consecutiveWithdrawals, learningEpoch: learningEpoch, removal: removal,
      showTimesNS: showTimes.map(\.nanoseconds),
      queue: queue.ads.map { ZoneCheckpoint.ReadyAd($0, adToken: adToken) },
      endedShows: lingering.suffix(Self.checkpointedEndedShows).map { ended in
        ZoneCheckpoint.EndedShow(
          show: ended.session.id, ad: ZoneCheckpoint.ReadyAd(ended.session.ready, adToken: adToken),
          untilNS: ended.until.nanoseconds, didReward: ended.session.machine.didReward,
          didReportRevenue: ended.session.machine.didReportRevenue,
          graceWindowNS: ended.session.machine.graceWindow.nanoseconds,
          learningEpoch: ended.session.learningEpoch)
      },
      lastGone: lastGoneName, lastGoneWithdrawal: lastGoneWithdrawal,
      timers: armedTimers.compactMap { id in
        due(id).map { ZoneCheckpoint.ArmedTimer(timer: RecordedTimer(id), dueNS: $0.nanoseconds) }
      },
      acceptedAdToken: acceptedAd.map(adToken), learned: learned?.snapshot)
  }

  /// A zone restored from `checkpoint` on `setup`: its ready ads made of `ad(token)` objects, its
  /// timers armed again with their generations (each due at its recorded deadline, which the
  /// replay keeps).
  init(
    restoring checkpoint: ZoneCheckpoint, setup: ZoneSetup, timings: Timings,
    ad: (RecordedAd) -> any AdapterAd
  ) {
    self.init(setup: setup, timings: timings)
    lastLoadID = checkpoint.lastLoadID
    lastShowID = checkpoint.lastShowID
    consecutiveFailures = checkpoint.consecutiveFailures
    consecutiveWithdrawals = checkpoint.consecutiveWithdrawals
    learningEpoch = checkpoint.learningEpoch
    removal = checkpoint.removal
    showTimes = checkpoint.showTimesNS.map(Duration.nanoseconds)
    for recorded in checkpoint.queue { queue.append(recorded.ready(zoneID: setup.zone.id, ad: ad)) }
    for ended in checkpoint.endedShows {
      let ready = ended.ad.ready(zoneID: setup.zone.id, ad: ad)
      let machine = ShowStateMachine.ended(
        graceWindow: .nanoseconds(ended.graceWindowNS), revenue: ready.revenue, didReward: ended.didReward,
        didReportRevenue: ended.didReportRevenue)
      lingering.append(
        Lingering(
          until: .nanoseconds(ended.untilNS),
          session: ShowSession(
            id: ended.show, ready: ready, machine: machine, setup: setup, learningEpoch: ended.learningEpoch))
      )
    }
    switch checkpoint.lastGone {
    case "shown": queue.lost(.shown)
    case "expired": queue.lost(.expired)
    case "withdrawn":
      queue.lost(
        .withdrawn(checkpoint.lastGoneWithdrawal?.withdrawal ?? AdapterWithdrawal(.invalidated, message: "")))
    default: break
    }
    if let token = checkpoint.acceptedAdToken { acceptedAd = ad(RecordedAd(token: token)) }
    if let snapshot = checkpoint.learned, learned != nil { learned?.restore(snapshot) }
    restoreTimers(checkpoint.timers.compactMap(\.timer.id), lastGeneration: checkpoint.lastTimerGeneration)
  }
}

extension ZoneCheckpoint.ReadyAd {
  init(_ ready: MediationKit.ReadyAd, adToken: (any AdapterAd) -> Int) {
    self.init(
      load: ready.request.load, entry: ready.request.entry, info: RecordedAdInfo(ready.info),
      ad: RecordedAd(
        token: adToken(ready.loaded.ad), ecpm: ready.loaded.ecpm,
        lifetimeNS: ready.loaded.lifetime?.nanoseconds),
      expiresAtNS: ready.expiresAt.nanoseconds, networkReportsRevenue: ready.revenue.networkReportsRevenue)
  }

  /// The ready ad, its object made by `ad`.
  func ready(zoneID: String, ad: (RecordedAd) -> any AdapterAd) -> MediationKit.ReadyAd {
    MediationKit.ReadyAd(
      info: info.info(zoneID: zoneID),
      loaded: AdapterLoadedAd(
        ad: ad(self.ad), ecpm: self.ad.ecpm, lifetime: self.ad.lifetimeNS.map(Duration.nanoseconds)),
      expiresAt: .nanoseconds(expiresAtNS), networkReportsRevenue: networkReportsRevenue,
      request: RequestID(load: load, entry: entry))
  }
}
