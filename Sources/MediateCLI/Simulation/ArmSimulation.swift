import Foundation
import MediationKit

/// The simulator on a zone with A/B tests: the simulated requests come from a population of
/// seeded users, each user in its arms by the engine's own assignment (``ZoneConfig/variant(forUser:)``),
/// and each combination of arms is served by its own simulation of the variant zone — as the
/// users of that arm would be served by their own mediators. Totals are the sum of the
/// combinations, each arm's figures the sum of the combinations it is part of.
///
/// Requests are drawn from users uniformly (a user makes several requests), so an arm's share of
/// the requests is its weight's share up to the sampling noise of `population` users.
struct ArmSimulation {
  /// How many distinct users the requests come from.
  static let population = 10_000

  /// One arm's figures (or the figures of all of them, for the total).
  struct Figures {
    var stats = SimulationStats()
    var wallSeconds = 0.0
    /// Whether the arm's variant learns its eCPMs (its report then has the first/last tenth).
    var learnsECPMs = false
  }

  struct Result {
    var total: Figures
    /// Keyed by arm id (`experiment/arm` when the zone runs several experiments), in the zone's
    /// experiment and arm order.
    var arms: [(key: String, figures: Figures)]
  }

  let settings: Simulator.Settings
  let registry: AdapterRegistry

  /// The arm key of `arm` in `experiment`: the arm id, qualified by the experiment's when the
  /// zone runs more than one.
  static func key(experiment: String, arm: String, experiments: Int) -> String {
    experiments == 1 ? arm : "\(experiment)/\(arm)"
  }

  /// The simulated users' ids: seeded, so a seed always gives the same population.
  static func userIDs(seed: UInt64) -> [String] {
    (0..<population).map { index in
      var random = SeededRandom(seed: seed).derived("user", UInt64(index))
      return "user-" + String(random.next(), radix: 16)
    }
  }

  /// How many of `requests` requests each arm combination gets, by drawing each request's user.
  /// Combinations are lists of arm ids, one per experiment in the zone's order.
  static func split(zone: ZoneConfig, requests: Int, seed: UInt64) -> [(arms: [String], requests: Int)] {
    let combos = userIDs(seed: seed).map { user in
      zone.experiments.map { $0.arm(forUser: user)?.id ?? "" }
    }
    var draw = SeededRandom(seed: seed).derived("requests")
    var counts: [[String]: Int] = [:]
    for _ in 0..<requests {
      let user = Int(draw.next().multipliedFullWidth(by: UInt64(population)).high)
      counts[combos[user], default: 0] += 1
    }
    // In the zone's arm order, so merges (and their floating-point sums) are the same every run.
    func rank(_ combo: [String]) -> [Int] {
      zip(zone.experiments, combo).map { experiment, arm in
        experiment.arms.firstIndex { $0.id == arm } ?? Int.max
      }
    }
    return counts.map { (arms: $0.key, requests: $0.value) }
      .sorted { rank($0.arms).lexicographicallyPrecedes(rank($1.arms)) }
  }

  func run(progress: (@Sendable (Int) -> Void)? = nil) throws(MediationError) -> Result {
    let zone = settings.zone
    var total = Figures(learnsECPMs: zone.autoECPM && zone.strategy != .bidding)
    var arms: [String: Figures] = [:]
    var done = 0
    for (combo, requests) in Self.split(zone: zone, requests: settings.requests, seed: settings.seed) {
      var variant = zone
      for (experiment, armID) in zip(zone.experiments, combo) {
        if let arm = experiment.arms.first(where: { $0.id == armID }) { variant.apply(arm) }
      }
      variant.experiments = []
      var sub = settings
      sub.zone = ServerCallbackChecks.withoutCallbacks(variant)
      sub.requests = requests
      var comboSeed = SeededRandom(seed: settings.seed).derived("arms/" + combo.joined(separator: "\u{1F}"))
      sub.seed = comboSeed.next()
      let offset = done
      let started = ContinuousClock.now
      var shifted: (@Sendable (Int) -> Void)?
      if let progress { shifted = { done in progress(offset + done) } }
      let stats = try Simulator(settings: sub, registry: registry).run(progress: shifted)
      let wall = (ContinuousClock.now - started).seconds
      done += requests
      total.stats.merge(stats)
      total.wallSeconds += wall
      for (experiment, armID) in zip(zone.experiments, combo) {
        let key = Self.key(experiment: experiment.id, arm: armID, experiments: zone.experiments.count)
        arms[key, default: Figures(learnsECPMs: variant.autoECPM && variant.strategy != .bidding)].stats
          .merge(stats)
        arms[key]?.wallSeconds += wall
      }
    }
    // Every arm is listed, with zero figures when no simulated user fell in it.
    var ordered: [(key: String, figures: Figures)] = []
    for experiment in zone.experiments {
      for arm in experiment.arms {
        let key = Self.key(experiment: experiment.id, arm: arm.id, experiments: zone.experiments.count)
        ordered.append((key, arms[key] ?? Figures()))
      }
    }
    return Result(total: total, arms: ordered)
  }
}
