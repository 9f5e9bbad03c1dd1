import Foundation
import MediationKit

/// `mediate calibrate`'s logic, without I/O: the rows of the vendors' reports and what the event
/// log saw, matched to a zone's line items (by network and placement id), split by segment, and
/// estimated into a ``MarketFile`` that says where each figure came from and which defaults it used.
struct Calibration {
  /// How to split the market.
  enum Segmentation: Equatable {
    /// By country when every source has countries; else not at all.
    case automatic
    case none
    case by(String)
  }

  /// Report counts of one line item in one segment (or over all of them).
  struct ReportCounts: Equatable {
    var attempts = 0
    var responses = 0
    var impressions = 0
    var revenueUSD = 0.0
    var hasFill = false
    var hasRevenue = false

    mutating func add(_ row: ReportRow) {
      if let attempts = row.attempts, let responses = row.responses {
        self.attempts = Self.sum(self.attempts, attempts)
        self.responses = Self.sum(self.responses, responses)
        hasFill = true
      }
      if let impressions = row.impressions, let revenue = row.revenueUSD {
        self.impressions = Self.sum(self.impressions, impressions)
        revenueUSD += revenue
        hasRevenue = true
      }
    }

    /// `a + b`, held at `Int.max`: a report's every cell is a valid count, yet enough of them
    /// could add up past it.
    static func sum(_ a: Int, _ b: Int) -> Int {
      let (sum, overflow) = a.addingReportingOverflow(b)
      return overflow ? .max : sum
    }
  }

  /// What is known of one line item in one segment, by source.
  struct Evidence {
    var log: LineItemObservations?
    var reports: [ReportRow.Kind: ReportCounts] = [:]
  }

  /// A segment figure rests on at least this many observations, else the overall one is used.
  static let minimumSegmentSample = 30
  /// A price distribution's spread is fitted from at least this many prices, else a default.
  static let minimumPrices = 30

  let zone: ZoneConfig
  let segmentation: Segmentation

  /// The market, with the rows and responses that matched no line item listed in its notes.
  func run(rows: [ReportRow], log: EventLogReader?, sources: [MarketFile.Source]) throws(CLIError)
    -> MarketFile
  {
    var segmentationNote: String?
    let dimension = try segmentDimension(rows: rows, log: log, automaticNote: &segmentationNote)
    var pooled = [Evidence](repeating: Evidence(), count: zone.lineItems.count)
    var bySegment: [String: [Evidence]] = [:]
    var notes: [String] = []
    var unmatched: [String] = []
    func add(_ index: Int, _ segment: String?, _ update: (inout Evidence) -> Void) {
      update(&pooled[index])
      if let segment {
        update(
          &bySegment[segment, default: [Evidence](repeating: Evidence(), count: zone.lineItems.count)][index])
      }
    }
    for row in rows {
      guard let index = lineItem(for: row) else {
        unmatched.append(
          "\(row.file) \(row.place): network '\(row.networkName)', placement '\(row.placement)'"
            + (row.network == nil ? " (a network mediate does not know)" : ""))
        continue
      }
      add(index, dimension.flatMap { row.dimensions[$0] }) {
        $0.reports[row.kind, default: ReportCounts()].add(row)
      }
    }
    var auctions: [String: Int] = [:]
    if let log {
      for (key, observed) in log.lineItems.sorted(by: { "\($0.key)" < "\($1.key)" }) {
        guard
          let index = zone.lineItems.firstIndex(where: {
            $0.network == key.network && $0.placementId == key.placementID
          })
        else {
          unmatched.append(
            "event log: \(observed.attempts) responses and \(observed.impressions) impressions of network "
              + "'\(key.network)', placement '\(key.placementID)'")
          continue
        }
        add(index, dimension.flatMap { Self.value(of: $0, in: key.dimensions) }) { evidence in
          var merged = evidence.log ?? LineItemObservations()
          merged.merge(observed)
          evidence.log = merged
        }
      }
      if let dimension {
        for (values, count) in log.auctions {
          auctions[Self.value(of: dimension, in: values) ?? "", default: 0] += count
        }
      }
    }
    if !unmatched.isEmpty {
      notes.append(
        "\(unmatched.count) row(s) or line item(s) in the data match no line item of zone '\(zone.id)' and were "
          + "not used: " + unmatched.prefix(10).joined(separator: "; ") + (unmatched.count > 10 ? "; …" : ""))
    }
    if let segmentationNote { notes.append(segmentationNote) }
    var market = MarketFile(
      zone: zone.id, segmentBy: dimension, lineItems: [], sources: sources, notes: notes)
    market.segments = segments(bySegment: bySegment, auctions: auctions)
    for (index, item) in zone.lineItems.enumerated() {
      var defaults: [MarketFile.Default] = []
      let builtIn = BuiltInNetworks.builtInEstimate(for: item.network, ecpm: item.ecpm)
      let overall = estimate(item, pooled[index], fallback: builtIn, minimum: 1, field: "", &defaults)
      var entry = MarketFile.LineItem(network: item.network, placementID: item.placementId, estimate: overall)
      for segment in market.segments {
        guard let evidence = bySegment[segment.name]?[index] else { continue }
        entry.segments[segment.name] = estimate(
          item, evidence, fallback: overall, minimum: Self.minimumSegmentSample,
          field: "segments.\(segment.name).", &defaults)
      }
      entry.defaults = defaults
      if let note = disagreement(item, index, pooled[index]) { market.notes.append(note) }
      market.lineItems.append(entry)
    }
    return market
  }

