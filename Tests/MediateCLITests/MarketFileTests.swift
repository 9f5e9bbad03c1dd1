import Foundation
import MediationKit
import Testing

@testable import MediateCLI

/// Market files (`--market FILE` from `mediate calibrate`): what they hold, how they are checked,
/// and that the simulated networks really draw fill, price and latency from them.
@Suite("Market files")
struct MarketFileTests {
  static let zone = try! MediationConfig.load(Data(DefaultConfig.json.utf8), source: "built-in").zone(
    "level_complete")

  /// One line item's JSON for a hand-written market file.
  static func item(
    _ network: String, _ placement: String, fill: Double, price: Double, sigma: Double = 0,
    latencyMs: Double = 500,
    noAnswer: Double = 0, extra: String = ""
  ) -> String {
    """
    {"network": "\(network)", "placementId": "\(placement)", "fill": {"probability": \(fill)},
     "noAnswer": {"probability": \(noAnswer)}, "price": {"median": \(price), "sigma": \(sigma)},
     "loadLatency": {"medianMs": \(latencyMs), "sigma": 0}\(extra)}
    """
  }

  static func market(_ items: [String], segments: String = "") -> String {
    """
    {"mediationkitMarket": 1, "zone": "level_complete", \(segments)
     "lineItems": [\(items.joined(separator: ",\n"))]}
    """
  }

  static func read(_ text: String) throws -> MarketFile {
    try MarketFile.read(Data(text.utf8), source: "market.json")
  }

  @Test func aWrittenMarketReadsBackTheSame() throws {
    let estimate = MarketFile.Estimate(
      fill: .init(value: 0.8125, successes: 13, trials: 16, source: "event log"),
      noAnswer: .init(value: 0.0625, successes: 1, trials: 16, source: "event log"),
      price: .init(median: 12.5, sigma: 0.25, observations: 13, sigmaFromData: true, source: "event log"),
      loadLatency: .init(medianMs: 640, sigma: 0.5, observations: 16, source: "event log"),
      bidLatency: .init(medianMs: 250, sigma: 0.375, observations: nil, source: "default"))
    var perCountry = estimate
    perCountry.fill.value = 0.5
    let market = MarketFile(
      zone: "level_complete", segmentBy: "country",
      segments: [.init(name: "DE", share: 0.25, auctions: 4), .init(name: "US", share: 0.75, auctions: 12)],
      lineItems: [
        .init(
          network: "max", placementID: "b3f1c0d2e4a59687", estimate: estimate, segments: ["US": perCountry],
          defaults: [.init(field: "bidLatency", why: "no bid requests")])
      ],
      sources: [.init(kind: "event_log", path: "e.jsonl", summary: "16 lines")], notes: ["a note"])
    #expect(try Self.read(market.json) == market)
  }

  @Test func aHandWrittenMarketNeedsOnlyTheFigures() throws {
    let file = try Self.read(
      Self.market([
        #"{"network": "max", "placementId": "p", "fill": {"probability": 0.5}, "price": {"mean": 10.0, "sigma": 0.25}, "loadLatency": {"medianMs": 700, "sigma": 0.5}}"#
      ]))
    let item = try #require(file.lineItems.first)
    #expect(item.estimate.noAnswer.value == 0 && item.estimate.bidLatency == nil)
    #expect(abs(item.estimate.price.distribution.mean - 10) < 1e-9)
    #expect(!file.hasSampleSizes)
    let behaviour = item.estimate.behaviour
    #expect(behaviour.bidLatency == behaviour.loadLatency)
  }

