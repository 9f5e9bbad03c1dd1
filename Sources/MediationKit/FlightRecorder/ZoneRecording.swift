/// One zone's flight recording as it grows: every input the zone's machine took, with its time
/// and the events it published, cut into sessions that each begin with a checkpoint. A pure
/// value; ``ZoneController`` keeps it with the machine, under the zone's one lock, and records
/// each input in the same lock round that handles it.
///
/// **Sessions.** A session begins when an input from outside the zone's own chain (the app, a
/// network, a timer, a change; ``RecordedInput/beginsSession``) arrives while the zone is at rest
/// (``ZoneMachine/isAtRest``), with a checkpoint of the zone as it was; the inputs the zone then
/// feeds itself join that session. So a session is, typically, a show and the reload after it, or
/// a load; and each one replays on its own from its checkpoint.
///
/// **Bounds.** The recorder keeps the last ``MediatorOptions/FlightRecorder/maxSessions``
/// sessions and at most ``MediatorOptions/FlightRecorder/maxInputs`` inputs: the oldest sessions
/// go first. A session with an anomaly (``RecordedEvent/anomaly(in:)``) that leaves the ring is
/// kept aside, up to ``MediatorOptions/FlightRecorder/keptAnomalies`` of them. A session that alone
/// outgrows the input bound is dropped, and recording resumes at the next rest. Every text from
/// outside is capped (``recordedText(_:)``), so an input's record stays under about 1 KB.
struct ZoneRecording: Sendable {
  /// One input as recorded.
  struct Step: Sendable, Equatable {
    /// The input's number in the zone's recording, from 1; sessions dropped from the ring leave
    /// gaps.
    var sequence: Int
    var time: Duration
    var input: RecordedInput
    var published: [RecordedEvent]
  }

  struct Session: Sendable, Equatable {
    var number: Int
    var checkpoint: ZoneCheckpoint
    var steps: [Step] = []
    /// Why the session is worth keeping, in the order the anomalies came.
    var anomalies: [String] = []
    /// Whether the zone was at rest after the session's last input (else the recording ends with
    /// the session under way).
    var endsAtRest = false
  }

  let limits: MediatorOptions.FlightRecorder
  /// The ring: the live sessions are `slots[oldest...]`. A session leaving empties its slot, and
  /// the emptied slots go in one move once they outnumber the live ones (an array's `removeFirst`
  /// moved every session at each session's start; a slice's `append` copied them all).
  private var slots: [Session?] = []
  private var oldest = 0
  /// Sessions with an anomaly that left the ring, oldest first.
  private(set) var keptAnomalies: [Session] = []
  /// Whether the last session is still taking inputs (the zone has not come to rest since it began).
  private var sessionOpen = false
  /// Inputs in `sessions`.
  private var inputCount = 0
  private var lastSequence = 0
  private var lastSessionNumber = 0
  /// Sessions dropped whole because they outgrew the input bound.
  private(set) var overflowedSessions = 0
  /// The latest ad objects seen, by identity, with their tokens (numbered in the order the ads
  /// were first seen). An identity names one object while it is alive, and the zone keeps alive
  /// the ad it compares a new fill with (its last accepted ad); an ad that went away may leave
  /// its token to a new one, which is never compared with it. The 64 latest are enough.
  private var adTokens: [(ad: ObjectIdentifier, token: Int)] = []
  private var lastAdToken = 0
  /// The requests the zone sent lately, by id (the last few loads').
  private var requests: [RequestID: (network: String, placementID: String, kind: String)] = [:]
  /// When each timer arming in force is due, from the `arm` effects.
  private var timerDues: [TimerID.Kind: (generation: Int, due: Duration)] = [:]
  /// The record of the setup the last checkpoint was taken on (a setup is swapped whole, so the
  /// same object is the same record).
  private var lastSetup: (setup: ZoneSetup, record: RecordedSetup)?

  init(limits: MediatorOptions.FlightRecorder) {
    self.limits = limits
  }

  /// The sessions in the ring, oldest first.
  var sessions: [Session] { slots[oldest...].compactMap { $0 } }

