import Foundation
import MediationKit

/// What a simulation's networks did (``ReportAggregates``), written in the vendors' shapes, so a
/// publisher sees the formats `calibrate` reads and the round trip — simulate, export, calibrate —
/// can be tested.
///
/// The simulated app is one MAX ad unit and one AdMob mediation group, both named after the zone;
/// each line item is a network (its display name) and a placement (its placement id); the days
/// are ``SimulatedCalendar``'s and a segmented market's segments fill the `country` column (or the
/// column of its dimension).
enum ReportExport {
  enum Format: String, CaseIterable {
    case max, admob

    var what: String { self == .max ? "MAX report" : "AdMob report" }
  }

  static let appName = "MediationKit simulation"
  static let packageName = "com.mediationkit.simulation"
  static let admobApp = "ca-app-pub-0000000000000000~0000000000"

  static func text(
    _ format: Format, _ reports: ReportAggregates, zone: ZoneConfig, dimension: String?, names: ReportNetworks
  )
    -> String
  {
    switch format {
    case .max: maxCSV(reports, zone: zone, dimension: dimension, names: names)
    case .admob: admobJSON(reports, zone: zone, dimension: dimension, names: names)
    }
  }

  /// A MAX Revenue Reporting API CSV with network columns: one row per day, segment and line item.
  static func maxCSV(_ reports: ReportAggregates, zone: ZoneConfig, dimension: String?, names: ReportNetworks)
    -> String
  {
    var header = ["day", "application", "package_name", "ad_format"]
    if let dimension { header.append(dimension) }
    header += [
      "max_ad_unit", "max_ad_unit_id", "network", "network_placement", "attempts", "responses", "fill_rate",
      "impressions", "estimated_revenue", "ecpm",
    ]
    var lines = [header.joined(separator: ",")]
    for (key, counts) in reports.rows.sorted(by: { $0.key < $1.key }) {
      var fields = [SimulatedCalendar.date(ofDay: key.day), appName, packageName, "REWARD"]
      // MAX writes countries in lower case (`gb`).
      if dimension != nil {
        fields.append(key.segment.map { dimension == "country" ? $0.lowercased() : $0 } ?? "")
      }
      fields += [
        zone.id, zone.id, names.displayName(key.network), key.placementID, String(counts.attempts),
        String(counts.responses),
        String(format: "%.4f", counts.attempts > 0 ? Double(counts.responses) / Double(counts.attempts) : 0),
        String(counts.impressions), String(format: "%.6f", counts.revenueUSD),
        String(
          format: "%.6f", counts.impressions > 0 ? counts.revenueUSD * 1000 / Double(counts.impressions) : 0),
      ]
      lines.append(fields.map(csvField).joined(separator: ","))
    }
    return lines.joined(separator: "\r\n") + "\r\n"
  }

  /// A field quoted when it holds a comma, a quote or a line break, its quotes doubled (RFC 4180).
  static func csvField(_ text: String) -> String {
    guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
    return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  /// US dollars in micros, as AdMob writes money; held at `Int64.max` (an extreme simulated price).
  static func micros(_ usd: Double) -> String {
    String(Int64(exactly: (usd * 1e6).rounded()) ?? (usd < 0 ? .min : .max))
  }

  /// An AdMob API mediation report: header, one row per day, segment and line item, footer.
  static func admobJSON(
    _ reports: ReportAggregates, zone: ZoneConfig, dimension: String?, names: ReportNetworks
  )
    -> String
  {
    let sorted = reports.rows.sorted { $0.key < $1.key }
    let days = sorted.map(\.key.day)
    let google = zone.lineItems.filter { $0.network == "google" }
    let adUnit = google.count == 1 ? google[0].placementId : zone.id
    func date(_ day: Int) -> [String: Int] {
      let parts = SimulatedCalendar.date(ofDay: day).split(separator: "-").compactMap { Int($0) }
      return ["year": parts[0], "month": parts[1], "day": parts[2]]
    }
    var entries: [[String: Any]] = [
      [
        "header": [
          "dateRange": ["startDate": date(days.min() ?? 0), "endDate": date(days.max() ?? 0)],
          "localizationSettings": ["currencyCode": "USD", "languageCode": "en-US"],
        ]
      ]
    ]
    for (key, counts) in sorted {
      let isAdMob = key.network == "google" && key.placementID == adUnit
      var dimensions: [String: Any] = [
        "DATE": ["value": SimulatedCalendar.date(ofDay: key.day).replacingOccurrences(of: "-", with: "")],
        "APP": ["value": admobApp, "displayLabel": appName],
        "AD_UNIT": ["value": adUnit, "displayLabel": zone.id],
        "MEDIATION_GROUP": ["value": "ca-app-pub-0000000000000000:mg:1", "displayLabel": zone.id],
        "AD_SOURCE": [
          "value": key.network == "google"
            ? ReportNetworks.admobNetworkSourceID : "mediationkit:\(key.network)",
          "displayLabel": key.network == "google" ? "AdMob Network" : names.displayName(key.network),
        ],
        "AD_SOURCE_INSTANCE": [
          "value": "ca-app-pub-0000000000000000#\(key.placementID)",
          "displayLabel": isAdMob ? "AdMob (default)" : key.placementID,
        ],
        "FORMAT": ["value": "REWARDED"],
      ]
      if let dimension, let segment = key.segment { dimensions[dimension.uppercased()] = ["value": segment] }
      let rate = counts.attempts > 0 ? Double(counts.responses) / Double(counts.attempts) : 0
      let ecpm = counts.impressions > 0 ? counts.revenueUSD * 1000 / Double(counts.impressions) : 0
      entries.append([
        "row": [
          "dimensionValues": dimensions,
          "metricValues": [
            "AD_REQUESTS": ["integerValue": String(counts.attempts)],
            "MATCHED_REQUESTS": ["integerValue": String(counts.responses)],
            "MATCH_RATE": ["doubleValue": JSONLine.rounded(rate, 6)],
            "IMPRESSIONS": ["integerValue": String(counts.impressions)],
            "ESTIMATED_EARNINGS": ["microsValue": micros(counts.revenueUSD)],
            "OBSERVED_ECPM": ["microsValue": micros(ecpm)],
          ],
        ]
      ])
    }
    entries.append(["footer": ["matchingRowCount": String(sorted.count)]])
    return JSONLine.encode(array: entries) + "\n"
  }
}
