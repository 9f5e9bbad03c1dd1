/// The stock plumbing for an adapter whose SDK has one listener for everything — an availability
/// flag (per placement, or one for the app), loads without a completion, show callbacks that name
/// a placement, not a show (ironSource/LevelPlay's classic rewarded video, and SDKs like it).
///
/// It keeps the loads waiting for availability and the recent shows, and tells the adapter which
/// show each callback belongs to:
/// - **Fan-out:** one availability callback fills every load waiting for a placement it covers,
///   each with an ad object of its own (several ad objects for one SDK ad). What the flag covers
///   and what its turning false does — withdraw the loaded objects through their loads'
///   ``AdapterLoadRequest/sink``, or keep them — is the ``Availability`` it was made with.
/// - **Synchronous completion:** a placement already available fills inside ``load(_:completion:)``,
///   and an SDK that reports availability from inside its own load call finds the load waiting.
/// - **Cancel = stop waiting:** a cancelled load is forgotten; the SDK's load goes on.
/// - **Loads during start:** they wait until ``started()``; ``startFailed(_:)`` fails them.
///
/// **Where callbacks go.** The router guarantees, for the recent shows it keeps (``init(recentShows:availability:requestLoad:)``):
/// - a callback with an impression id it saw before reaches that impression's show, whatever
///   opened since;
/// - `displayed` and `showFailed` reach the newest show of the placement not yet opened;
/// - a reward reaches the oldest opened show of the placement whose content completed
///   (``contentCompleted(placementID:impressionID:)``) and that has no reward yet — so when the
///   adapter reports content completion and the SDK sends one reward per completed show, in order,
///   show N's late reward reaches show N even after show N+1 opened;
/// - any other callback (and a reward no completed show awaits) reaches the newest opened show of
///   the placement, so a late callback of show N that arrives before show N+1 opened reaches show
///   N.
///
/// **The case it cannot route:** a late callback of show N that carries no impression id and
/// arrives after show N+1 of the same placement opened — a reward without content completion
/// reported, a click, a revenue or a second close — reaches show N+1, since nothing in it tells
/// the two shows apart. Such an SDK needs the impression id, or content completion for its rewards.
///
/// Make one per SDK instance and forward the SDK's listener to it. For a vendor SDK that is a
/// process-wide singleton (ironSource is), that means one router per process, made where the SDK's
/// listener is set and shared by the adapters every ``Mediator`` makes (see ``RewardedAdapter``
/// rule 5); an SDK you can make per mediator gets one router per adapter.
public final class GlobalListenerRouter: Sendable {
  private struct State {
    var routes: GlobalListenerRoutes
    var completions: [UInt64: @Sendable (Result<UInt64, AdapterError>) -> Void] = [:]
    /// The sinks of the ad objects loaded and not shown yet, for their withdrawals.
    var unshown: [UInt64: AdapterSignal.Sink] = [:]
    /// The sinks of the recent shows, for their signals.
    var sinks: [UInt64: AdapterSignal.Sink] = [:]
  }

  private let state: Locked<State>
  private let requestLoad: @Sendable (String) -> Void

  /// - Parameters:
  ///   - recentShows: How many shows (at least 2) still receive their late callbacks; an older
  ///     show's callbacks find no show and are dropped.
  ///   - availability: What the SDK's availability flag covers and what its turning false does
  ///     (default: one flag per placement; false withdraws the placement's loaded ad objects).
  ///   - requestLoad: Asks the SDK to load a placement (called outside the router's lock, so the
  ///     SDK may report availability from inside it).
  public init(
    recentShows: Int = 8, availability: Availability = Availability(),
    requestLoad: @escaping @Sendable (_ placementID: String) -> Void
  ) {
    self.state = Locked(
      State(routes: GlobalListenerRoutes(capacity: recentShows, availability: availability)))
    self.requestLoad = requestLoad
  }

  /// The bookkeeping as it stands, for tests and diagnostics.
  package var routes: GlobalListenerRoutes { state.withLock { $0.routes } }

  // MARK: Start

  /// Call when the SDK's start succeeded: waiting loads go to the SDK.
  public func started() {
    perform(state.withLock { $0.routes.started() })
  }

  /// Call when the SDK's start failed: waiting and later loads fail `not_initialized`.
  public func startFailed(_ error: AdapterError) {
    perform(state.withLock { $0.routes.startFailed(error) })
  }

  // MARK: Loads