  /// The line item a report row is about: its network's line item whose placement id is the
  /// row's (the first candidate that is one); with no placement id at all, the network's only line
  /// item of the zone.
  func lineItem(for row: ReportRow) -> Int? {
    guard let network = row.network else { return nil }
    let ofNetwork = zone.lineItems.indices.filter { zone.lineItems[$0].network == network }
    for candidate in row.placementCandidates where !candidate.isEmpty {
      if let index = ofNetwork.first(where: { zone.lineItems[$0].placementId == candidate }) { return index }
    }
    return row.placementCandidates.allSatisfy(\.isEmpty) && ofNetwork.count == 1 ? ofNetwork[0] : nil
  }

  static func value(of dimension: String, in values: [String]) -> String? {
    values.first { $0.hasPrefix(dimension + "=") }.map { String($0.dropFirst(dimension.count + 1)) }
  }

  /// The dimension to split by: every source must have it. Automatic segmentation that some
  /// sources would allow and others do not sets `automaticNote` to say why it did not split.
  private func segmentDimension(rows: [ReportRow], log: EventLogReader?, automaticNote: inout String?)
    throws(CLIError) -> String?
  {
    let wanted: String
    switch segmentation {
    case .none: return nil
    case .by(let dimension): wanted = dimension
    case .automatic: wanted = "country"
    }
    let rowWithout = rows.first { ($0.dimensions[wanted] ?? "").isEmpty }
    let logKeys = (log?.lineItems.keys.map(\.dimensions) ?? []) + (log?.auctions.keys.map { $0 } ?? [])
    let logWithout = logKeys.contains { Self.value(of: wanted, in: $0) == nil }
    guard rowWithout != nil || logWithout else { return rows.isEmpty && logKeys.isEmpty ? nil : wanted }
    let which =
      rowWithout.map { "\($0.file) (\($0.place) has no \(wanted))" }
      ?? "the event log (a line without \"dims\":{\"\(wanted)\":…})"
    if segmentation == .automatic {
      let someHave =
        rows.contains { !($0.dimensions[wanted] ?? "").isEmpty }
        || logKeys.contains { Self.value(of: wanted, in: $0) != nil }
      if someHave {
        automaticNote = "not split by country: \(which); countries need every source to have them"
      }
      return nil
    }
    throw .usage(
      "--segment-by \(wanted): every source must have it, and \(which) does not; use --segment-by none to pool",
      .calibrate)
  }

  /// The segments and their shares: auctions in the event log, else the line items' most
  /// attempts in the reports (the top of a waterfall, and every bidder, is asked in every auction).
  private func segments(bySegment: [String: [Evidence]], auctions: [String: Int]) -> [MarketFile.Segment] {
    let names = Set(bySegment.keys).union(auctions.keys.filter { !$0.isEmpty }).sorted()
    let counts = names.map { name -> Int in
      if let count = auctions[name], count > 0 { return count }
      return (bySegment[name] ?? []).map { $0.reports.values.map(\.attempts).max() ?? 0 }.max() ?? 0
    }
    let total = counts.reduce(0, ReportCounts.sum)
    return zip(names, counts).map { name, count in
      MarketFile.Segment(
        name: name, share: total > 0 ? Double(count) / Double(total) : 1 / Double(names.count),
        auctions: count)
    }
  }
}
