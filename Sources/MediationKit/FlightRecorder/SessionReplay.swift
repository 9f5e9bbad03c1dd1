/// Replays one recorded session on the current ``ZoneMachine``, on virtual time: the zone is
/// restored from the session's checkpoint; the app's calls and the configuration changes come at
/// their recorded times; the networks answer as they answered in the recording, each answer after
/// the same delay from the replay's own request; a show's signals come at the same offsets from
/// the replay's own show.
///
/// Effects are performed as ``ZoneController`` performs them: at once, feeding the zone's own
/// follow-ups (an auction id, a request's handle, a timer's arming, its own reload), except after a
/// withdrawal or a configuration change, whose effects the controller performs in a later
/// executor action: the replay performs them where the recording shows their first follow-up. A
/// timer fires when the recording says it fired, if the recording armed it at the same time, else
/// at its deadline.
///
/// So on the engine that made the recording, the replay feeds the very same inputs at the very
/// same times and publishes the very same events; on a changed one it goes its own way, and says
/// where: a request the recording has no answer for is never answered (its timeout decides), and an
/// answer to a request the replay never sent is left out.
struct SessionReplay {
  /// An input fed to the replayed machine, and what it published.
  struct Step {
    var time: Duration
    var input: RecordedInput
    var published: [RecordedEvent]
  }

  /// A request, as both the recording and the replay name it.
  struct RequestKey: Hashable {
    var load: Int
    var network: String
    var placementID: String
    var kind: String
  }

  /// What the replay does next, at a time; equal times go by `order` (a recorded step's sequence
  /// number, then the order entries were made in).
  private struct Entry {
    enum Action {
      /// An input of the app or of a configuration change, as recorded.
      case input(step: Int)
      /// A network's answer (or withdrawal, or start's end) to the replay's request.
      case answer(step: Int, to: RequestID)
      case signal(step: Int, ad: Int)
      case timer(TimerID)
      /// Effects the controller performs in a later executor action.
      case effects([ZoneEffect])
    }

    var time: Duration
    var order: (Int, Int)
    var action: Action
  }

  private let steps: [FlightRecording.Step]
  private let networks: [NetworkID: any RewardedAdapter]
  private let infos: [NetworkID: AdapterInfo]
  private let seed: UInt64
  private var machine: ZoneMachine
  private var ads: [Int: ReplayAd] = [:]
  private var queue: [Entry] = []
  private var madeEntries = 0
  /// The recorded steps fed, or matched with a follow-up of the replay.
  private var used: Set<Int> = []
  /// The answers already scheduled, by recorded step.
  private var scheduledAnswers: Set<Int> = []
  private var requests: [RequestKey: RequestID] = [:]
  private var shows = 0
  private var networkConditions: RecordedAvailability
  private var privacy: RecordedPrivacy
  private var lastAuctionID: UInt64
  /// The last load before the session (its checkpoint's): answers to it go as recorded.
  private let firstLoad: Int
  private let end: Duration
  /// Whether the recorded zone came to rest after the session's last input.
  private let endsAtRest: Bool

  private(set) var replayed: [Step] = []
  private(set) var notes: [String] = []

