import Foundation
import MediationKit

/// What MediationKit's event log says of one line item in one segment.
struct LineItemObservations: Equatable {
  /// Requests to the line item (loads and bid requests), and their outcomes (``AttemptOutcome``).
  var attempts = 0
  var fills = 0
  var noFills = 0
  /// Waterfall loads and bid requests, and those of each never answered.
  var loads = 0
  var unansweredLoads = 0
  var bidRequests = 0
  var unansweredBids = 0
  /// Latencies of the loads and bid requests it answered, in seconds.
  var loadLatency = LogMoments()
  var bidLatency = LogMoments()
  /// Prices it gave, USD per thousand: every bid, and the `revenue_paid` of every impression it
  /// won in a waterfall with a price the network reported (`exact` or `estimated`; a
  /// `publisher_defined` one is the configured eCPM and says nothing).
  var prices = LogMoments()
  /// Impressions and what they paid, whatever the precision.
  var impressions = 0
  var revenueUSD = 0.0

  var answered: Int { fills + noFills }

  mutating func merge(_ other: LineItemObservations) {
    attempts += other.attempts
    fills += other.fills
    noFills += other.noFills
    loads += other.loads
    unansweredLoads += other.unansweredLoads
    bidRequests += other.bidRequests
    unansweredBids += other.unansweredBids
    loadLatency.merge(other.loadLatency)
    bidLatency.merge(other.bidLatency)
    prices.merge(other.prices)
    impressions += other.impressions
    revenueUSD += other.revenueUSD
  }
}

/// A line item and the segment values of the traffic it was seen in.
struct ObservedKey: Hashable {
  var network: NetworkID
  var placementID: String
  /// The line's `dims`, sorted (`country=US`), empty without.
  var dimensions: [String]
}

/// Reads MediationKit's event log (``ZoneEventLog``, version 1) for one zone: per line item and
/// segment, what each auction's waterfall says (``AttemptOutcome``) and what each impression paid.
/// Lines of other zones are counted and skipped; every line is checked, and a bad one is named by
/// its file, line and field.
struct EventLogReader {
  let zone: String
  private(set) var lineItems: [ObservedKey: LineItemObservations] = [:]
  /// Auctions (a `ready` or `failed`) per segment values.
  private(set) var auctions: [[String]: Int] = [:]
  private(set) var lines = 0
  private(set) var otherZoneLines = 0
  private(set) var days: Set<String> = []
  /// Whether the last `shown` was a bid's ad (its precision `exact`): its revenue is no new price.
  private var shownFromBid = false

  init(zone: String) { self.zone = zone }

  /// Reads every line of `text`.
  mutating func read(_ text: String, file: String) throws(CLIError) { try read(Data(text.utf8), file: file) }

  /// Reads every line of `data` (UTF-8 JSON Lines; a byte order mark and blank lines are skipped).
  mutating func read(_ data: Data, file: String) throws(CLIError) {
    // The lines' byte ranges, found in one pass over the bytes (indexing `Data` byte by byte is slow).
    let ranges = data.withUnsafeBytes { bytes -> [Range<Int>] in
      var ranges: [Range<Int>] = []
      var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
      for index in bytes.indices where bytes[index] == 0x0A {
        ranges.append(start..<index)
        start = index + 1
      }
      if start < bytes.count { ranges.append(start..<bytes.count) }
      return ranges
    }
    for (number, range) in ranges.enumerated() {
      let line = data.subdata(in: (data.startIndex + range.lowerBound)..<(data.startIndex + range.upperBound))
      guard line.contains(where: { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 }) else { continue }
      try readLine(JSONField.document(line, source: file, line: number + 1))
    }
  }

  private mutating func readLine(_ line: JSONField) throws(CLIError) {
    lines += 1
    let version = try line["v"].count()
    guard version == ZoneEventLog.version else {
      throw line["v"].mismatch(
        "must be \(ZoneEventLog.version): this mediate reads version \(ZoneEventLog.version) event logs")
    }
    guard try line["zone"].string() == zone else {
      otherZoneLines += 1
      return
    }
    if let date = try line["date"].optionalString() {
      guard let day = ReportDay.normalized(date) else {
        throw line["date"].mismatch("must be a day, YYYY-MM-DD")
      }
      days.insert(day)
    }
    var dimensions: [String] = []
    if !line["dims"].isMissing {
      for (key, field) in try line["dims"].objectFields() {
        let value = try field.string().trimmingCharacters(in: .whitespaces)
        dimensions.append("\(key)=\(key == "country" ? value.uppercased() : value)")
      }
    }
    switch try line["event"].string() {
    case "ready", "failed":
      auctions[dimensions, default: 0] += 1
      for response in try line["waterfall"].array() { try record(response, dimensions) }
    case "shown":
      shownFromBid = try line["precision"].optionalString() == AdapterSignal.RevenuePrecision.exact.rawValue
    case "revenue_paid":
      let key = ObservedKey(
        network: NetworkID(try line["network"].name()), placementID: try line["placement"].name(),
        dimensions: dimensions)
      let usd = try line["revenue_usd"].number(in: 0...1_000)
      guard let precision = AdapterSignal.RevenuePrecision(rawValue: try line["precision"].string()) else {
        throw line["precision"].mismatch("must be exact, estimated or publisher_defined")
      }
      lineItems[key, default: LineItemObservations()].impressions += 1
      lineItems[key, default: LineItemObservations()].revenueUSD += usd
      if precision != .publisherDefined && !shownFromBid {
        lineItems[key, default: LineItemObservations()].prices.add(usd * 1000)
      }
    default:
      break
    }
  }

  /// One line item's response in an auction.
  private mutating func record(_ response: JSONField, _ dimensions: [String]) throws(CLIError) {
    let stateText = try response["state"].string()
    guard let state = AdInfo.NetworkResponse.State(rawValue: stateText) else {
      throw response["state"].mismatch("must be a line item state (loaded, failed, timed_out, no_bid, …)")
    }
    let bid = try response["bid"].optionalNumber(in: 0...MediationConfig.Limits.maxECPM)
    let latency = try response["latency_ms"].optionalCount()
    let outcome = AttemptOutcome(state, bid: bid)
    guard outcome.isAttempt,
      let request = AttemptOutcome.request(state, bid: bid, error: try response["error"].optionalString())
    else { return }
    let key = ObservedKey(
      network: NetworkID(try response["network"].name()), placementID: try response["placement"].name(),
      dimensions: dimensions)
    var observed = lineItems[key] ?? LineItemObservations()
    observed.attempts += 1
    switch outcome {
    case .fill: observed.fills += 1
    case .noFill: observed.noFills += 1
    case .noAnswer, .notAsked: break
    }
    switch request {
    case .load:
      observed.loads += 1
      if outcome == .noAnswer { observed.unansweredLoads += 1 }
    case .bid:
      observed.bidRequests += 1
      if outcome == .noAnswer { observed.unansweredBids += 1 }
    }
    if let bid { observed.prices.add(bid) }
    if let latency, let timed = AttemptOutcome.timed(state, bid: bid) {
      switch timed {
      case .load: observed.loadLatency.add(Double(latency) / 1000)
      case .bid: observed.bidLatency.add(Double(latency) / 1000)
      }
    }
    lineItems[key] = observed
  }
}
