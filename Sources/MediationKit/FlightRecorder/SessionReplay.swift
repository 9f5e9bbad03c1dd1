/// Replays one recorded session on the current ``ZoneMachine``, on virtual time: the zone is
/// restored from the session's checkpoint, and the recorded inputs are fed in their order at
/// their times, with the networks answering exactly as they answered in the recording.
///
/// The recording holds every input, the zone's own follow-ups too (an auction id, a request's
/// handle, a timer's arming, its own reload). Each follow-up is fed only when the replayed
/// machine asked for it; one the machine asks for and the recording lacks (a changed engine)
/// is made here at once, so the current engine runs on. So on the engine that made the
/// recording, the replay feeds the very same inputs and publishes the very same events; on a
/// changed one it goes its own way, and says where:
/// - a request the recording has no answer for is sent and never answered (its timeout decides),
///   with a note;
/// - an answer to a request the replayed zone never sent is left out, with a note;
/// - a network's answers and show signals go to the replayed zone's request to the same
///   network, placement and kind, and to the ad the same show put on screen;
/// - a timer the machine arms and the recording never fires fires at its deadline, if that falls
///   within the session.
struct SessionReplay {
  /// An input fed to the replayed machine, and what it published.
  struct Step {
    var time: Duration
    var input: RecordedInput
    var published: [RecordedEvent]
  }

  /// A request, as both the recording and the replay name it.
  private struct RequestKey: Hashable {
    var load: Int
    var network: String
    var placementID: String
    var kind: String
  }

  private let steps: [FlightRecording.Step]
  private let networks: [NetworkID: any RewardedAdapter]
  private let infos: [NetworkID: AdapterInfo]
  private let seed: UInt64
  private var machine: ZoneMachine
  private var ads: [Int: ReplayAd] = [:]

  private(set) var replayed: [Step] = []
  private(set) var notes: [String] = []

  /// The recorded step being fed (follow-ups the recording holds after it are waited for).
  private var position = 0
  private var expectedAuctions: Set<Int> = []
  private var expectedRequests: [RequestKey: RequestID] = [:]
  private var expectedArmings: Set<TimerID> = []
  private var expectedReloads = 0
  /// The requests the replayed zone sent, by key.
  private var sent: [RequestKey: RequestID] = [:]
  /// Timers the machine armed that the recording never fires, with their deadlines.
  private var ownTimers: [(due: Duration, id: TimerID)] = []
  /// The ad each recorded show put on screen, mapped to the ad the replayed show did.
  private var shownAds: [Int: Int] = [:]
  private var recordedShownAds: [Int] = []
  private var replayedShows = 0
  private var networkConditions: RecordedAvailability
  private var privacy: RecordedPrivacy
  private var lastAuctionID: UInt64
  /// The last load before the session (its checkpoint's).
  private let firstLoad: Int

  init(session: FlightRecording.Session, zoneID: String, header: FlightRecording.Header) {
    steps = session.steps
    seed = header.seed
    var infos: [NetworkID: AdapterInfo] = [:]
    for network in header.networks + session.checkpoint.setup.networks
      + steps.compactMap(\.input.change?.setup)
      .flatMap(\.networks)
    {
      infos[NetworkID(network.id)] = ReplayNetwork.info(network)
    }
    self.infos = infos
    networks = infos.mapValues { ReplayNetwork(info: $0) }
    networkConditions = RecordedAvailability(NetworkAvailability(registered: Set(infos.keys)))
    privacy = header.privacy
    lastAuctionID = steps.compactMap(\.input.auctionID).max() ?? 0
    firstLoad = session.checkpoint.lastLoadID
    recordedShownAds = steps.filter { $0.input.type == .show }.map { $0.input.load ?? 0 }
    let setup = Self.setup(session.checkpoint.setup, networks: networks, infos: infos, seed: seed)
    var made: [Int: ReplayAd] = [:]
    machine = ZoneMachine(restoring: session.checkpoint, setup: setup, timings: header.timings) { recorded in
      if let ad = made[recorded.token] { return ad }
      let ad = ReplayAd()
      made[recorded.token] = ad
      return ad
    }
    ads = made
  }

  /// Feeds the whole session.
  mutating func run() {
    while position < steps.count {
      let step = steps[position]
      fireOwnTimers(until: step.time)
      position += 1
      feedRecorded(step)
    }
    if let end = steps.last?.time { fireOwnTimers(until: end) }
    for (key, _) in sent.sorted(by: { $0.value.load < $1.value.load }) where !answered.contains(key) {
      notes.append(
        "load \(key.load) asked \(key.network)/\(key.placementID) (\(key.kind)): the recording has no "
          + "answer; treated as a timeout")
    }
  }

  /// The requests the recording answered (or refused at once).
  private var answered: Set<RequestKey> {
    Set(
      steps.filter { [.bidAnswered, .loaded, .loadFailed, .notStarted, .startEnded].contains($0.input.type) }
        .compactMap(Self.key))
  }

  // MARK: Recorded inputs

