import Foundation
import MediationKit
import Testing

@testable import MediateCLI

/// MediationKit's event log (``ZoneEventLog``, version 1): each event's line, its keys and
/// escaping, and `calibrate`'s reader of it, which counts every line item's fate by the one rule
/// the report export also uses (``AttemptOutcome``).
@Suite("Event log")
struct EventLogTests {
  static let responses = [
    AdInfo.NetworkResponse(
      of: "max", placementID: "b3f1c0d2e4a59687", priority: 0, ecpm: 13.5, state: .loaded,
      latency: .milliseconds(50), bid: 13.5),
    AdInfo.NetworkResponse(
      of: "google", placementID: "g-1", priority: 0, ecpm: 9, state: .outbid, latency: .milliseconds(310),
      bid: 9.5),
    AdInfo.NetworkResponse(
      of: "empower", placementID: "e-1", priority: 1, ecpm: 14, state: .failed, latency: .milliseconds(640),
      error: "no_fill: \"none\"\n"),
    AdInfo.NetworkResponse(
      of: "empower", placementID: "e-2", priority: 2, ecpm: 3, state: .timedOut, latency: .seconds(8)),
    AdInfo.NetworkResponse(of: "empower", placementID: "e-3", priority: 3, ecpm: 1, state: .notAttempted),
  ]

  static func event(_ event: RewardedAdEvent, ms: Int64 = 1_500, network: NetworkID? = "max")
    -> Mediator.ZoneEvent
  {
    Mediator.ZoneEvent(time: .milliseconds(ms), zoneID: "z", network: network, event: event)
  }

  static let info = AdInfo(
    zoneID: "z", network: "max", placementID: "b3f1c0d2e4a59687", ecpm: 13.5, responses: responses,
    latency: .milliseconds(360), precision: .exact, strategy: .hybrid, auctionID: 7)