  /// Before `machine` handles `input`: an input from outside that finds the zone at rest begins
  /// a session, with a checkpoint of the zone as it is. Returns the input's record, for
  /// ``didHandle(_:now:effects:atRest:)``, which keeps it while a session is open (not while
  /// recording waits for the zone's rest: it began while the zone was busy, or the last session
  /// outgrew the bound).
  mutating func willHandle(_ input: ZoneInput, by machine: ZoneMachine) -> RecordedInput {
    let record = RecordedInput(input, keepingConsentStrings: limits.keepsConsentStrings) { token(of: $0) }
    // A timer's firing begins a session only when the zone acts on it: not a stale one (disarmed
    // meanwhile), nor the end of a late-signal window, which only lets an ended show's ad go.
    var begins = record.beginsSession
    if case .timerFired(let id) = input { begins = machine.isCurrent(id) && id.kind != .linger }
    if begins, !sessionOpen || machine.isAtRest,
      let checkpoint = machine.checkpoint(
        setup: recordedSetup(machine.setup), adToken: { token(of: $0) },
        due: { id in timerDues[id.kind].flatMap { $0.generation == id.generation ? $0.due : nil } })
    {
      lastSessionNumber += 1
      slots.append(Session(number: lastSessionNumber, checkpoint: checkpoint))
      sessionOpen = true
    }
    return record
  }

  /// After the machine handled the input `record` was made of, at `now`, with `effects`, and
  /// came to rest or not.
  mutating func didHandle(
    _ record: consuming RecordedInput, now: Duration, effects: [ZoneEffect], atRest: Bool
  ) {
    // Timers and requests are followed whether or not a session is open: the next checkpoint and
    // the next session's answers need them.
    noteTimers(record, effects, now: now)
    annotate(&record, effects)
    guard sessionOpen, oldest < slots.endIndex else { return }
    lastSequence += 1
    let last = slots.endIndex - 1
    slots[last]?.steps.append(
      Step(sequence: lastSequence, time: now, input: record, published: RecordedEvent.published(by: effects)))
    for effect in effects {
      if let anomaly = RecordedEvent.anomaly(in: effect) { slots[last]?.anomalies.append(anomaly) }
    }
    slots[last]?.endsAtRest = atRest
    inputCount += 1
    trim()
  }

  // MARK: Private

  /// Keeps the ring within its bounds: the oldest sessions leave (those with an anomaly are kept
  /// aside); the session taking inputs, if it alone is over the bound, is dropped.
  private mutating func trim() {
    var live: Int { slots.endIndex - oldest }
    while live > max(1, limits.maxSessions) || (inputCount > limits.maxInputs && live > 1) {
      guard let leaving = slots[oldest] else { break }
      slots[oldest] = nil
      oldest += 1
      inputCount -= leaving.steps.count
      if !leaving.anomalies.isEmpty, limits.keptAnomalies > 0 {
        keptAnomalies.append(leaving)
        if keptAnomalies.count > limits.keptAnomalies { keptAnomalies.removeFirst() }
      }
    }
    if oldest > live {
      slots.removeFirst(oldest)
      oldest = 0
    }
    if inputCount > limits.maxInputs, live > 0, let only = slots.removeLast() {
      inputCount -= only.steps.count
      overflowedSessions += 1
      sessionOpen = false
    }
  }

  /// Names the request a request's input is about (its network, placement and kind, from the
  /// zone's `send`), and the ad a show put on screen, so a replay can match a changed engine's
  /// requests and shows with the recorded answers and signals.
  private mutating func annotate(_ record: inout RecordedInput, _ effects: [ZoneEffect]) {
    if let id = record.requestID, let sent = requests[id] {
      record.network = sent.network
      record.placementID = sent.placementID
      record.requestKind = sent.kind
    }
    for effect in effects {
      switch effect {
      case .send(let request):
        if requests.count > 256 { requests = requests.filter { $0.key.load >= request.id.load - 4 } }
        requests[request.id] = (request.network.rawValue, request.request.placementID, request.kind.rawValue)
      case .present(let ready) where record.type == .show:
        record.load = ready.loadID
      default: break
      }
    }
  }

  /// Keeps the deadlines of the timers armed, for checkpoints.
  private mutating func noteTimers(_ record: RecordedInput, _ effects: [ZoneEffect], now: Duration) {
    if record.type == .timerFired, let id = record.timer?.id, timerDues[id.kind]?.generation == id.generation
    {
      timerDues[id.kind] = nil
    }
    for effect in effects {
      if case .arm(let id, let delay) = effect {
        timerDues[id.kind] = (id.generation, now + delay)
      }
    }
  }

  /// The record of `setup`, made once per setup.
  private mutating func recordedSetup(_ setup: ZoneSetup) -> RecordedSetup {
    if let last = lastSetup, last.setup === setup { return last.record }
    let record = RecordedSetup(setup)
    lastSetup = (setup, record)
    return record
  }

  /// The token of `ad`: the one it was given when first seen, else the next.
  private mutating func token(of ad: any AdapterAd) -> Int {
    let identity = ObjectIdentifier(ad)
    if let known = adTokens.last(where: { $0.ad == identity }) { return known.token }
    lastAdToken += 1
    adTokens.append((identity, lastAdToken))
    if adTokens.count > 64 { adTokens.removeFirst() }
    return lastAdToken
  }
}