  /// Waits for `request`'s placement to be available, then completes with the ticket of a new
  /// ad object: build the ``AdapterAd`` around it, and pass the ticket to
  /// ``showStarted(_:placementID:signals:)`` and ``discarded(_:)``.
  /// - Returns: The handle that stops the waiting.
  public func load(
    _ request: AdapterLoadRequest, completion: @escaping @Sendable (Result<UInt64, AdapterError>) -> Void
  ) -> Cancellable {
    let (ticket, effects) = state.withLock { state in
      let (ticket, effects) = state.routes.addLoad(placementID: request.placementID)
      state.completions[ticket] = completion
      state.unshown[ticket] = request.sink
      return (ticket, effects)
    }
    perform(effects)
    return Cancellable { [weak self] in
      self?.state.withLock { state in
        state.routes.cancelLoad(ticket)
        if state.completions.removeValue(forKey: ticket) != nil { state.unshown[ticket] = nil }
      }
    }
  }

  /// Forward the SDK's availability callback here. Under an app-wide flag
  /// (``Availability/Scope/appWide``) the placement is ignored: the callback covers them all.
  public func availabilityChanged(placementID: String, available: Bool) {
    perform(state.withLock { $0.routes.availabilityChanged(placementID: placementID, available: available) })
  }

  /// Forward the availability callback of an SDK with one flag for the app here (a router made
  /// with ``Availability/Scope/appWide``; under a per-placement flag it covers no placement).
  public func availabilityChanged(available: Bool) {
    availabilityChanged(placementID: GlobalListenerRoutes.appWide, available: available)
  }

  /// Forward the SDK's load-failed callback here: the loads waiting for the placement fail.
  public func loadFailed(placementID: String, _ error: AdapterError) {
    perform(state.withLock { $0.routes.loadFailed(placementID: placementID, error) })
  }

  /// Call from ``AdapterAd/discard()`` of an ad object that was not shown.
  public func discarded(_ ticket: UInt64) {
    state.withLock { state in
      state.routes.discarded(ticket)
      state.unshown[ticket] = nil
    }
  }

  // MARK: Shows

  /// Call from ``AdapterAd/show(_:from:signals:)`` before asking the SDK to show.
  public func showStarted(_ ticket: UInt64, placementID: String, signals: AdapterSignal.Sink) {
    state.withLock { state in
      state.routes.showStarted(ticket, placementID: placementID)
      state.unshown[ticket] = nil
      state.sinks[ticket] = signals
      let recent = Set(state.routes.shows.map(\.ticket))
      state.sinks = state.sinks.filter { recent.contains($0.key) }
    }
  }

  /// Sends an SDK show callback, translated, to the show it belongs to.
  ///
  /// - Parameters:
  ///   - signal: The callback, translated.
  ///   - placementID: The placement the callback names, `nil` if it names none.
  ///   - impressionID: The SDK's id for the impression, if its callbacks carry one: then a late
  ///     callback finds its show even after a newer show of the same placement opened.
  /// - Returns: The show it was sent to; `nil` (and nothing sent) when no recent show matches.
  @discardableResult
  public func send(_ signal: AdapterSignal, placementID: String?, impressionID: String? = nil)
    -> AdapterSignal.Sink.ShowID?
  {
    let callback: GlobalListenerRoutes.Callback =
      switch signal {
      case .displayed: .opened
      case .showFailed: .showFailed
      case .rewarded: .reward
      default: .afterOpening
      }
    let sink = state.withLock { state in
      state.routes.route(callback, placementID: placementID, impressionID: impressionID).flatMap {
        state.sinks[$0]
      }
    }
    sink?.send(signal)
    return sink?.show
  }

  /// Forward the SDK's "content completed" callback (the video played to its end) here: it sends
  /// no signal, it marks the show, so that a reward that comes later — after the close, or after
  /// the next show opened — reaches the oldest completed show still awaiting one.
  ///
  /// - Returns: The show it marked; `nil` when no recent show matches.
  @discardableResult
  public func contentCompleted(placementID: String?, impressionID: String? = nil) -> AdapterSignal.Sink
    .ShowID?
  {
    state.withLock { state in
      state.routes.route(.contentCompleted, placementID: placementID, impressionID: impressionID).flatMap {
        state.sinks[$0]?.show
      }
    }
  }

  private func perform(_ effects: [GlobalListenerRoutes.Effect]) {
    for effect in effects {
      switch effect {
      case .requestLoad(let placementID):
        requestLoad(placementID)
      case .fill(let ticket):
        state.withLock { $0.completions.removeValue(forKey: ticket) }?(.success(ticket))
      case .fail(let ticket, let error):
        state.withLock { state in
          state.unshown[ticket] = nil
          return state.completions.removeValue(forKey: ticket)
        }?(.failure(error))
      case .withdraw(let ticket, let reason):
        state.withLock { $0.unshown.removeValue(forKey: ticket) }?.withdraw(reason)
      }
    }
  }
}
