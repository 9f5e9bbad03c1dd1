/// The bookkeeping of ``GlobalListenerRouter`` as a pure value: which loads wait for which
/// placement's availability, which ad objects are loaded, which shows are recent, and where each
/// SDK callback goes. Every change returns the ``Effect``s to carry out; nothing here calls out.
///
/// Loads and ad objects are named by tickets (one per ``addLoad(placementID:)``); shows by the
/// ticket of the ad object shown.
package struct GlobalListenerRoutes: Sendable, Equatable {
  /// What the router must do after a change.
  package enum Effect: Sendable, Equatable {
    /// Ask the SDK to load `placementID` (once while loads wait for it).
    case requestLoad(placementID: String)
    /// Complete load `ticket` with a new ad object.
    case fill(ticket: UInt64)
    /// Fail load `ticket`.
    case fail(ticket: UInt64, AdapterError)
    /// Withdraw the loaded ad object `ticket`: the SDK no longer has its ad.
    case withdraw(ticket: UInt64, AdapterWithdrawal)
  }

  /// An SDK callback, as far as routing cares.
  package enum Callback: Sendable, Equatable {
    /// The ad opened (the impression).
    case opened
    /// The show failed before opening.
    case showFailed
    /// The reward.
    case reward
    /// The SDK's "content completed" (video ended) callback: it sends no signal, it marks the show.
    case contentCompleted
    /// Anything else after opening: click, revenue, close.
    case afterOpening
  }

  /// Where the SDK's start stands.
  package enum StartState: Sendable, Equatable {
    case pending
    case started
    case failed(AdapterError)
  }

  /// A recent show.
  package struct Show: Sendable, Equatable {
    /// The ticket of the ad object shown.
    package var ticket: UInt64
    package var placementID: String
    /// The SDK's id for the impression, once a callback named it.
    package var impressionID: String?
    /// Whether the SDK reported it opened (or failed).
    package var opened = false
    /// Whether the adapter reported its content completed.
    package var contentCompleted = false
    /// Whether a reward was routed to it.
    package var rewarded = false
  }

  package private(set) var start = StartState.pending
  /// Loads waiting for availability, by placement, in arrival order.
  package private(set) var waiting: [String: [UInt64]] = [:]
  /// Placements with an SDK load asked for and not yet answered.
  package private(set) var requested: Set<String> = []
  /// The SDK's availability flag, by placement (by ``appWide`` when the SDK has one flag), as last
  /// reported.
  package private(set) var available: [String: Bool] = [:]
  /// Ad objects handed to the core and not yet shown or discarded, by placement.
  package private(set) var loaded: [String: [UInt64]] = [:]
  /// The recent shows, oldest first, at most ``capacity``.
  package private(set) var shows: [Show] = []
  /// How many recent shows are kept for late callbacks.
  package let capacity: Int
  /// What the SDK's availability flag covers and what its turning false means.
  package let availability: GlobalListenerRouter.Availability
  private var nextTicket: UInt64 = 0

  /// The key of ``available`` and ``requested`` under an app-wide flag.
  package static let appWide = ""

  /// - Parameters:
  ///   - capacity: How many recent shows to keep routing late callbacks to (at least 2).
  ///   - availability: What the SDK's availability flag covers and what its turning false means.
  package init(capacity: Int = 8, availability: GlobalListenerRouter.Availability = .init()) {
    self.capacity = max(2, capacity)
    self.availability = availability
  }

  /// The key `placementID`'s availability is kept under.
  private func flag(_ placementID: String) -> String {
    availability.scope == .appWide ? Self.appWide : placementID
  }

  // MARK: Start

  /// The SDK started: ask for the placements loads wait for, fill those already available.
  package mutating func started() -> [Effect] {
    start = .started
    return waiting.keys.sorted().flatMap { placementAwaited($0) }
  }

  /// The SDK failed to start: every waiting load fails, and so will later ones.
  package mutating func startFailed(_ error: AdapterError) -> [Effect] {
    start = .failed(error)
    let failed = waiting.keys.sorted().flatMap { waiting[$0] ?? [] }
    waiting.removeAll()
    requested.removeAll()
    return failed.map { .fail(ticket: $0, Self.notStarted(error)) }
  }

  private static func notStarted(_ error: AdapterError) -> AdapterError {
    AdapterError(
      .notInitialized, vendorCode: error.vendorCode, message: "the SDK failed to start: \(error.message)")
  }

  // MARK: Loads

  /// A load for `placementID` arrives: it waits for availability, or fills at once when the
  /// placement is available (the completion then comes inside the adapter's `load`).
  package mutating func addLoad(placementID: String) -> (ticket: UInt64, effects: [Effect]) {
    nextTicket += 1
    let ticket = nextTicket
    if case .failed(let error) = start { return (ticket, [.fail(ticket: ticket, Self.notStarted(error))]) }
    waiting[placementID, default: []].append(ticket)
    guard start == .started else { return (ticket, []) }
    return (ticket, placementAwaited(placementID))
  }

  /// What a started SDK does for a placement loads wait for.
  private mutating func placementAwaited(_ placementID: String) -> [Effect] {
    if available[flag(placementID)] == true { return fillWaiting(placementID) }
    if requested.contains(flag(placementID)) { return [] }
    requested.insert(flag(placementID))
    return [.requestLoad(placementID: placementID)]
  }

  /// Every load waiting for `placementID` gets an ad object of its own: one SDK ad, many objects.
  private mutating func fillWaiting(_ placementID: String) -> [Effect] {
    let tickets = waiting.removeValue(forKey: placementID) ?? []
    loaded[placementID, default: []].append(contentsOf: tickets)
    return tickets.map { .fill(ticket: $0) }
  }

  /// The core cancelled load `ticket`: it stops waiting (the SDK's own load goes on; its
  /// availability serves the next load).
  package mutating func cancelLoad(_ ticket: UInt64) {
    for placementID in waiting.keys { waiting[placementID]?.removeAll { $0 == ticket } }
    waiting = waiting.filter { !$0.value.isEmpty }
  }

  /// The SDK's availability flag changed — for `placementID`, or for every placement when the
  /// flag is app-wide (then `placementID` is ignored). On `true` every load waiting for a placement
  /// the flag covers fills. On `false`, with ``GlobalListenerRouter/Availability/Unavailable/withdraw``,
  /// every loaded ad object of those placements is withdrawn; with
  /// ``GlobalListenerRouter/Availability/Unavailable/keep`` they stay ready. Waiting loads ask the
  /// SDK again.
  package mutating func availabilityChanged(placementID: String, available isAvailable: Bool) -> [Effect] {
    let key = flag(placementID)
    available[key] = isAvailable
    requested.remove(key)
    let covered =
      availability.scope == .appWide ? Set(waiting.keys).union(loaded.keys).sorted() : [placementID]
    if isAvailable { return covered.flatMap { fillWaiting($0) } }
    var effects: [Effect] = []
    if availability.whenUnavailable == .withdraw {
      for placement in covered {
        let lost = loaded.removeValue(forKey: placement) ?? []
        effects += lost.map {
          Effect.withdraw(
            ticket: $0, AdapterWithdrawal(.availabilityLost, message: "\(placement) is no longer available"))
        }
      }
    }
    guard start == .started else { return effects }
    for placement in covered where waiting[placement] != nil { effects += placementAwaited(placement) }
    return effects
  }

  /// The SDK's load of `placementID` failed: every load waiting for it fails.
  package mutating func loadFailed(placementID: String, _ error: AdapterError) -> [Effect] {
    requested.remove(flag(placementID))
    return (waiting.removeValue(forKey: placementID) ?? []).map { .fail(ticket: $0, error) }
  }

  /// The core discarded ad object `ticket` without showing it.
  package mutating func discarded(_ ticket: UInt64) {
    forgetLoaded(ticket)
  }

  private mutating func forgetLoaded(_ ticket: UInt64) {
    for (placementID, tickets) in loaded where tickets.contains(ticket) {
      loaded[placementID]?.removeAll { $0 == ticket }
      if loaded[placementID]?.isEmpty == true { loaded[placementID] = nil }
      return
    }
  }

  // MARK: Shows

  /// Ad object `ticket` is being shown on `placementID`: it becomes the newest recent show.
  package mutating func showStarted(_ ticket: UInt64, placementID: String) {
    forgetLoaded(ticket)
    shows.append(Show(ticket: ticket, placementID: placementID))
    if shows.count > capacity { shows.removeFirst(shows.count - capacity) }
  }

  /// The show an SDK callback belongs to, by ticket; `nil` when no recent show matches.
  ///
  /// - An `impressionID` the SDK reported before names its show exactly; a new one is bound to
  ///   the show the callback is routed to.
  /// - Otherwise, among the recent shows of `placementID` (all recent shows when `nil`):
  ///   - `opened` and `showFailed` go to the newest show not yet opened;
  ///   - a `reward` goes to the oldest opened show whose content completed and that has no reward
  ///     yet, when there is one (the adapter reported `contentCompleted`);
  ///   - `contentCompleted` goes to the newest opened show whose content has not completed;
  ///   - every other callback, and a reward no completed show awaits, goes to the newest show that
  ///     opened — never to a show that has not opened yet, so a late callback of show N that
  ///     arrives after show N+1 was asked for, but before it opened, still reaches show N.
  ///   Only when no show of the placement has opened does a callback without an impression id go
  ///   to the newest show; one with an id no recent show has gets `nil` (its show is no longer
  ///   kept).
  package mutating func route(_ callback: Callback, placementID: String?, impressionID: String? = nil)
    -> UInt64?
  {
    if let impressionID, let index = shows.lastIndex(where: { $0.impressionID == impressionID }) {
      mark(index, callback)
      return shows[index].ticket
    }
    let candidates = shows.indices.filter { placementID == nil || shows[$0].placementID == placementID }
      .filter { impressionID == nil || shows[$0].impressionID == nil }
    let opened = candidates.filter { shows[$0].opened }
    let index: Int?
    switch callback {
    case .opened, .showFailed:
      index = candidates.last { !shows[$0].opened } ?? candidates.last
    case .reward, .contentCompleted, .afterOpening:
      let preferred: Int? =
        switch callback {
        case .reward: opened.first { shows[$0].contentCompleted && !shows[$0].rewarded }
        case .contentCompleted: opened.last { !shows[$0].contentCompleted }
        default: nil
        }
      // An impression id no recent show has bound belongs to a show this router no longer keeps
      // (or never saw) when no opened show can take it: binding it to a show that has not opened
      // would hand, say, show N's late reward to show N+1. Without an id, the newest show is the
      // best guess left.
      let newestOpened = preferred ?? opened.last
      index = impressionID == nil ? newestOpened ?? candidates.last : newestOpened
    }
    guard let index else { return nil }
    mark(index, callback)
    if let impressionID { shows[index].impressionID = impressionID }
    return shows[index].ticket
  }

  /// Records what `callback` says of the show at `index`.
  private mutating func mark(_ index: Int, _ callback: Callback) {
    switch callback {
    case .opened, .showFailed: shows[index].opened = true
    case .reward: shows[index].rewarded = true
    case .contentCompleted: shows[index].contentCompleted = true
    case .afterOpening: break
    }
  }
}