  init(session: FlightRecording.Session, header: FlightRecording.Header) {
    steps = session.steps
    endsAtRest = session.endsAtRest
    seed = header.seed
    end = steps.last?.time ?? .zero
    var infos: [NetworkID: AdapterInfo] = [:]
    let setups = [session.checkpoint.setup] + steps.compactMap(\.input.change?.setup)
    for network in header.networks + setups.flatMap(\.networks) {
      infos[NetworkID(network.id)] = ReplayNetwork.info(network)
    }
    self.infos = infos
    networks = infos.mapValues { ReplayNetwork(info: $0) }
    networkConditions = RecordedAvailability(NetworkAvailability(registered: Set(infos.keys)))
    privacy = header.privacy
    lastAuctionID = steps.compactMap(\.input.auctionID).max() ?? 0
    firstLoad = session.checkpoint.lastLoadID
    var made: [Int: ReplayAd] = [:]
    machine = ZoneMachine(
      restoring: session.checkpoint,
      setup: Self.setup(session.checkpoint.setup, networks: networks, infos: infos, seed: seed),
      timings: header.timings
    ) { recorded in
      if let ad = made[recorded.token] { return ad }
      let ad = ReplayAd()
      made[recorded.token] = ad
      return ad
    }
    ads = made
    let endedShowAds = Set(session.checkpoint.endedShows.map(\.ad.load))
    for (index, step) in steps.enumerated() {
      let input = step.input
      switch input.type {
      case .signal:
        // A late signal of a show that ended before the session goes to that show, as recorded.
        if let ad = input.load, endedShowAds.contains(ad) {
          schedule(.signal(step: index, ad: ad), at: step.time, order: step.seq)
        }
      case .show, .apply: schedule(.input(step: index), at: step.time, order: step.seq)
      case .load where input.requested == true: schedule(.input(step: index), at: step.time, order: step.seq)
      case .startEnded, .bidAnswered, .loaded, .loadFailed, .withdrawn:
        // An answer to a load from before the session goes to that load's request, as recorded.
        if let load = input.load, load <= firstLoad, let id = input.requestID {
          schedule(.answer(step: index, to: id), at: step.time, order: step.seq)
          scheduledAnswers.insert(index)
        }
      default: break
      }
    }
    for armed in session.checkpoint.timers {
      guard let id = armed.timer.id else { continue }
      scheduleFiring(of: id, armedAt: nil, due: .nanoseconds(armed.dueNS))
    }
  }

  /// Runs the session to its recorded end.
  mutating func run() {
    while let next = queue.indices.min(by: { Self.precedes(queue[$0], queue[$1]) }) {
      let entry = queue.remove(at: next)
      // Past the recorded end, the replay goes on only while the zone is busy, in a session that
      // came to rest in the recording (a changed engine may take longer to); a recording that ends
      // mid-session ends the replay there too.
      guard entry.time <= end || (endsAtRest && !machine.isAtRest) else { break }
      perform(entry)
    }
    let answered = Set(
      steps.filter { Self.answers.contains($0.input.type) }.compactMap { Self.key($0.input) })
    for (key, _) in requests.sorted(by: { ($0.value.load, $0.value.entry) < ($1.value.load, $1.value.entry) })
    where !answered.contains(key) {
      notes.append(
        "load \(key.load) asked \(key.network)/\(key.placementID) (\(key.kind)): the recording has no answer; "
          + "treated as a timeout")
    }
    for index in steps.indices
    where Self.answers.contains(steps[index].input.type) && !scheduledAnswers.contains(index) {
      notes.append(
        "the recording's \(steps[index].input.type.rawValue) for \(Self.describe(steps[index].input)) answers no request of the replay"
      )
    }
  }

  private static let answers: Set<RecordedInput.Kind> = [
    .startEnded, .bidAnswered, .loaded, .loadFailed, .withdrawn,
  ]

  private static func precedes(_ a: Entry, _ b: Entry) -> Bool {
    a.time != b.time ? a.time < b.time : a.order < b.order
  }

  private mutating func schedule(_ action: Entry.Action, at time: Duration, order: Int) {
    madeEntries += 1
    queue.append(Entry(time: time, order: (order, madeEntries), action: action))
  }

  /// The order an entry made now takes among those of its time: after every recorded step fed so far.
  private var nextOrder: Int { (used.max().map { steps[$0].seq } ?? 0) }

  // MARK: Entries

