import Foundation
import MediationKit

/// A MAX Revenue Reporting API report in CSV (`https://r.applovin.com/maxReport?format=csv`), read
/// row by row.
///
/// Columns are found by name, in any order, without case; columns calibrate does not use are kept
/// only to tell rows apart. It uses:
/// - `network` (required) and `network_placement`: the line item (network display name or id and
///   placement id; `custom_network_name`, when set, names a custom SDK network instead);
/// - `attempts` and `responses`: requests to the network and its answers with an ad (fill);
/// - `impressions` and `estimated_revenue` (USD): the mean eCPM;
/// - `day`, `country` and any other dimension (`platform`, `device_type`, …): days and segments;
/// - `package_name`, `store_id` or `application`: the app; `ad_format`: must be `REWARD`.
/// `fill_rate` and `ecpm` are checked to be numbers and otherwise derived again; `requests` (the
/// API gives it only without network columns) is ignored. At least one pair of
/// `attempts`/`responses` or `impressions`/`estimated_revenue` must be there.
enum MaxReport {
  static let metricColumns: Set<String> = [
    "attempts", "responses", "fill_rate", "impressions", "estimated_revenue", "ecpm", "requests",
  ]

  static func rows(_ text: String, file: String, networks: ReportNetworks) throws(CLIError) -> [ReportRow] {
    let table: CSVTable
    do {
      table = try CSVTable(text)
    } catch {
      throw .data("\(file): line \(error.line), field \(error.field): \(error.message)")
    }
    guard let networkColumn = table.column("network") else {
      throw .data(
        "\(file): no 'network' column; expected a MAX revenue report with network and network_placement "
          + "(columns found: \(table.columns.joined(separator: ", ")))")
    }
    let hasFill = table.column("attempts") != nil && table.column("responses") != nil
    let hasRevenue = table.column("impressions") != nil && table.column("estimated_revenue") != nil
    guard hasFill || hasRevenue else {
      throw .data(
        "\(file): neither attempts and responses nor impressions and estimated_revenue columns; calibrate needs "
          + "one pair (columns found: \(table.columns.joined(separator: ", ")))")
    }
    let dimensionColumns = table.columns.indices.filter { !metricColumns.contains(table.columns[$0]) }
    var rows: [ReportRow] = []
    rows.reserveCapacity(table.rows.count)
    for record in table.rows {
      func cell(_ name: String) -> String? {
        table.column(name).map { record.fields[$0].trimmingCharacters(in: .whitespaces) }
      }
      func failure(_ column: String, _ found: String, _ expected: String) -> CLIError {
        .data(
          ReportCellError(
            file: file, row: "line \(record.line)", column: column, found: found, expected: expected
          )
          .message)
      }
      func number<T>(_ column: String, _ parse: (String) -> T?, _ expected: String) throws(CLIError) -> T? {
        guard let text = cell(column) else { return nil }
        guard let value = parse(text) else { throw failure(column, text, expected) }
        return value
      }
      if let format = cell("ad_format"), format.uppercased() != "REWARD" {
        throw failure(
          "ad_format", format,
          "REWARD: calibrate reads rewarded ads only (request the report with filter_ad_format=REWARD)")
      }
      var day: String?
      if let text = cell("day") {
        guard let normalized = ReportDay.normalized(text) else {
          throw failure("day", text, "a day, YYYY-MM-DD")
        }
        day = normalized
      }
      let custom = cell("custom_network_name") ?? ""
      let name = custom.isEmpty ? record.fields[networkColumn].trimmingCharacters(in: .whitespaces) : custom
      guard !name.isEmpty else { throw failure("network", "", "the network's name") }
      let attempts = try number("attempts", ReportNumber.count, "a whole number of attempts ≥ 0")
      let responses = try number("responses", ReportNumber.count, "a whole number of responses ≥ 0")
      if let attempts, let responses, responses > attempts {
        throw failure("responses", String(responses), "at most the row's \(attempts) attempts")
      }
      _ = try number("fill_rate", ReportNumber.rate, "a fill rate from 0 to 1 (or 0% to 100%)")
      _ = try number("ecpm", ReportNumber.usd, "an eCPM in US dollars ≥ 0")
      _ = try number("requests", ReportNumber.count, "a whole number of requests ≥ 0")
      var dimensions: [String: String] = [:]
      for index in dimensionColumns {
        let column = table.columns[index]
        let value = record.fields[index].trimmingCharacters(in: .whitespaces)
        dimensions[column] = column == "country" ? value.uppercased() : value
      }
      let app = [cell("package_name"), cell("store_id"), cell("application")].compactMap { $0 }.first {
        !$0.isEmpty
      }
      rows.append(
        ReportRow(
          kind: .max, file: file, place: "line \(record.line)", day: day, dimensions: dimensions, app: app,
          networkName: name, network: networks.network(named: name),
          placement: cell("network_placement") ?? "",
          placementCandidates: [cell("network_placement") ?? ""], attempts: attempts, responses: responses,
          impressions: try number("impressions", ReportNumber.count, "a whole number of impressions ≥ 0"),
          revenueUSD: try number(
            "estimated_revenue", ReportNumber.usd, "revenue in US dollars ≥ 0 ($1,234.50 or 1234.5)"),
          identity: dimensionColumns.map { "\(table.columns[$0])=\(record.fields[$0])" }))
    }
    return rows
  }
}
