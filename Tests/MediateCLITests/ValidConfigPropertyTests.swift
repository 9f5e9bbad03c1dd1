import Foundation
import MediateCLI
import MediationKit
import MediationKitSimulation
import Testing

/// Whatever a server sends that validation accepts, the engine and every network runs: random
/// configurations, every numeric field drawn across its whole documented range (edges included),
/// each run as a cycle and as 300 simulated requests on each built-in network without a trap.
@Suite("Valid configurations run on every network")
struct ValidConfigPropertyTests {
  /// A value of a field whose range is `low...high` (`low` excluded when `lowOpen`): an edge,
  /// the smallest positive number, or a draw across the range, uniform or by order of magnitude.
  static func draw(_ random: inout SeededRandom, _ low: Double, _ high: Double, lowOpen: Bool = false)
    -> Double
  {
    let lowest = lowOpen ? .leastNonzeroMagnitude : low
    switch random.next() % 6 {
    case 0: return lowest
    case 1: return high
    case 2: return lowOpen ? 1e-300 : low
    case 3: return high.nextDown
    case 4: return lowest + (high - lowest) * random.nextUnit()
    default: return max(lowest, min(high, pow(10, -12 + (log10(high) + 12) * random.nextUnit())))
    }
  }

  static func integer(_ random: inout SeededRandom, _ low: Int, _ high: Int) -> Int {
    switch random.next() % 4 {
    case 0: return low
    case 1: return high
    default: return low + Int(random.next() % UInt64(high - low + 1))
    }
  }

  static let placements: [String: [String]] = [
    "empower": ["emp-level-complete-high", "emp-a", "emp-b"],
    "max": ["b3f1c0d2e4a59687", "7c2e9a41d0b36f58", "e5d4c3b2a1908f7e"],
    "google": [
      "ca-app-pub-3940256099942544/1712485313", "ca-app-pub-3940256099942544/5224354917",
      "ca-app-pub-3940256099942544/6978759866",
    ],
  ]

  static func lineItems(_ random: inout SeededRandom, network: String, bidder: Bool) -> [ZoneConfig.LineItem]
  {
    let ids = placements[network] ?? []
    let count = 1 + Int(random.next() % UInt64(ids.count))
    return (0..<count).map { index in
      ZoneConfig.LineItem(
        network: NetworkID(network), placementId: ids[index],
        priority: integer(&random, 0, MediationConfig.Limits.maxPriority),
        ecpm: draw(&random, 0, MediationConfig.Limits.maxECPM),
        timeoutSeconds: draw(&random, 0, MediationConfig.Limits.maxLineItemTimeout, lowOpen: true),
        bidding: (bidder && index == 0) || random.chance(0.3),
        bidFloor: draw(&random, 0, MediationConfig.Limits.maxECPM))
    }
  }

  static func config(seed: UInt64, network: String) -> MediationConfig {
    var random = SeededRandom(seed: seed).derived(network)
    let strategy = ZoneConfig.AuctionStrategy.allCases[Int(random.next() % 3)]
    let experiments: [ZoneConfig.Experiment] =
      random.chance(0.5)
      ? [
        ZoneConfig.Experiment(
          id: "e",
          arms: [
            .init(id: "control", weight: integer(&random, 1, MediationConfig.Limits.maxArmWeight)),
            .init(
              id: "other", weight: integer(&random, 1, MediationConfig.Limits.maxArmWeight),
              lineItems: random.chance(0.5) ? lineItems(&random, network: network, bidder: true) : nil,
              strategy: random.chance(0.5)
                ? ZoneConfig.AuctionStrategy.allCases[Int(random.next() % 3)] : nil,
              auctionTimeoutSeconds: random.chance(0.5)
                ? draw(&random, 0, MediationConfig.Limits.maxAuctionTimeout, lowOpen: true) : nil),
          ])
      ] : []
    let caps =
      random.chance(0.5)
      ? ZoneConfig.FrequencyCaps(
        maxPerHour: random.chance(0.7) ? integer(&random, 1, MediationConfig.Limits.maxShowsPerCap) : nil,
        maxPerDay: random.chance(0.7) ? integer(&random, 1, MediationConfig.Limits.maxShowsPerCap) : nil,
        minIntervalSeconds: random.chance(0.7) ? draw(&random, 0, MediationConfig.Limits.maxAdExpiry) : nil)
      : nil
    let zone = ZoneConfig(
      id: "z\(seed)",
      reward: .init(type: "coins", amount: integer(&random, 1, MediationConfig.Limits.maxRewardAmount)),
      lineItems: lineItems(&random, network: network, bidder: true),
      loadTimeoutSeconds: draw(&random, 0, MediationConfig.Limits.maxLoadTimeout, lowOpen: true),
      adExpirySeconds: draw(&random, 0, MediationConfig.Limits.maxAdExpiry, lowOpen: true),
      rewardGraceSeconds: draw(&random, 0, MediationConfig.Limits.maxRewardGrace),
      autoReload: random.chance(0.5),
      strategy: strategy,
      auctionTimeoutSeconds: draw(&random, 0, MediationConfig.Limits.maxAuctionTimeout, lowOpen: true),
      caps: caps, queueDepth: integer(&random, 1, MediationConfig.Limits.maxQueueDepth),
      experiments: experiments,
      autoECPM: strategy != .bidding && random.chance(0.5))
    return MediationConfig(zones: [zone], version: "property-\(seed)")
  }

  @Test(arguments: ["empower", "max", "google"])
  func randomValidConfigurationsRunACycleAnd300Requests(network: String) throws {
    let encoder = JSONEncoder()
    var ran = 0
    for seed in UInt64(1)...30 {
      let config = Self.config(seed: seed, network: network)
      guard config.validate(knownNetworks: ["empower", "google", "max"]).isEmpty else { continue }
      let data = try encoder.encode(config)
      let path = temporaryFile(String(decoding: data, as: UTF8.self))
      defer { try? FileManager.default.removeItem(atPath: path) }
      #expect(
        mediate(["validate", path]).code == 0, "seed \(seed): \(String(decoding: data, as: UTF8.self))")
      let networks: ((any ServerCallbackSender)?) -> AdapterRegistry = { _ in BuiltInNetworks.registry() }
      let cycle = mediate(["--config", path, "--networks", network, "--json"], networks: networks)
      #expect(cycle.code == 0 || cycle.code == 1, "seed \(seed): \(cycle.err)")
      let requests = mediate(
        ["--config", path, "--networks", network, "--requests", "300", "--seed", "\(seed)", "--json"],
        networks: networks)
      #expect(requests.code == 0, "seed \(seed): \(requests.err)")
      ran += 1
    }
    #expect(ran >= 25)
  }
}
