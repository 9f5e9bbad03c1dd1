/// One waterfall load, as a pure state machine: which line item to try next, with what timeout,
/// and what each answer means.
///
/// Line items are tried one at a time in ``WaterfallOrder``; each gets its own timeout, capped by
/// what is left of the zone's budget. The first fill wins. Answers for an attempt that already
/// ended (timed out, cancelled) are stale: a stale ad is handed back to be discarded. When the
/// budget runs out, the attempt in flight is cancelled and the load fails with `loadTimeout`.
struct WaterfallAuction {
  enum Action {
    /// Ask `item`'s network for an ad; feed the answer back tagged with `attempt`.
    case load(attempt: Int, item: LineItem, timeout: Duration)
    /// Cancel the network request of `attempt`.
    case cancel(attempt: Int)
    /// Release an ad that arrived too late to be used.
    case discard(AdapterLoadedAd, Diagnostic)
    /// The load is over.
    case finish(Outcome)
  }

  enum Outcome {
    case filled(item: LineItem, ad: AdapterLoadedAd, responses: [NetworkResponse])
    case failed(MediationError, responses: [NetworkResponse])
  }

  private let items: [LineItem]
  private let unavailable: [NetworkID: String]
  private let deadline: Duration
  private let startedAt: Duration
  private var responses: [NetworkResponse?]
  private var current: (index: Int, startedAt: Duration)?
  private var nextIndex = 0
  private(set) var isFinished = false

  /// - Parameters:
  ///   - lineItems: The zone's line items, in any order.
  ///   - unavailable: Networks that cannot be asked, with the reason (not registered, failed to start).
  ///   - budget: The zone's load budget.
  ///   - now: The current time.
  init(lineItems: [LineItem], unavailable: [NetworkID: String], budget: Duration, now: Duration) {
    self.items = WaterfallOrder.sorted(lineItems)
    self.unavailable = unavailable
    self.startedAt = now
    self.deadline = now + budget
    self.responses = Array(repeating: nil, count: items.count)
  }

  /// The attempt number currently in flight, if any.
  var attemptInFlight: Int? { current?.index }

  mutating func start(now: Duration) -> [Action] { advance(now: now) }

  mutating func loaded(attempt: Int, ad: AdapterLoadedAd, now: Duration) -> [Action] {
    guard !isFinished, let current, current.index == attempt else {
      return [
        .discard(ad, Diagnostic(.lateLoad, "ad from attempt \(attempt) arrived after it ended; discarded"))
      ]
    }
    let item = items[attempt]
    responses[attempt] = response(item, .loaded, latency: now - current.startedAt, ecpm: ad.ecpm ?? item.ecpm)
    self.current = nil
    isFinished = true
    return [.finish(.filled(item: item, ad: ad, responses: finalResponses()))]
  }

  mutating func failed(attempt: Int, error: AdapterError, now: Duration) -> [Action] {
    guard !isFinished, let current, current.index == attempt else { return [] }
    responses[attempt] = response(
      items[attempt], .failed, latency: now - current.startedAt, error: "\(error)")
    self.current = nil
    return advance(now: now)
  }

  mutating func timedOut(attempt: Int, now: Duration) -> [Action] {
    guard !isFinished, let current, current.index == attempt else { return [] }
    if now >= deadline { return budgetEnded(now: now) }
    let latency = now - current.startedAt
    responses[attempt] = response(
      items[attempt], .timedOut, latency: latency, error: "no answer within \(Self.format(latency))")
    self.current = nil
    return [.cancel(attempt: attempt)] + advance(now: now)
  }

  mutating func budgetEnded(now: Duration) -> [Action] {
    guard !isFinished else { return [] }
    var actions: [Action] = []
    if let current {
      let latency = now - current.startedAt
      responses[current.index] = response(
        items[current.index], .timedOut, latency: latency, error: "zone load budget ran out")
      actions.append(.cancel(attempt: current.index))
      self.current = nil
    }
    return actions
      + fail(
        MediationError(.loadTimeout, "no fill within the zone's \(Self.format(deadline - startedAt)) budget"))
  }

  private mutating func advance(now: Duration) -> [Action] {
    while nextIndex < items.count {
      let index = nextIndex
      nextIndex += 1
      let item = items[index]
      if let reason = unavailable[item.network] {
        responses[index] = response(item, .skipped, error: reason)
        continue
      }
      let remaining = deadline - now
      if remaining <= .zero {
        return budgetEnded(now: now)
      }
      current = (index, now)
      return [.load(attempt: index, item: item, timeout: min(.seconds(item.timeoutSeconds), remaining))]
    }
    let tried = responses.compactMap { $0 }.filter { $0.state != .skipped }.count
    return fail(MediationError(.noFill, "no fill from \(tried) of \(items.count) line items"))
  }

  private mutating func fail(_ error: MediationError) -> [Action] {
    isFinished = true
    return [.finish(.failed(error, responses: finalResponses()))]
  }

  private func finalResponses() -> [NetworkResponse] {
    zip(items, responses).map { item, response in
      response ?? self.response(item, .notAttempted)
    }
  }

  private func response(
    _ item: LineItem, _ state: NetworkResponse.State, latency: Duration? = nil, ecpm: Double? = nil,
    error: String? = nil
  ) -> NetworkResponse {
    NetworkResponse(
      network: item.network, placementID: item.placementId, priority: item.priority, ecpm: ecpm ?? item.ecpm,
      state: state, latency: latency, error: error)
  }

  static func format(_ duration: Duration) -> String {
    let ms = duration.milliseconds
    return ms % 1000 == 0 ? "\(ms / 1000) s" : "\(ms) ms"
  }
}