  @Test(arguments: [
    (
      #""fill": {"probability": 1.3}"#,
      "market.json: lineItems[0].fill.probability: must be a number from 0 to 1, found 1.3"
    ),
    (
      #""fill": {"probabilty": 0.3}"#,
      "market.json: lineItems[0].fill.probabilty: is not a key of this object (known: probability, fills, answered, ci95, source), found 0.3"
    ),
    (
      #""fill": {"probability": 0.5, "fills": 7, "answered": 5}"#,
      "market.json: lineItems[0].fill.fills: must be at most answered (5), found 7"
    ),
    (
      #""fill": {"probability": 0.5}, "noAnswer": {"probability": 0.1, "unanswered": 3, "attempts": 2}"#,
      "market.json: lineItems[0].noAnswer.unanswered: must be at most attempts (2), found 3"
    ),
    (
      #""fill": {"probability": 0.5}, "price": {"sigma": 0.2}"#,
      "market.json: lineItems[0].price.median: must be given (or mean): the price distribution's median, USD per thousand, found nothing"
    ),
  ])
  func badLineItemsAreNamed(fields: String, message: String) {
    let text = Self.market([
      "{\"network\": \"max\", \"placementId\": \"p\", \(fields)"
        + (fields.contains("price") ? "" : #", "price": {"median": 1, "sigma": 0}"#)
        + #", "loadLatency": {"medianMs": 1, "sigma": 0}}"#
    ])
    #expect(throws: CLIError.data(message)) { try Self.read(text) }
  }

  @Test func badDocumentsAreNamed() {
    #expect(
      throws: CLIError.data("market.json: mediationkitMarket is 2; this mediate reads version 1 market files")
    ) {
      try Self.read(#"{"mediationkitMarket": 2, "zone": "z", "lineItems": []}"#)
    }
    let twice = Self.market([
      Self.item("max", "p", fill: 1, price: 1), Self.item("max", "p", fill: 1, price: 1),
    ])
    #expect(
      throws: CLIError.data(
        "market.json: lineItems[1].placementId: must name each line item once (network and placement id), found \"p\""
      )
    ) { try Self.read(twice) }
    let segment = Self.market(
      [Self.item("max", "p", fill: 1, price: 1, extra: #", "segments": {"FR": {}}"#)],
      segments: #""segmentBy": "country", "segments": [{"name": "US", "share": 1}],"#)
    #expect(
      throws: CLIError.data(
        "market.json: lineItems[0].segments.FR: must be one of the market's segments (US), found an object")
    ) { try Self.read(segment) }
    let segmentTwice = Self.market(
      [Self.item("max", "p", fill: 1, price: 1)],
      segments:
        #""segmentBy": "country", "segments": [{"name": "US", "share": 0.5}, {"name": "US", "share": 0.5}],"#)
    #expect(
      throws: CLIError.data("market.json: segments[1].name: must name each segment once, found \"US\"")
    ) { try Self.read(segmentTwice) }
    #expect(
      throws: CLIError.data(
        "market.json: segments: must list the segments when segmentBy is given, found nothing")
    ) { try Self.read(#"{"mediationkitMarket": 1, "zone": "z", "segmentBy": "country", "lineItems": []}"#) }
  }

  /// Runs `requests` sessions of `zone` on `market`.
  static func simulate(_ market: MarketFile, zone: ZoneConfig = zone, requests: Int = 2_000, seed: UInt64 = 5)
    throws
    -> SimulationStats
  {
    var settings = Simulator.Settings(
      zone: zone, networks: BuiltInNetworks.allIDs, seed: seed, requests: requests, keepsFunnel: true)
    settings.calibrated = market.model
    return try Simulator(settings: settings, registry: BuiltInNetworks.registry()).run()
  }

  /// 2,000 sessions: the fill rate's standard error is about 1 point, so 4 points of tolerance
  /// are 4 standard errors; prices and latencies have no spread here, so they are exact.
  @Test func theNetworksFillPriceAndAnswerAsTheMarketSays() throws {
    let market = try Self.read(
      Self.market([
        Self.item("empower", "emp-level-complete-high", fill: 0.3, price: 40, latencyMs: 2_000),
        Self.item("max", "b3f1c0d2e4a59687", fill: 1, price: 7, latencyMs: 300, noAnswer: 1),
        Self.item("google", "ca-app-pub-3940256099942544/1712485313", fill: 0, price: 9),
        Self.item("empower", "emp-level-complete-floor", fill: 0, price: 3),
      ]))
    let stats = try Self.simulate(market)
    #expect(abs(stats.fillRate - 0.3) < 0.04, "fill \(stats.fillRate)")
    #expect(abs(stats.averageECPM - 40) < 1e-6, "eCPM \(stats.averageECPM)")
    // Every fill took the drawn 2 s (after the 1 s start-up wait, measured from the session's start).
    #expect(stats.readyLatency.quantile(0.01) == 2_000 && stats.readyLatency.quantile(0.99) == 2_000)
    let funnel = stats.funnel.counts
    let max = try #require(funnel[.init(priority: 0, network: "max", placementID: "b3f1c0d2e4a59687")])
    // A line item that never answers times out, every time it is asked.
    #expect(max[.timedOut] ?? 0 > 1_000 && max[.loaded] == nil && max[.failed] == nil)
    // The oracle quotes what the loads do: the one filling line item's fills are all it counts.
    #expect(abs(stats.oracleRevenueUSD - Double(stats.fills) * 0.04) < 1e-6)
  }

  /// A line item the market does not list keeps its simulated network's own behaviour: the same
  /// draws as without a market.
  @Test func unlistedLineItemsKeepTheBuiltInBehaviour() throws {
    var zone = Self.zone
    zone.lineItems = [zone.lineItems[1]]
    let market = try Self.read(
      Self.market([Self.item("empower", "emp-level-complete-high", fill: 1, price: 1)]))
    let without = try Simulator(
      settings: Simulator.Settings(zone: zone, networks: BuiltInNetworks.allIDs, seed: 3, requests: 500),
      registry: BuiltInNetworks.registry()
    ).run()
    let with = try Self.simulate(market, zone: zone, requests: 500, seed: 3)
    #expect(with.revenueUSD == without.revenueUSD && with.fills == without.fills)
    #expect(with.readyLatency == without.readyLatency)
  }

  /// 3,000 sessions: a segment's share and fill are known to about 1 point; the tolerance is 4.
  @Test func segmentsSplitTheTrafficAndOneCanBeChosen() throws {
    let segments =
      #""segmentBy": "country", "segments": [{"name": "US", "share": 0.7}, {"name": "DE", "share": 0.3}],"#
    let de =
      #", "segments": {"DE": {"fill": {"probability": 0.2}, "price": {"median": 5, "sigma": 0}, "loadLatency": {"medianMs": 500, "sigma": 0}}}"#
    var zone = Self.zone
    zone.lineItems = [zone.lineItems[0]]
    let market = try Self.read(
      Self.market(
        [Self.item("empower", "emp-level-complete-high", fill: 0.9, price: 20, extra: de)], segments: segments
      ))
    let mixed = try Self.simulate(market, zone: zone, requests: 3_000)
    #expect(abs(mixed.fillRate - (0.7 * 0.9 + 0.3 * 0.2)) < 0.04, "fill \(mixed.fillRate)")
    let germany = try Self.simulate(
      try market.selecting(dimension: "country", value: "DE", path: "m", command: .run), zone: zone,
      requests: 3_000)
    #expect(abs(germany.fillRate - 0.2) < 0.04 && abs(germany.averageECPM - 5) < 1e-6)
  }

  /// Resampling moves counted figures by their uncertainty and leaves the rest; the same draws
  /// give the same market.
  @Test func resamplingMovesWhatTheDataCounted() throws {
    let counted = MarketFile.Estimate(
      fill: .init(value: 0.5, successes: 10, trials: 20, source: "event log"),
      noAnswer: .init(value: 0, successes: nil, trials: nil, source: "default"),
      price: .init(median: 10, sigma: 0.25, observations: 20, sigmaFromData: true, source: "event log"),
      loadLatency: .init(medianMs: 500, sigma: 0.5, observations: nil, source: "default"), bidLatency: nil)
    let market = MarketFile(
      zone: "z", lineItems: [.init(network: "max", placementID: "p", estimate: counted)])
    var first = Draws(random: SeededRandom(seed: 9))
    var second = Draws(random: SeededRandom(seed: 9))
    let fills = (0..<400).map { _ in market.resampled(&first).lineItems[0].estimate }
    #expect(fills[0] == market.resampled(&second).lineItems[0].estimate)
    let values = fills.map(\.fill.value)
    let mean = values.reduce(0, +) / Double(values.count)
    let spread = (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count - 1))
      .squareRoot()
    // Beta(10.5, 10.5): mean 0.5, standard deviation 0.107; 400 draws pin both to ±0.02.
    #expect(abs(mean - 0.5) < 0.02 && abs(spread - 0.107) < 0.02, "mean \(mean) sd \(spread)")
    #expect(fills.allSatisfy { $0.loadLatency == counted.loadLatency })
    #expect(Set(fills.map(\.price.median)).count > 300)
  }
}

extension MarketFileTests {
  /// A zone with experiments runs each arm on the market too (500 sessions; every line item the
  /// market lists never fills, so none of them fills).
  @Test func armsOfAnExperimentRunOnTheMarket() throws {
    var config = try MediationConfig.load(Data(DefaultConfig.json.utf8), source: "built-in")
    var zone = try config.zone("level_complete")
    zone.experiments = [
      ZoneConfig.Experiment(
        id: "test",
        arms: [.init(id: "control", weight: 1), .init(id: "hybrid", weight: 1, strategy: .hybrid)])
    ]
    config.zones = [zone]
    let directory = CalibrateCommandTests.directory()
    let configPath = CalibrateCommandTests.write(ConfigFileWriter.json(config), "zones.json", in: directory)
    let market = CalibrateCommandTests.write(
      Self.market(zone.lineItems.map { Self.item($0.network.rawValue, $0.placementId, fill: 0, price: 1) }),
      "m.json",
      in: directory)
    let result = mediate(
      ["--config", configPath, "--requests", "500", "--market", market, "--json"],
      registry: BuiltInNetworks.registry())
    #expect(result.code == 0, "\(result.err)")
    let line = try #require(result.out.first)
    let report = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    #expect(report["fill_rate"] as? Double == 0)
    #expect((report["arms"] as? [String: Any])?.count == 2)
  }
}