  private mutating func perform(_ entry: Entry) {
    switch entry.action {
    case .input(let index):
      used.insert(index)
      let record = steps[index].input
      switch record.type {
      case .load:
        take(record)
        feed(
          .load(requested: true, networks: networkConditions.availability, privacy: privacy.settings), record,
          entry.time)
      case .show:
        feed(
          .show(
            customData: record.hasCustomData == true ? "" : nil,
            screen: record.screenAcquired == false ? .taken(by: record.screenHolder) : .acquired), record,
          entry.time)
      case .apply:
        let setup = { Self.setup($0, networks: networks, infos: infos, seed: seed) }
        if let input = record.change?.input(setup: setup) { feed(input, record, entry.time) }
      default: break
      }
    case .answer(let index, let id):
      used.insert(index)
      let record = steps[index].input
      if let input = record.answer(to: id, ad: { ad($0) }) { feed(input, record, entry.time) }
    case .signal(let index, let ad):
      used.insert(index)
      guard let signal = steps[index].input.signal?.signal else { return }
      var record = steps[index].input
      record.load = ad
      feed(.signal(ad: ad, signal), record, entry.time)
    case .timer(let id):
      // A timer the zone disarmed meanwhile (the replay does not follow cancellations) is left out.
      guard machine.isCurrent(id) || recordedFiring(of: id) != nil else { return }
      var record = RecordedInput(type: .timerFired)
      record.timer = RecordedTimer(id)
      if let index = recordedFiring(of: id) { used.insert(index) }
      feed(.timerFired(id), record, entry.time)
    case .effects(let effects):
      perform(effects, now: entry.time)
    }
  }

  /// Keeps the network conditions and privacy a recorded load started with.
  private mutating func take(_ record: RecordedInput) {
    if let networks = record.networks { networkConditions = networks }
    if let privacy = record.privacy { self.privacy = privacy }
  }

  private mutating func feed(_ input: ZoneInput, _ record: RecordedInput, _ now: Duration) {
    let effects = machine.handle(input, now: now)
    replayed.append(Step(time: now, input: record, published: RecordedEvent.published(by: effects)))
    switch input {
    case .withdrawn, .apply(.configuration), .apply(.removed):
      // The controller performs these effects in a later executor action: where the recording's
      // first follow-up of them is, or at once after this input.
      if let first = effects.compactMap({ followUp(of: $0) }).first {
        schedule(.effects(effects), at: steps[first].time, order: steps[first].seq)
        queue[queue.count - 1].order = (steps[first].seq, -1)
      } else {
        schedule(.effects(effects), at: now, order: nextOrder)
      }
    default:
      perform(effects, now: now)
    }
  }

  // MARK: Effects

  private mutating func perform(_ effects: [ZoneEffect], now: Duration) {
    for effect in effects {
      switch effect {
      case .startAuction(let load):
        let recorded = unused { $0.type == .auctionStarted && $0.load == load }
        if let recorded { used.insert(recorded) }
        let auctionID =
          recorded.flatMap { steps[$0].input.auctionID }
          ?? {
            lastAuctionID &+= 1; return lastAuctionID
          }()
        var record = recorded.map { steps[$0].input } ?? RecordedInput(type: .auctionStarted)
        (record.load, record.auctionID) = (load, auctionID)
        feed(.auctionStarted(load: load, auctionID: auctionID), record, now)
      case .send(let request):
        send(request, now: now)
      case .arm(let id, let delay):
        let recorded = unused { $0.type == .timerArmed && $0.timer == RecordedTimer(id) }
        let armedHere = recorded.map { steps[$0].time == now } ?? false
        if let recorded { used.insert(recorded) }
        scheduleFiring(of: id, armedAt: armedHere ? now : nil, due: now + delay)
        var record = RecordedInput(type: .timerArmed)
        record.timer = RecordedTimer(id)
        feed(.timerArmed(id, Handle(.none)), record, now)
      case .reload:
        let recorded = unused { $0.type == .load && $0.requested == false }
        if let recorded {
          used.insert(recorded)
          take(steps[recorded].input)
        }
        var record = RecordedInput(type: .load)
        record.requested = false
        feed(
          .load(requested: false, networks: networkConditions.availability, privacy: privacy.settings),
          record, now)
      case .present(let ready):
        present(ready, now: now)
      default:
        break
      }
    }
  }

