import MediationKit
import MediationKitTesting
import Testing

/// "No load before start": on random start-ups (fast, slow, failing, never answering, lazy or
/// never started), random timeouts and strategies, no adapter receives a load or bid before its
/// start has completed, every load still ends within its budget, and a network that never
/// started is never reported as tried.
@Suite("Property tests: start before load")
struct StartPropertyTests {
  static let runs = 300
  /// Every scripted time is a multiple of the step, so checking after each step sees a request
  /// that came before its network's start (they cannot fall within one step).
  static let step = Duration.milliseconds(10)

  /// A random multiple of `step` below `upper` milliseconds.
  static func time(_ random: inout SeededRandom, below upper: UInt64) -> Duration {
    .milliseconds(Int64(random.next() % (upper / 10)) * 10)
  }

  static func startScript(_ random: inout SeededRandom) -> ScriptedAdapter.StartScript {
    switch random.next() % 4 {
    case 0: .never
    case 1: .fail(after: time(&random, below: 3000), AdapterError(.notInitialized, message: "bad key"))
    default: .succeed(after: time(&random, below: 3000))
    }
  }

  static func startMode(_ random: inout SeededRandom) -> MediatorOptions.NetworkStart {
    switch random.next() % 6 {
    case 0: .onFirstUse
    case 1: .never
    default: .atLaunch
    }
  }

  /// The first violation of run `seed`, or `nil`.
  static func violation(seed: UInt64) throws -> String? {
    var random = SeededRandom(seed: seed)
    let networks: [NetworkID] = ["a", "b", "c"]
    let strategy: ZoneConfig.AuctionStrategy = [.waterfall, .bidding, .hybrid][Int(random.next() % 3)]
    let items = networks.enumerated().map { index, id in
      ZoneConfig.LineItem(
        network: id, placementId: "\(id)1", priority: 0, ecpm: Double(10 - index),
        timeoutSeconds: Double(1 + random.next() % 4),
        bidding: strategy != .waterfall && random.chance(0.5))
    }
    let zone = zone(
      items, loadTimeout: Double(2 + random.next() % 8), autoReload: true,
      strategy: items.contains(where: \.bidding) ? strategy : .waterfall,
      auctionTimeout: Double(1 + random.next() % 3))
    var starts: [NetworkID: MediatorOptions.NetworkStart] = [:]
    for id in networks { starts[id] = startMode(&random) }
    let options = MediatorOptions(
      seed: seed, startTimeout: .milliseconds(500 + Int64(random.next() % 40) * 100), networkStarts: starts)
    let scripts = networks.map { id in
      (
        id, startScript(&random), time(&random, below: 2000),
        random.chance(0.7)
      )
    }
    let harness = try Harness(zones: [zone], options: options) { scheduler in
      scripts.map { id, start, delay, fills in
        let load: ScriptedAdapter.LoadScript =
          fills ? .fill(after: delay) : .fail(after: delay, noFill)
        return ScriptedAdapter(
          id: id, scheduler: scheduler, loads: ["\(id)1": [load]],
          bids: ["\(id)1": [.bid(after: delay, price: 5)]], start: start)
      }
    }
    let loadAt = time(&random, below: 4000)
    let ad = try harness.mediator.rewardedAd(zone: "z")
    var everStarted: Set<NetworkID> = []
    var elapsed = Duration.zero
    while elapsed < .seconds(30) {
      if elapsed == loadAt { ad.load() }
      harness.scheduler.advance(by: step)
      elapsed += step
      for status in harness.mediator.adapterStatuses where status.state == .ready {
        everStarted.insert(status.network)
      }
      for (id, adapter) in harness.adapters where !everStarted.contains(id) {
        let requests = adapter.loadRequests.count + adapter.bidRequests.count
        if requests > 0 {
          return "\(id) got \(requests) request(s) before its start completed, at \(elapsed)"
        }
      }
    }
    let outcomes = harness.recorder.events(zone: "z").compactMap { event -> [AdInfo.NetworkResponse]? in
      switch event {
      case .ready(let info): info.responses
      case .failed(let error): error.waterfall
      default: nil
      }
    }
    if outcomes.isEmpty { return "the load never ended" }
    for responses in outcomes {
      for response in responses where !everStarted.contains(response.network) {
        if ![.notStarted, .notAttempted, .skipped].contains(response.state) {
          return "\(response.network) never started but its line item says \(response.state)"
        }
      }
    }
    return nil
  }

  @Test func noRequestReachesAnAdapterBeforeItsStartCompleted() throws {
    var violations: [String] = []
    for run in 0..<Self.runs {
      let seed = 0x57A7_0000 + UInt64(run)
      if let violation = try Self.violation(seed: seed) { violations.append("seed \(seed): \(violation)") }
    }
    #expect(violations.count == 0, "\(violations.count) runs broke the rule; first: \(violations.prefix(3))")
  }
}