  private mutating func feedRecorded(_ step: FlightRecording.Step) {
    let record = step.input
    let now = step.time
    switch record.type {
    case .load:
      if let networks = record.networks { networkConditions = networks }
      if let privacy = record.privacy { self.privacy = privacy }
      if record.requested == true {
        feed(
          .load(requested: true, networks: networkConditions.availability, privacy: privacy.settings), record,
          now)
      } else if expectedReloads > 0 {
        expectedReloads -= 1
        feed(
          .load(requested: false, networks: networkConditions.availability, privacy: privacy.settings),
          record, now)
      }
    case .auctionStarted:
      guard let load = record.load, expectedAuctions.remove(load) != nil else { return }
      feed(.auctionStarted(load: load, auctionID: record.auctionID ?? 0), record, now)
    case .sent, .awaitingStart, .notStarted:
      guard let key = Self.key(step), let id = expectedRequests.removeValue(forKey: key) else { return }
      let input: ZoneInput =
        switch record.type {
        case .awaitingStart: .awaitingStart(id, Handle(.none))
        case .notStarted: .notStarted(id, reason: record.reason ?? "")
        default: .sent(id, Handle(.none))
        }
      feed(input, record, now)
    case .startEnded, .bidAnswered, .loaded, .loadFailed, .withdrawn:
      // An answer to a load from before the session (a duplicate, a late one, a withdrawal)
      // goes to that load's request, as recorded: the zone's checkpoint knows its past.
      let before = record.load.map { $0 <= firstLoad } ?? false
      guard let id = before ? record.requestID : Self.key(step).flatMap({ sent[$0] }) else {
        notes.append(
          "the recording's \(record.type.rawValue) for \(Self.describe(step)) answers no request of the replay"
        )
        return
      }
      guard let input = answer(record, to: id) else { return }
      feed(input, record, now)
    case .show:
      feed(
        .show(
          customData: record.hasCustomData == true ? "" : nil,
          screen: record.screenAcquired == false ? .taken(by: record.screenHolder) : .acquired), record, now)
    case .signal:
      guard let ad = record.load, let signal = record.signal?.signal else { return }
      feed(.signal(ad: shownAds[ad] ?? ad, signal), record, now)
    case .timerArmed:
      guard let id = record.timer?.id, expectedArmings.remove(id) != nil else { return }
      feed(.timerArmed(id, Handle(.none)), record, now)
    case .timerFired:
      guard let id = record.timer?.id else { return }
      ownTimers.removeAll { $0.id == id }
      feed(.timerFired(id), record, now)
    case .apply:
      guard let change = record.change, let input = apply(change) else { return }
      feed(input, record, now)
    }
  }

  /// The answer `record` gives, addressed to the replay's request `id`.
  private mutating func answer(_ record: RecordedInput, to id: RequestID) -> ZoneInput? {
    switch record.type {
    case .startEnded: return .startEnded(id, refusal: record.reason)
    case .bidAnswered:
      if let bid = record.bid { return .bidAnswered(id, .success(bid.bid)) }
      return record.error.map { .bidAnswered(id, .failure($0.error)) }
    case .loaded:
      guard let recorded = record.ad else { return nil }
      return .loaded(
        id,
        LoadedAd(
          AdapterLoadedAd(
            ad: ad(recorded.token), ecpm: recorded.ecpm,
            lifetime: recorded.lifetimeNS.map(Duration.nanoseconds))))
    case .loadFailed: return record.error.map { .loadFailed(id, $0.error) }
    case .withdrawn: return record.withdrawal.map { .withdrawn(id, $0.withdrawal) }
    default: return nil
    }
  }

  private func apply(_ change: RecordedChange) -> ZoneInput? {
    switch change.type {
    case .removed: return .apply(.removed(reason: change.reason ?? ""))
    case .configuration, .user:
      guard let recorded = change.setup else { return nil }
      let setup = Self.setup(recorded, networks: networks, infos: infos, seed: seed)
      return .apply(change.type == .user ? .user(setup) : .configuration(setup, note: change.note))
    }
  }

  // MARK: The machine, and its effects

  private mutating func feed(_ input: ZoneInput, _ record: RecordedInput, _ now: Duration) {
    let effects = machine.handle(input, now: now)
    var fed = record
    if case .signal(let ad, _) = input { fed.load = ad }
    replayed.append(Step(time: now, input: fed, published: RecordedEvent.published(by: effects)))
    perform(effects, now: now)
  }