  /// The replay's request: its immediate follow-up (sent, waiting for its network's start, or
  /// refused), as the recording's request to the same network, placement and kind had it, and the
  /// network's answers after the recorded delays.
  private mutating func send(_ request: ZoneEffect.Request, now: Duration) {
    let key = RequestKey(
      load: request.id.load, network: request.network.rawValue, placementID: request.request.placementID,
      kind: request.kind.rawValue)
    requests[key] = request.id
    let kinds: Set<RecordedInput.Kind> = request.admit ? [.sent, .awaitingStart, .notStarted] : [.sent]
    let recorded = unused { kinds.contains($0.type) && Self.key($0) == key }
    var record = recorded.map { steps[$0].input } ?? RecordedInput(type: .sent)
    (record.load, record.entry) = (request.id.load, request.id.entry)
    (record.network, record.placementID, record.requestKind) = (key.network, key.placementID, key.kind)
    guard let recorded else {
      return feed(.sent(request.id, Handle(.none)), record, now)
    }
    used.insert(recorded)
    // The answers that follow this request in the recording, up to its next request step.
    let since = steps[recorded].time
    var index = recorded + 1
    while index < steps.count {
      let input = steps[index].input
      if Self.key(input) == key {
        if [.sent, .awaitingStart, .notStarted].contains(input.type) { break }
        if Self.answers.contains(input.type), !scheduledAnswers.contains(index) {
          scheduledAnswers.insert(index)
          schedule(
            .answer(step: index, to: request.id), at: now + (steps[index].time - since),
            order: steps[index].seq)
        }
      }
      index += 1
    }
    switch record.type {
    case .awaitingStart: feed(.awaitingStart(request.id, Handle(.none)), record, now)
    case .notStarted: feed(.notStarted(request.id, reason: record.reason ?? ""), record, now)
    default: feed(.sent(request.id, Handle(.none)), record, now)
    }
  }

  /// The replay's `shows`-th show: the recorded show's signals, at their offsets from it.
  private mutating func present(_ ready: ReadyAd, now: Duration) {
    shows += 1
    let recordedShows = steps.indices.filter { steps[$0].input.type == .show && steps[$0].input.load != nil }
    guard shows <= recordedShows.count else { return }
    let show = recordedShows[shows - 1]
    let ad = steps[show].input.load
    for index in steps.indices.dropFirst(show + 1)
    where steps[index].input.type == .signal && steps[index].input.load == ad {
      schedule(
        .signal(step: index, ad: ready.loadID), at: now + (steps[index].time - steps[show].time),
        order: steps[index].seq)
    }
  }

  /// Schedules timer `id`'s firing: when the recording fired it, if the recording armed it at the
  /// same time (`armedAt`, or a restored timer), else at `due` (within the session).
  private mutating func scheduleFiring(of id: TimerID, armedAt: Duration?, due: Duration) {
    let recorded = RecordedTimer(id)
    if armedAt != nil
      || !steps.contains(where: { $0.input.type == .timerArmed && $0.input.timer == recorded }),
      let fired = unused({ $0.type == .timerFired && $0.timer == recorded })
    {
      schedule(.timer(id), at: steps[fired].time, order: steps[fired].seq)
    } else {
      schedule(.timer(id), at: due, order: Int.max)
    }
  }

  // MARK: Recorded values

  /// The recorded firing of `id` not fed yet, if the recording holds one.
  private func recordedFiring(of id: TimerID) -> Int? {
    unused { $0.type == .timerFired && $0.timer == RecordedTimer(id) }
  }

  /// The first recorded step not used yet whose input matches.
  private func unused(_ matches: (RecordedInput) -> Bool) -> Int? {
    steps.indices.first { !used.contains($0) && matches(steps[$0].input) }
  }

  /// The recorded step of the first follow-up `effect` asks for, if the recording holds one.
  private func followUp(of effect: ZoneEffect) -> Int? {
    switch effect {
    case .startAuction(let load): unused { $0.type == .auctionStarted && $0.load == load }
    case .arm(let id, _): unused { $0.type == .timerArmed && $0.timer == RecordedTimer(id) }
    case .reload: unused { $0.type == .load && $0.requested == false }
    case .send(let request):
      unused {
        [.sent, .awaitingStart, .notStarted].contains($0.type) && $0.load == request.id.load
          && $0.network == request.network.rawValue
      }
    default: nil
    }
  }

  /// The ad object of `token`: one per token, made when first asked for.
  private mutating func ad(_ token: Int) -> ReplayAd {
    if let ad = ads[token] { return ad }
    let ad = ReplayAd()
    ads[token] = ad
    return ad
  }
}
