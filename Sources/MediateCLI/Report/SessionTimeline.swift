import MediationKit

/// One session of a flight recording laid out for drawing (``TimelineChart``): what the app
/// asked, each request of each load with its fate, the show on screen with its signals, the
/// reward, and the events the zone published — each at the instant its input arrived.
struct SessionTimeline {
  /// A request to a network: from when it was sent (or waited for its network's start) to its
  /// answer, and what became of it — a state of the waterfall funnel (``Palette/states``).
  struct Request {
    /// The load, network, placement and kind, as the recording names the request.
    var key: [String]
    var label: String
    /// `bid` or `load`.
    var kind: String
    var start: Duration
    var end: Duration
    /// `loaded`, `failed`, `timed_out`, `bid`, `no_bid`, `not_started`, or `skipped` for a
    /// request that was never answered.
    var fate: String
    /// The answer in a few words (`eCPM 12.78`, `no_fill`, `no answer`).
    var note: String
    var open: Bool { fate.isEmpty }
  }

  /// Something that happened at one instant, in a few words.
  struct Mark {
    var time: Duration
    var label: String
  }

  /// A show from `shown` (or the app's show, for one that failed before it) to its terminal event.
  struct Show {
    var start: Duration
    var end: Duration
    /// `closed`, `skipped`, `show_failed`, or `open` for one still on screen at the session's end.
    var outcome: String
  }

  /// The instants at which inputs arrived, in order: the chart's columns.
  private(set) var instants: [Duration] = []
  /// The app's loads and shows.
  private(set) var app: [Mark] = []
  private(set) var requests: [Request] = []
  private(set) var shows: [Show] = []
  /// The network's show signals, by name.
  private(set) var signals: [Mark] = []
  /// Rewards: granted (`100 coins`) or not (a late reward), with whether each was granted.
  private(set) var rewards: [(mark: Mark, granted: Bool)] = []
  /// The events the zone published, by name.
  private(set) var events: [Mark] = []

  init(_ inputs: [FlightRecording.InputRecord]) {
    var showRequested: Duration?
    var openShow: Duration?
    for input in inputs {
      let now = input.time
      if instants.last != now { instants.append(now) }
      switch input.kind {
      case "load" where input.requested == true: app.append(Mark(time: now, label: "load"))
      case "show":
        app.append(Mark(time: now, label: "show"))
        showRequested = now
      case "signal": signals.append(Mark(time: now, label: input.signal ?? "signal"))
      case "timer_fired" where input.timer == "load" || input.timer == "auction":
        // The attempt under way (a load) or the bid round (an auction) ran out of time.
        close(kind: input.timer == "load" ? "load" : "bid", at: now, fate: "timed_out", note: "timed out")
      default: answer(input)
      }
      for event in input.published {
        events.append(Mark(time: now, label: event.event))
        switch event.event {
        case "shown": openShow = now
        case "closed", "skipped", "show_failed":
          shows.append(Show(start: openShow ?? showRequested ?? now, end: now, outcome: event.event))
          openShow = nil
        case "ready", "failed":
          close(kind: nil, at: now, fate: "skipped", note: "no answer")
        case "rewarded": rewards.append((Mark(time: now, label: event.detail ?? "reward"), true))
        case "diagnostic" where event.detail == "late_reward":
          rewards.append((Mark(time: now, label: "late reward, not granted"), false))
        default: break
        }
      }
    }
    let end = instants.last ?? .zero
    if let openShow { shows.append(Show(start: openShow, end: end, outcome: "open")) }
    close(kind: nil, at: end, fate: "skipped", note: "no answer")
  }

  /// A request's input: its sending opens it, its answer gives its fate.
  private mutating func answer(_ input: FlightRecording.InputRecord) {
    guard let network = input.network, let placement = input.placementID, let kind = input.requestKind
    else { return }
    let key = ["\(input.load ?? 0)", network, placement, kind]
    let index: Int
    if let open = requests.lastIndex(where: { $0.key == key && $0.open }) {
      index = open
    } else {
      // An answer to a request already closed (a late one) changes nothing drawn.
      guard ["awaiting_start", "sent", "not_started"].contains(input.kind) else { return }
      let label = "load \(key[0]) · \(network) · \(HTMLReport.shortened(placement)) · \(kind)"
      requests.append(
        Request(key: key, label: label, kind: kind, start: input.time, end: input.time, fate: "", note: ""))
      index = requests.count - 1
    }
    let error = input.errorKind ?? ""
    let price = input.price.map { "\($0)" } ?? ""
    let outcome: (fate: String, note: String)? =
      switch input.kind {
      case "not_started": ("not_started", input.reason ?? "not started")
      case "start_ended": input.reason.map { ("not_started", $0) }
      case "loaded": ("loaded", price.isEmpty ? "loaded" : "eCPM \(price)")
      case "load_failed": (error == "timeout" ? "timed_out" : "failed", error)
      case "bid_answered": input.price == nil ? ("no_bid", error) : ("bid", "bid \(price)")
      default: nil
      }
    if let outcome {
      requests[index].fate = outcome.fate
      requests[index].note = outcome.note
      requests[index].end = input.time
    }
  }

  /// Gives every open request (of `kind`, or all) `fate` at `time`.
  private mutating func close(kind: String?, at time: Duration, fate: String, note: String) {
    for index in requests.indices where requests[index].open {
      if let kind, requests[index].kind != kind { continue }
      requests[index].fate = fate
      requests[index].note = note
      requests[index].end = time
    }
  }
}
