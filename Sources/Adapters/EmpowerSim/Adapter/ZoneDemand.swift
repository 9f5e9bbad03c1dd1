import MediationKit

/// What one Empower zone is needed for, as the adapter tracks it: the loads waiting on it, the ads
/// it gave the core, and the show on screen.
///
/// Pure bookkeeping, mutated under the zone's lock (``ZoneContext``); each transition says whether
/// it left the zone idle, so the router learns in the same lock round that it must destroy the
/// zone. The zone is needed until the core released every ad it filled (``AdapterAd/discard()``),
/// shown or not: a core that reloads as soon as a show ends — before it discards the shown ad —
/// keeps the zone, instead of the zone being destroyed and made again on every cycle.
struct ZoneDemand {
  /// What ``beginShow(_:signals:)`` decided.
  enum ShowStart: Equatable {
    /// The ad is the zone's to show; the show is now on screen.
    case show
    /// The ad was already shown or discarded.
    case alreadyUsed
    /// Another ad of the zone is on screen; the ad is used up.
    case busy
  }

  /// Loads waiting for `.ready`/`.failed`, in the order they were made.
  private var loads = WaitingLoads()
  /// Ads handed to the core and neither shown, withdrawn nor discarded (a handful at most), each
  /// with its load's sink.
  private var unshown: [Unshown] = []
  /// Ads the core showed (or tried to), or that were withdrawn, and it has not discarded yet. A
  /// count, not ids: the core discards each ad at most once (``AdapterAd/discard()``), and a core
  /// that never discards then grows a number, not a list.
  private var usedUndiscarded = 0
  /// The signals of the show on screen, if any.
  private(set) var show: AdapterSignal.Sink?

  /// Nothing needs the zone: no pending load, no ad the core holds, nothing on screen.
  var isIdle: Bool { loads.isEmpty && unshown.isEmpty && usedUndiscarded == 0 && show == nil }

  /// Loads waiting on the zone.
  var pendingLoads: Int { loads.count }
  /// Ads the core holds, shown or not.
  var heldAds: Int { unshown.count + usedUndiscarded }

  /// Adds a load.
  mutating func addLoad(_ load: PendingLoad) {
    loads.append(load)
  }

  /// Drops every waiting load without completing it (their owner is going away); returns them,
  /// to be released outside the lock.
  mutating func abandonLoads() -> WaitingLoads {
    takeLoads()
  }

  /// Stops waiting for the load of ad `id`; whether that left the zone idle (`false` when the load
  /// had already completed: nothing changed).
  mutating func cancelLoad(_ id: UInt64) -> Bool {
    loads.remove(id) && isIdle
  }

  /// `.ready`: every waiting load gets its ad. `idle` when nobody was waiting and nothing else
  /// needs the zone.
  mutating func fill() -> (loads: WaitingLoads, idle: Bool) {
    let filled = takeLoads()
    filled.forEach { unshown.append(Unshown(id: $0.ad.id, sink: $0.sink)) }
    return (filled, isIdle)
  }

  /// A failed load: every waiting load fails; whether the zone is then idle.
  mutating func failLoads() -> (loads: WaitingLoads, idle: Bool) {
    (takeLoads(), isIdle)
  }

  /// The core shows ad `id` with `signals`: uses the ad up, and puts it on screen unless another
  /// ad of the zone is there.
  mutating func beginShow(_ id: UInt64, signals: AdapterSignal.Sink) -> ShowStart {
    guard takeUnshown(id) else { return .alreadyUsed }
    usedUndiscarded += 1
    guard show == nil else { return .busy }
    show = signals
    return .show
  }

  /// The zone no longer holds an ad (a show used it): every ad handed to the core and not yet
  /// shown is gone with it. Counts them as used (the core still discards each) and returns their
  /// loads' sinks.
  mutating func withdrawUnshown() -> [AdapterSignal.Sink] {
    let gone = unshown.map(\.sink)
    usedUndiscarded += unshown.count
    unshown.removeAll()
    return gone
  }

  /// The show left the screen (or failed): its signals, and whether the zone is then idle.
  mutating func endShow() -> (signals: AdapterSignal.Sink?, idle: Bool) {
    let signals = show
    show = nil
    return (signals, isIdle)
  }

  /// The core released ad `id`; whether the zone is then idle.
  mutating func discard(_ id: UInt64) -> Bool {
    if !takeUnshown(id), usedUndiscarded > 0 { usedUndiscarded -= 1 }
    return isIdle
  }

  private mutating func takeLoads() -> WaitingLoads {
    var taken = WaitingLoads()
    swap(&taken, &loads)
    return taken
  }

  /// Removes `id` from the unshown ads; whether it was there.
  private mutating func takeUnshown(_ id: UInt64) -> Bool {
    guard let index = unshown.firstIndex(where: { $0.id == id }) else { return false }
    unshown.swapAt(index, unshown.count - 1)
    unshown.removeLast()
    return true
  }
}

/// A load waiting on a zone: the ad it will get (also its cancellation handle), the core's
/// completion, and where to tell the core that the ad went away before its show.
struct PendingLoad {
  let ad: EmpowerAd
  let completion: @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void
  var sink: AdapterSignal.Sink = .ignored
}

/// An ad handed to the core, not yet shown: its id and its load's sink.
struct Unshown {
  let id: UInt64
  let sink: AdapterSignal.Sink
}

/// The loads waiting on a zone, oldest first. The first is stored inline, so the usual zone — one
/// load at a time — never allocates an array for it.
struct WaitingLoads {
  private var first: PendingLoad?
  private var rest: [PendingLoad] = []

  var isEmpty: Bool { first == nil }
  var count: Int { first == nil ? 0 : 1 + rest.count }

  mutating func append(_ load: PendingLoad) {
    if first == nil { first = load } else { rest.append(load) }
  }

  /// Removes and returns the oldest load (moved out, not copied).
  mutating func popFirst() -> PendingLoad? {
    guard let load = first.take() else { return nil }
    if !rest.isEmpty { first = rest.removeFirst() }
    return load
  }

  /// Removes the load of ad `id`; whether it was there.
  mutating func remove(_ id: UInt64) -> Bool {
    if first?.ad.id == id {
      _ = popFirst()
      return true
    }
    guard let index = rest.firstIndex(where: { $0.ad.id == id }) else { return false }
    rest.remove(at: index)
    return true
  }

  /// Calls `body` with each load, oldest first.
  func forEach(_ body: (PendingLoad) -> Void) {
    guard let first else { return }
    body(first)
    for load in rest { body(load) }
  }
}
