import Foundation
import MediationKit

/// An AdMob API mediation report: the JSON array `accounts.mediationReport:generate` returns — a
/// `header` (its `localizationSettings.currencyCode` must be USD), `row`s, and a `footer`.
///
/// Each row's `dimensionValues` (a `value` and a `displayLabel` each) give:
/// - `AD_SOURCE` (required): the network, by its label (`AdMob Network`, `AppLovin`, a custom
///   event's name) or the AdMob Network's id;
/// - `AD_SOURCE_INSTANCE`: the line item, whose label is its placement id (name the instances
///   after the third-party placements); for the AdMob Network, the placement is the `AD_UNIT`;
/// - `DATE` (`YYYYMMDD` or `YYYY-MM-DD`), `COUNTRY` and any other dimension: days and segments;
/// - `APP`: the app; `FORMAT`: must be `REWARDED`.
///
/// Its `metricValues` (`integerValue` and `microsValue` as strings or numbers, `doubleValue` as a
/// number) give `AD_REQUESTS` (attempts), `MATCHED_REQUESTS` (fills), `IMPRESSIONS` and
/// `ESTIMATED_EARNINGS` (micros of USD); `MATCH_RATE` and `OBSERVED_ECPM` are checked and derived
/// again. A metric a row leaves out is unknown for that row, as the API documents.
enum AdMobReport {
  static func rows(_ data: Data, file: String, networks: ReportNetworks) throws(CLIError) -> [ReportRow] {
    let document = try JSONField.document(data, source: file)
    var rows: [ReportRow] = []
    for entry in try document.array() {
      let header = entry["header"]
      if !header.isMissing {
        let currency = header["localizationSettings"]["currencyCode"]
        if !currency.isMissing, try currency.string().uppercased() != "USD" {
          throw currency.mismatch(
            "must be USD: calibrate compares prices in US dollars (request the report with "
              + "localizationSettings.currencyCode USD)")
        }
        continue
      }
      if !entry["footer"].isMissing { continue }
      let row = entry["row"]
      guard !row.isMissing else { throw entry.mismatch("must be a header, a row or a footer") }
      rows.append(try read(row, file: file, networks: networks))
    }
    return rows
  }

  private static func read(_ row: JSONField, file: String, networks: ReportNetworks) throws(CLIError)
    -> ReportRow
  {
    let dimensionFields = try row["dimensionValues"].objectFields()
    var dimensions: [String: String] = [:]
    var labels: [String: String] = [:]
    for (name, field) in dimensionFields {
      let value = try field["value"].optionalString() ?? ""
      labels[name] = try field["displayLabel"].optionalString()
      dimensions[name.lowercased()] = name == "COUNTRY" ? value.uppercased() : value
    }
    if let format = dimensions["format"], format.uppercased() != "REWARDED" {
      throw row["dimensionValues"]["FORMAT"]["value"].mismatch(
        "must be REWARDED: calibrate reads rewarded ads only (filter the report by FORMAT)")
    }
    var day: String?
    if let text = dimensions["date"] {
      guard let normalized = ReportDay.normalized(text) else {
        throw row["dimensionValues"]["DATE"]["value"].mismatch("must be a day, YYYYMMDD or YYYY-MM-DD")
      }
      day = normalized
    }
    guard let source = dimensions["ad_source"], !source.isEmpty || labels["AD_SOURCE"] != nil else {
      throw row["dimensionValues"]["AD_SOURCE"].mismatch(
        "must name the ad source (request the AD_SOURCE dimension)")
    }
    let sourceLabel = labels["AD_SOURCE"] ?? ""
    let network = networks.network(named: source) ?? networks.network(named: sourceLabel)
    let instance = labels["AD_SOURCE_INSTANCE"] ?? ""
    var candidates = [instance, dimensions["ad_source_instance"] ?? ""]
    if network == "google" { candidates.append(dimensions["ad_unit"] ?? "") }
    let metrics = row["metricValues"]
    dimensions.removeValue(forKey: "ad_source")
    dimensions.removeValue(forKey: "date")
    return try ReportRow(
      kind: .admob, file: file, place: row.path, day: day, dimensions: dimensions, app: dimensions["app"],
      networkName: sourceLabel.isEmpty ? source : sourceLabel, network: network, placement: instance,
      placementCandidates: candidates.filter { !$0.isEmpty },
      attempts: try integer(metrics["AD_REQUESTS"]), responses: try integer(metrics["MATCHED_REQUESTS"]),
      impressions: try integer(metrics["IMPRESSIONS"]), revenueUSD: try micros(metrics["ESTIMATED_EARNINGS"]),
      identity: dimensionFields.map { "\($0.key)=\((try? $0.field["value"].string()) ?? "")" }
    ).checked(rate: metrics["MATCH_RATE"], ecpm: metrics["OBSERVED_ECPM"])
  }

  /// An `integerValue` (an int64 as a string, or a number) ≥ 0; `nil` when the row leaves it out.
  static func integer(_ metric: JSONField) throws(CLIError) -> Int? {
    guard !metric.isMissing else { return nil }
    let field = metric["integerValue"]
    if let text = field.value as? String, let value = ReportNumber.count(text) { return value }
    if field.value is NSNumber { return try field.count() }
    throw field.mismatch("must be a whole number ≥ 0 (an int64 string)")
  }

  /// A `microsValue` (millionths of the currency, as a string or a number), in units.
  static func micros(_ metric: JSONField) throws(CLIError) -> Double? {
    guard !metric.isMissing else { return nil }
    let field = metric["microsValue"]
    if let text = field.value as? String, let value = ReportNumber.count(text) { return Double(value) / 1e6 }
    if field.value is NSNumber { return Double(try field.count()) / 1e6 }
    throw field.mismatch("must be a whole number of micros ≥ 0 (an int64 string)")
  }
}

extension ReportRow {
  /// This row, once its derived metrics are checked to be numbers: `MATCH_RATE` a fraction,
  /// `OBSERVED_ECPM` micros ≥ 0, and `MATCHED_REQUESTS` at most `AD_REQUESTS`.
  fileprivate func checked(rate: JSONField, ecpm: JSONField) throws(CLIError) -> ReportRow {
    if !rate.isMissing { _ = try rate["doubleValue"].number(in: 0...1) }
    _ = try AdMobReport.micros(ecpm)
    if let attempts, let responses, responses > attempts {
      throw .data(
        "\(file): \(place).metricValues.MATCHED_REQUESTS: must be at most the row's \(attempts) AD_REQUESTS, "
          + "found \(responses)")
    }
    return self
  }
}