  /// Answers the machine's effects: a follow-up the rest of the recording holds is waited for,
  /// one it lacks is made now.
  private mutating func perform(_ effects: [ZoneEffect], now: Duration) {
    for effect in effects {
      switch effect {
      case .startAuction(let load):
        if recordingHolds({ $0.type == .auctionStarted && $0.load == load }) {
          expectedAuctions.insert(load)
        } else {
          lastAuctionID += 1
          var record = RecordedInput(type: .auctionStarted)
          record.load = load
          record.auctionID = lastAuctionID
          feed(.auctionStarted(load: load, auctionID: lastAuctionID), record, now)
        }
      case .send(let request):
        let key = RequestKey(
          load: request.id.load, network: request.network.rawValue, placementID: request.request.placementID,
          kind: "\(request.kind)")
        sent[key] = request.id
        let follows: Set<RecordedInput.Kind> = [.sent, .awaitingStart, .notStarted]
        if recordingHolds({ follows.contains($0.type) && Self.key($0) == key }) {
          expectedRequests[key] = request.id
        } else {
          var record = RecordedInput(type: .sent)
          (record.load, record.entry) = (request.id.load, request.id.entry)
          (record.network, record.placementID, record.requestKind) = (key.network, key.placementID, key.kind)
          feed(.sent(request.id, Handle(.none)), record, now)
        }
      case .arm(let id, let delay):
        let recorded = RecordedTimer(id)
        if !recordingHolds({ $0.type == .timerFired && $0.timer == recorded }) {
          ownTimers.append((now + delay, id))
        }
        if recordingHolds({ $0.type == .timerArmed && $0.timer == recorded }) {
          expectedArmings.insert(id)
        } else {
          var record = RecordedInput(type: .timerArmed)
          record.timer = recorded
          feed(.timerArmed(id, Handle(.none)), record, now)
        }
      case .reload:
        if recordingHolds({ $0.type == .load && $0.requested == false }) {
          expectedReloads += 1
        } else {
          var record = RecordedInput(type: .load)
          record.requested = false
          feed(
            .load(requested: false, networks: networkConditions.availability, privacy: privacy.settings),
            record, now)
        }
      case .present(let ready):
        if replayedShows < recordedShownAds.count { shownAds[recordedShownAds[replayedShows]] = ready.loadID }
        replayedShows += 1
      default:
        break
      }
    }
  }

  /// Fires, in deadline order, the machine's own timers due by `time`.
  private mutating func fireOwnTimers(until time: Duration) {
    while let next = ownTimers.enumerated().min(by: { $0.element.due < $1.element.due }),
      next.element.due <= time
    {
      ownTimers.remove(at: next.offset)
      var record = RecordedInput(type: .timerFired)
      record.timer = RecordedTimer(next.element.id)
      feed(.timerFired(next.element.id), record, next.element.due)
    }
  }

  /// Whether a recorded step after the one being fed matches.
  private func recordingHolds(_ matches: (RecordedInput) -> Bool) -> Bool {
    steps[position...].contains { matches($0.input) }
  }

  /// The ad object of `token`: one per token, made when first asked for.
  private mutating func ad(_ token: Int) -> ReplayAd {
    if let ad = ads[token] { return ad }
    let ad = ReplayAd()
    ads[token] = ad
    return ad
  }

  private static func key(_ step: FlightRecording.Step) -> RequestKey? { key(step.input) }

  private static func key(_ record: RecordedInput) -> RequestKey? {
    guard let load = record.load, let network = record.network, let placementID = record.placementID,
      let kind = record.requestKind
    else { return nil }
    return RequestKey(load: load, network: network, placementID: placementID, kind: kind)
  }

  private static func describe(_ step: FlightRecording.Step) -> String {
    guard let key = key(step) else { return "load \(step.input.load ?? 0)" }
    return "load \(key.load)'s \(key.kind) request to \(key.network)/\(key.placementID)"
  }

  private static func setup(
    _ recorded: RecordedSetup, networks: [NetworkID: any RewardedAdapter], infos: [NetworkID: AdapterInfo],
    seed: UInt64
  ) -> ZoneSetup {
    let registered = Set(recorded.networks.map { NetworkID($0.id) })
    return ZoneSetup(
      variant: recorded.zone, of: recorded.base, userID: nil, experimentArms: recorded.experimentArms,
      version: recorded.configurationVersion,
      disabledNetworks: Set(recorded.disabledNetworks.map { NetworkID($0) }),
      adapters: networks.filter { registered.contains($0.key) },
      infos: infos.filter { registered.contains($0.key) },
      seed: seed)
  }
}

/// A recorded network in a replay: it declares what the recorded adapter declared, and is never
/// called (the replay answers for it).
final class ReplayNetwork: RewardedAdapter {
  let info: AdapterInfo

  init(info: AdapterInfo) { self.info = info }

  static func info(_ recorded: RecordedNetwork) -> AdapterInfo {
    AdapterInfo(
      id: NetworkID(recorded.id), displayName: recorded.id, adapterVersion: recorded.adapterVersion,
      sdkVersion: recorded.sdkVersion, adapterAPIVersion: AdapterCompatibility.coreAPIVersion,
      supportedSDKVersions: SemanticVersion(0, 0, 0)..<SemanticVersion(Int.max, 0, 0),
      capabilities: Set(recorded.capabilities))
  }

  func start(
    _ request: AdapterStartRequest, completion: @escaping @Sendable (Result<Void, AdapterError>) -> Void
  ) {}

  func load(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void
  ) -> Cancellable { .none }
}

/// A recorded ad in a replay: one object per recorded token, so an ad reported twice is the same.
final class ReplayAd: AdapterAd {
  func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {}
  func discard() {}
}