  @Test func linesForEveryKindOfEvent() {
    #expect(
      ZoneEventLog.line(Self.event(.loading, ms: 0, network: nil))
        == #"{"v":1,"t_ms":0,"zone":"z","event":"loading"}"#)
    #expect(
      ZoneEventLog.line(
        Self.event(.ready(Self.info)), date: "2025-01-07", dimensions: ["country": "US", "a": "b"])
        == #"{"v":1,"t_ms":1500,"date":"2025-01-07","zone":"z","event":"ready","network":"max","dims":{"a":"b","country":"US"},"#
        + #""placement":"b3f1c0d2e4a59687","ecpm":13.5,"precision":"exact","auction_id":7,"strategy":"hybrid","latency_ms":360,"#
        + #""waterfall":[{"network":"max","placement":"b3f1c0d2e4a59687","priority":0,"ecpm":13.5,"state":"loaded","latency_ms":50,"bid":13.5},"#
        + #"{"network":"google","placement":"g-1","priority":0,"ecpm":9.0,"state":"outbid","latency_ms":310,"bid":9.5},"#
        + #"{"network":"empower","placement":"e-1","priority":1,"ecpm":14.0,"state":"failed","latency_ms":640,"error":"no_fill: \"none\"\n"},"#
        + #"{"network":"empower","placement":"e-2","priority":2,"ecpm":3.0,"state":"timed_out","latency_ms":8000},"#
        + #"{"network":"empower","placement":"e-3","priority":3,"ecpm":1.0,"state":"not_attempted"}]}"#)
    #expect(
      ZoneEventLog.line(Self.event(.shown(Self.info)))
        == #"{"v":1,"t_ms":1500,"zone":"z","event":"shown","network":"max","placement":"b3f1c0d2e4a59687","ecpm":13.5,"precision":"exact","auction_id":7}"#
    )
    let revenue = RewardedAdEvent.Revenue(
      network: "max", zoneID: "z", placementID: "b3f1c0d2e4a59687", usd: 0.0135, precision: .exact)
    #expect(
      ZoneEventLog.line(Self.event(.revenuePaid(revenue)))
        == #"{"v":1,"t_ms":1500,"zone":"z","event":"revenue_paid","network":"max","placement":"b3f1c0d2e4a59687","revenue_usd":0.0135,"precision":"exact"}"#
    )
    let reward = Reward(type: "coins", amount: 100, transactionID: "t-1", network: "max", isRedelivery: true)
    #expect(
      ZoneEventLog.line(Self.event(.rewarded(reward)))
        == #"{"v":1,"t_ms":1500,"zone":"z","event":"rewarded","network":"max","reward_type":"coins","reward_amount":100,"transaction_id":"t-1","redelivery":true}"#
    )
    #expect(
      ZoneEventLog.line(Self.event(.failed(MediationError(.noFill, "no fill", waterfall: [])), network: nil))
        == #"{"v":1,"t_ms":1500,"zone":"z","event":"failed","error":"no_fill","message":"no fill","waterfall":[]}"#
    )
    #expect(
      ZoneEventLog.line(Self.event(.diagnostic(.init(.lateReward, "late\u{1}"))))
        == #"{"v":1,"t_ms":1500,"zone":"z","event":"diagnostic","network":"max","kind":"late_reward","message":"late\u0001"}"#
    )
    // Every line is one JSON object a standard parser reads back.
    let line = ZoneEventLog.line(Self.event(.ready(Self.info)), dimensions: ["country": "U\"S"])
    let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    #expect((object?["dims"] as? [String: String])?["country"] == "U\"S")
  }

  @Test func theReaderCountsEachFateAndEachPrice() throws {
    var reader = EventLogReader(zone: "z")
    let revenue = RewardedAdEvent.Revenue(
      network: "empower", zoneID: "z", placementID: "e-1", usd: 0.014, precision: .estimated)
    let lines = [
      ZoneEventLog.line(Self.event(.ready(Self.info)), dimensions: ["country": "us"]),
      ZoneEventLog.line(Self.event(.shown(Self.info))),
      // A bid's impression: its price is the bid, already counted.
      ZoneEventLog.line(
        Self.event(
          .revenuePaid(
            .init(
              network: "max", zoneID: "z", placementID: "b3f1c0d2e4a59687", usd: 0.0135, precision: .exact)))),
      ZoneEventLog.line(
        Self.event(
          .shown(
            AdInfo(
              zoneID: "z", network: "empower", placementID: "e-1", ecpm: 14, responses: [], latency: .zero)))),
      ZoneEventLog.line(Self.event(.revenuePaid(revenue), network: "empower")),
      #"{"v":1,"t_ms":9,"zone":"other","event":"loading"}"#,
      "",
    ]
    try reader.read(lines.joined(separator: "\n"), file: "events.jsonl")
    #expect(reader.lines == 6 && reader.otherZoneLines == 1)
    let max = try #require(
      reader.lineItems[
        ObservedKey(network: "max", placementID: "b3f1c0d2e4a59687", dimensions: ["country=US"])])
    #expect(max.attempts == 1 && max.fills == 1 && max.prices.count == 1 && max.loadLatency.count == 0)
    let google = try #require(
      reader.lineItems[ObservedKey(network: "google", placementID: "g-1", dimensions: ["country=US"])])
    #expect(google.fills == 1 && google.bidLatency.count == 1 && google.prices.count == 1)
    let failed = try #require(
      reader.lineItems[ObservedKey(network: "empower", placementID: "e-1", dimensions: ["country=US"])])
    #expect(failed.noFills == 1 && failed.loadLatency.count == 1)
    let timedOut = try #require(
      reader.lineItems[ObservedKey(network: "empower", placementID: "e-2", dimensions: ["country=US"])])
    #expect(timedOut.unansweredLoads == 1 && timedOut.loads == 1 && timedOut.attempts == 1)
    #expect(
      reader.lineItems[ObservedKey(network: "empower", placementID: "e-3", dimensions: ["country=US"])] == nil
    )
    // The waterfall impression's revenue is a price; it has no dims, so it is its own key.
    let impression = try #require(
      reader.lineItems[ObservedKey(network: "empower", placementID: "e-1", dimensions: [])])
    #expect(impression.impressions == 1 && impression.prices.count == 1)
    #expect(reader.auctions[["country=US"]] == 1)
  }

  @Test(arguments: [
    (
      #"{"v":2,"zone":"z","event":"loading"}"#,
      "events.jsonl: line 1: v: must be 1: this mediate reads version 1 event logs, found 2"
    ),
    (#"{"zone":"z"}"#, "events.jsonl: line 1: v: must be a whole number ≥ 0, found nothing"),
    (
      #"{"v":1,"zone":"z","event":"ready","waterfall":[{"network":"max","placement":"p","state":"won"}]}"#,
      "events.jsonl: line 1: waterfall[0].state: must be a line item state (loaded, failed, timed_out, no_bid, …), found \"won\""
    ),
    (
      #"{"v":1,"zone":"z","event":"ready","waterfall":[{"network":"max","placement":"p","state":"failed","latency_ms":-4}]}"#,
      "events.jsonl: line 1: waterfall[0].latency_ms: must be a whole number ≥ 0, found -4"
    ),
    (
      #"{"v":1,"zone":"z","event":"revenue_paid","network":"max","placement":"p","revenue_usd":0.01,"precision":"rough"}"#,
      "events.jsonl: line 1: precision: must be exact, estimated or publisher_defined, found \"rough\""
    ),
    (
      #"{"v":1,"zone":"z","date":"Jan 7","event":"loading"}"#,
      "events.jsonl: line 1: date: must be a day, YYYY-MM-DD, found \"Jan 7\""
    ),
  ])
  func badLinesAreNamed(line: String, message: String) {
    var reader = EventLogReader(zone: "z")
    do {
      try reader.read(line + "\n", file: "events.jsonl")
      Issue.record("read \(line)")
    } catch {
      #expect(error.message == message)
      #expect(error.kind == .data)
    }
  }

  @Test func aLineThatIsNotJSONIsNamed() {
    var reader = EventLogReader(zone: "z")
    do {
      try reader.read(#"{"v":1,"zone":"z","event":"loading"}"# + "\n{\"v\":1,", file: "events.jsonl")
      Issue.record("read a broken line")
    } catch {
      #expect(error.message.hasPrefix("events.jsonl: line 2: not valid JSON"))
    }
  }
}

extension EventLogTests {
  /// Latencies no network has (a log written in microseconds, say) fit a spread a market file
  /// does not take: it is clamped, and the market file says so, instead of writing a file
  /// `--market` would refuse.
  @Test func absurdDataIsClampedAndSaid() throws {
    let zone = try MediationConfig.load(Data(DefaultConfig.json.utf8), source: "built-in").zone(
      "level_complete")
    var reader = EventLogReader(zone: zone.id)
    let lines = [1, 1_000_000_000_000].map { ms in
      #"{"v":1,"zone":"level_complete","event":"failed","error":"no_fill","message":"","waterfall":[{"network":"max","placement":"b3f1c0d2e4a59687","priority":0,"ecpm":12.5,"state":"failed","latency_ms":\#(ms)}]}"#
    }
    try reader.read(lines.joined(separator: "\n"), file: "events.jsonl")
    let market = try Calibration(zone: zone, segmentation: .none).run(rows: [], log: reader, sources: [])
    let item = market.lineItems[1]
    #expect(item.estimate.loadLatency.sigma == 5 && item.estimate.loadLatency.medianMs <= 600_000)
    #expect(
      item.defaults.contains { $0.field == "loadLatency.sigma" && $0.why.contains("check the data's units") })
    #expect(try MarketFile.read(Data(market.json.utf8), source: "m.json").lineItems.count == 4)
  }
}
