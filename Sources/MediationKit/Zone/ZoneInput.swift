/// Everything that can happen to a zone, as a plain value: the app's calls, every answer and
/// signal from an adapter, every timer firing, every configuration or network change.
/// ``ZoneMachine/handle(_:now:)`` takes one at a time.
///
/// What the environment answered is carried in the input itself (the networks' start-up, the
/// privacy signals, the auction id), so the machine never asks anything outside itself and a
/// recorded sequence of inputs replays exactly.
enum ZoneInput: Sendable, Equatable {
  // `indirect`: the privacy signals would make every input over 200 bytes.
  /// The app asked for a load (`requested`), or the zone reloads on its own (after a fill,
  /// a show, an expiry, a withdrawal or a retry's backoff: ``ZoneEffect/reload``).
  indirect case load(requested: Bool, networks: NetworkAvailability, privacy: PrivacySettings)
  /// The auction id the engine gave load `load` (``ZoneEffect/startAuction(load:)``): the load's
  /// requests go out now.
  case auctionStarted(load: Int, auctionID: UInt64)
  /// The adapter took `request` and returned its cancellation handle.
  case sent(RequestID, Handle)
  /// `request` waits for its network's start; the handle withdraws it from the wait.
  case awaitingStart(RequestID, Handle)
  /// The start `request` waited for ended: `nil` to send it now, else why it is skipped.
  case startEnded(RequestID, refusal: String?)
  /// `request` cannot go out: its network did not start (or is not registered).
  case notStarted(RequestID, reason: String)
  case bidAnswered(RequestID, Result<AdapterBid, AdapterError>)
  case loaded(RequestID, LoadedAd)
  case loadFailed(RequestID, AdapterError)
  /// The network withdrew the ad that load `request` made (``AdapterWithdrawal/Sink``).
  case withdrawn(RequestID, AdapterWithdrawal)
  /// The app asked to show; `screen` says whether the engine's full-screen gate was taken for it.
  case show(customData: String?, screen: Screen)
  /// An adapter signal from the ad load `load` made (its show, when it is shown).
  case signal(ad: Int, AdapterSignal)
  /// The timer `id` was scheduled; the handle cancels it.
  case timerArmed(TimerID, Handle)
  case timerFired(TimerID)
  /// The configuration, the registered networks or the user changed.
  case apply(ZoneChange)
}

/// One network request of one load: the load's id and the request's plan entry.
struct RequestID: Hashable, Sendable {
  let load: Int
  let entry: Int
}

/// One arming of one of the zone's timers. Every arming gets a new `generation`, so a firing of
/// an arming that was disarmed or replaced meanwhile is recognised and ignored.
struct TimerID: Hashable, Sendable {
  /// The raw value names the kind in a flight recording.
  enum Kind: String, Hashable, Sendable, CaseIterable {
    /// The timeout of the load attempt under way.
    case load
    /// The bid round's deadline of the load under way.
    case auction
    /// The expiry of the queued ad that expires first.
    case expiry
    /// The retry of a failed or withdrawn load, after its backoff.
    case retry
    /// The show on screen's display timeout, maximum duration and reward grace window.
    case display, showDuration, grace
    /// The end of the oldest ended show's late-signal window.
    case linger

    /// Hashed by case: the default for a `String` raw value hashes the name's text, and the zone
    /// looks its timers up by kind several times an input.
    func hash(into hasher: inout Hasher) {
      withUnsafeBytes(of: self) { hasher.combine(bytes: $0) }
    }
  }

  let kind: Kind
  let generation: Int
}

/// The full-screen gate's answer for a show (one full-screen ad at a time, across zones).
enum Screen: Sendable, Equatable {
  /// Taken for this zone's show; the machine hands it back when it refuses the show.
  case acquired
  /// Held by another zone's show.
  case taken(by: String?)
}

/// A change from outside the zone.
enum ZoneChange: Sendable, Equatable {
  /// A new setup from a configuration applied or a network (un)registered; `note`, when given,
  /// is published as a `configurationApplied` diagnostic first.
  case configuration(ZoneSetup, note: String?)
  /// The user changed, and with them the zone's experiment arms: only the next load changes.
  case user(ZoneSetup)
  /// The zone left the configuration, for `reason`.
  case removed(reason: String)
}

/// The networks' start-up when a load starts: which are registered, and why the registered ones
/// that cannot be asked (their start failed or timed out, or they are never started) cannot.
/// Networks still starting are not refused: their requests wait.
struct NetworkAvailability: Sendable, Equatable {
  var registered: Set<NetworkID> = []
  var refusals: [NetworkID: String] = [:]

  /// The networks of `items` a load cannot ask, and why.
  func unavailable(for items: [ZoneConfig.LineItem]) -> [NetworkID: LoadPlan.Unavailable] {
    var unavailable: [NetworkID: LoadPlan.Unavailable] = [:]
    for item in items {
      if !registered.contains(item.network) {
        unavailable[item.network] = LoadPlan.Unavailable(
          fate: .skipped, reason: "no adapter registered for '\(item.network)'")
      } else if let refusal = refusals[item.network] {
        unavailable[item.network] = LoadPlan.Unavailable(fate: .notStarted, reason: refusal)
      }
    }
    return unavailable
  }
}

/// A cancellation handle returned by the environment. Equal to any other: it is a receipt for
/// work under way, not part of what the zone decides, so a recorded input replays against
/// whatever handle the replay's environment returns.
struct Handle: Sendable, Equatable {
  let cancellable: Cancellable

  init(_ cancellable: Cancellable) { self.cancellable = cancellable }

  static func == (lhs: Handle, rhs: Handle) -> Bool { true }
}

/// An adapter's loaded ad, compared by the ad's identity (an SDK reporting the same ad twice
/// reports an equal one).
struct LoadedAd: Sendable, Equatable {
  let value: AdapterLoadedAd

  init(_ value: AdapterLoadedAd) { self.value = value }

  static func == (lhs: LoadedAd, rhs: LoadedAd) -> Bool {
    lhs.value.ad === rhs.value.ad && lhs.value.ecpm == rhs.value.ecpm
      && lhs.value.lifetime == rhs.value.lifetime
  }
}

extension ZoneSetup: Equatable {
  /// Setups are made once per change and swapped whole: the same setup is the same object.
  static func == (lhs: ZoneSetup, rhs: ZoneSetup) -> Bool { lhs === rhs }
}
