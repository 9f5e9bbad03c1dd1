import MediationKit

extension ScenarioRun {
  /// A load asked for the moment the mediator is made, while the network is still starting: no
  /// load or bid may reach the adapter before its start completed, and the load ends exactly once
  /// (`ready` or `failed`) within the start timeout and the zone's budget.
  mutating func loadsDuringStart() {
    let scenario = "loads during start"
    let watch = StartWatch()
    var watched = registration
    watched.makeAdapter = { [registration] environment in
      StartWatchingAdapter(registration.makeAdapter(environment), watch: watch)
    }
    guard let (scheduler, mediator, recorder) = makeMediator(registration: watched),
      let ad = try? mediator.rewardedAd(zone: zones[0].id)
    else {
      outcome(scenario, ran: false, "could not build a mediator for \(registration.info.id)")
      return
    }
    ad.load()
    let deadline = MediatorOptions().startTimeout + .seconds(zones[0].loadTimeoutSeconds)
    scheduler.run(until: scheduler.now + deadline)
    let (early, started) = watch.state.withLock { ($0.requestsBeforeStart, $0.startCompleted) }
    if early > 0 {
      fail(
        .noLoadBeforeStart, scenario,
        "\(early) load or bid request(s) reached the adapter before its start completed")
    }
    let ends = recorder.names(zone: ad.zoneID).filter { $0 == "ready" || $0 == "failed" }
    if ends.count != 1 {
      fail(
        .loadEndsOnceWithinBudget, scenario,
        "a load asked for during the start ended \(ends.count) times within \(deadline) (\(ends))")
    }
    outcome(
      scenario, ran: true,
      "loaded at once; the start \(started ? "completed" : "never completed"), the load ended \(ends)")
  }
}

/// What ``StartWatchingAdapter`` saw: whether the start completed, and how many requests came
/// before it did.
final class StartWatch: Sendable {
  struct State {
    var startCompleted = false
    var requestsBeforeStart = 0
  }
  let state = Locked(State())

  func request() { state.withLock { if !$0.startCompleted { $0.requestsBeforeStart += 1 } } }
}

/// Passes everything through to the adapter under test, noting when its start completes and any
/// load or bid that arrives before.
final class StartWatchingAdapter: RewardedAdapter {
  let wrapped: any RewardedAdapter
  let watch: StartWatch

  init(_ wrapped: any RewardedAdapter, watch: StartWatch) {
    self.wrapped = wrapped
    self.watch = watch
  }

  var info: AdapterInfo { wrapped.info }

  func start(
    _ request: AdapterStartRequest, completion: @escaping @Sendable (Result<Void, AdapterError>) -> Void
  ) {
    wrapped.start(request) { [watch] result in
      watch.state.withLock { $0.startCompleted = true }
      completion(result)
    }
  }

  func load(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void
  ) -> Cancellable {
    watch.request()
    return wrapped.load(request, completion: completion)
  }

  func bid(
    _ request: AdapterLoadRequest, completion: @escaping @Sendable (Result<AdapterBid, AdapterError>) -> Void
  ) -> Cancellable {
    watch.request()
    return wrapped.bid(request, completion: completion)
  }

  func privacyDidChange(_ privacy: PrivacySettings) { wrapped.privacyDidChange(privacy) }
}
