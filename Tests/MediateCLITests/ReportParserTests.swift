import Foundation
import MediationKit
import Testing

@testable import MediateCLI

/// The vendors' report shapes as `calibrate` reads them: a MAX Revenue Reporting API CSV and an
/// AdMob API mediation report, with their awkward parts — quoted fields, empty
/// `network_placement`, currency amounts, a byte order mark, thousands of rows — and every bad
/// cell named by file, row and column.
@Suite("Report parsers")
struct ReportParserTests {
  static let networks = ReportNetworks(BuiltInNetworks.registry().all.map(\.info))

  /// A MAX report as the API returns it with network columns (its documented column names).
  static let maxCSV = """
    \u{FEFF}day,application,package_name,country,ad_format,max_ad_unit_id,network,network_placement,custom_network_name,attempts,responses,fill_rate,impressions,estimated_revenue,ecpm\r
    2025-01-07,"My Game, Deluxe",com.example.game,gb,REWARD,deb878533ea4e76a,AppLovin,b3f1c0d2e4a59687,,"41,734",37560,0.9,"36,010","$465.13",12.92\r
    2025-01-07,"My Game, Deluxe",com.example.game,us,REWARD,deb878533ea4e76a,Google AdMob,,,1200,950,79.2%,900,8.1,9.00\r
    2025-01-07,"My Game, Deluxe",com.example.game,us,REWARD,deb878533ea4e76a,Custom Network (SDK),emp-level-complete-high,Empower,500,410,0.82,400,5.6,14\r

    """

  @Test func maxReportRows() throws {
    let rows = try MaxReport.rows(Self.maxCSV, file: "max.csv", networks: Self.networks)
    #expect(rows.count == 3)
    #expect(rows[0].network == "max")
    #expect(rows[0].attempts == 41_734)
    #expect(rows[0].impressions == 36_010)
    #expect(rows[0].revenueUSD == 465.13)
    #expect(rows[0].dimensions["country"] == "GB")
    #expect(rows[0].app == "com.example.game")
    #expect(rows[0].day == "2025-01-07")
    #expect(rows[0].place == "line 2")
    // An empty network_placement is kept empty: it matches the zone's only line item of the network.
    #expect(rows[1].network == "google" && rows[1].placement == "")
    // custom_network_name names a custom SDK network.
    #expect(rows[2].network == "empower" && rows[2].networkName == "Empower")
    let zone = try MediationConfig.load(Data(DefaultConfig.json.utf8), source: "built-in").zone(
      "level_complete")
    let calibration = Calibration(zone: zone, segmentation: .none)
    #expect(rows.map { calibration.lineItem(for: $0) } == [1, 2, 0])
  }

  /// Each cell is a valid count, yet together they pass `Int.max`: the sum holds there, no trap.
  @Test func countsThatAddUpPastTheLargestIntegerHoldThere() throws {
    var text = "day,network,network_placement,attempts,responses,impressions,estimated_revenue\r\n"
    for day in 0..<1_100 {
      text +=
        "\(ReportDay.adding(day, to: (2020, 1, 1))),AppLovin,b3f1c0d2e4a59687,8999999999999999,1,1,1\r\n"
    }
    var counts = Calibration.ReportCounts()
    for row in try MaxReport.rows(text, file: "max.csv", networks: Self.networks) { counts.add(row) }
    #expect(counts.attempts == .max && counts.responses == 1_100)
  }

  @Test func thousandsOfMaxRows() throws {
    var text = "day,network,network_placement,attempts,responses,impressions,estimated_revenue\r\n"
    for day in 0..<3_000 {
      text += "\(ReportDay.adding(day, to: (2020, 1, 1))),AppLovin,b3f1c0d2e4a59687,100,90,90,1.17\r\n"
    }
    let rows = try MaxReport.rows(text, file: "max.csv", networks: Self.networks)
    #expect(rows.count == 3_000)
    #expect(Set(rows.compactMap(\.day)).count == 3_000)
  }

  @Test(arguments: [
    (
      "attempts", "many",
      "max.csv: line 2, column attempts: found 'many', expected a whole number of attempts ≥ 0"
    ),
    (
      "estimated_revenue", "€4.10",
      "max.csv: line 2, column estimated_revenue: found '€4.10', expected revenue in US dollars"
    ),
    (
      "ad_format", "INTER",
      "max.csv: line 2, column ad_format: found 'INTER', expected REWARD: calibrate reads rewarded"
    ),
    ("day", "07/01/2025", "max.csv: line 2, column day: found '07/01/2025', expected a day, YYYY-MM-DD"),
    (
      "responses", "99",
      "max.csv: line 2, column responses: found '99', expected at most the row's 10 attempts"
    ),
  ])
  func badMaxCellsAreNamed(column: String, value: String, message: String) {
    var cells = [
      "day": "2025-01-07", "ad_format": "REWARD", "network": "AppLovin", "network_placement": "x",
      "attempts": "10",
      "responses": "5", "impressions": "5", "estimated_revenue": "0.05",
    ]
    cells[column] = value
    let columns = cells.keys.sorted()
    let text =
      columns.joined(separator: ",") + "\n" + columns.map { cells[$0]! }.joined(separator: ",") + "\n"
    #expect(throws: CLIError.self) { try MaxReport.rows(text, file: "max.csv", networks: Self.networks) }
    do {
      _ = try MaxReport.rows(text, file: "max.csv", networks: Self.networks)
    } catch {
      #expect(error.kind == .data)
      #expect(error.message.hasPrefix(message), "\(error.message)")
    }
  }

  @Test func aMaxReportWithoutUsableColumnsIsRefused() {
    func message(_ text: String) -> String? {
      do {
        _ = try MaxReport.rows(text, file: "max.csv", networks: Self.networks)
        return nil
      } catch { return error.message }
    }
    #expect(message("day,impressions\n2025-01-01,3\n")?.hasPrefix("max.csv: no 'network' column") == true)
    #expect(
      message("network,ecpm\nAppLovin,3\n")?.hasPrefix("max.csv: neither attempts and responses") == true)
    #expect(
      message("network,attempts,responses\n\"AppLovin\" x,3,1\n")?.hasPrefix("max.csv: line 2, field 1")
        == true)
  }

  /// An AdMob mediation report as `accounts.mediationReport:generate` returns it.
  static func admobJSON(
    currency: String = "USD", format: String = "REWARDED", impressions: String = "\"900\""
  ) -> String {
    """
    [{"header": {"dateRange": {"startDate": {"year": 2025, "month": 1, "day": 7}, "endDate": {"year": 2025, "month": 1, "day": 7}},
      "localizationSettings": {"currencyCode": "\(currency)", "languageCode": "en-US"}}},
     {"row": {"dimensionValues": {"DATE": {"value": "20250107"}, "APP": {"value": "ca-app-pub-1~2", "displayLabel": "My Game"},
        "AD_UNIT": {"value": "ca-app-pub-3940256099942544/1712485313", "displayLabel": "Level complete"},
        "AD_SOURCE": {"value": "5450213213286189855", "displayLabel": "AdMob Network"},
        "AD_SOURCE_INSTANCE": {"value": "ca-app-pub-1#9", "displayLabel": "AdMob (default)"},
        "COUNTRY": {"value": "US"}, "FORMAT": {"value": "\(format)"}},
      "metricValues": {"AD_REQUESTS": {"integerValue": "1200"}, "MATCHED_REQUESTS": {"integerValue": "950"},
        "MATCH_RATE": {"doubleValue": 0.7916}, "IMPRESSIONS": {"integerValue": \(impressions)},
        "ESTIMATED_EARNINGS": {"microsValue": "8100000"}, "OBSERVED_ECPM": {"microsValue": "9000000"}}}},
     {"row": {"dimensionValues": {"DATE": {"value": "2025-01-07"}, "AD_SOURCE": {"value": "1063618907739174004", "displayLabel": "AppLovin"},
        "AD_SOURCE_INSTANCE": {"value": "ca-app-pub-1#10", "displayLabel": "b3f1c0d2e4a59687"}, "COUNTRY": {"value": "de"}},
      "metricValues": {"AD_REQUESTS": {"integerValue": "300"}, "MATCHED_REQUESTS": {"integerValue": "270"}}}},
     {"footer": {"matchingRowCount": "2"}}]
    """
  }

  @Test func admobReportRows() throws {
    let rows = try AdMobReport.rows(Data(Self.admobJSON().utf8), file: "admob.json", networks: Self.networks)
    #expect(rows.count == 2)
    #expect(rows[0].network == "google" && rows[0].revenueUSD == 8.1 && rows[0].impressions == 900)
    #expect(
      rows[0].day == "2025-01-07" && rows[0].dimensions["country"] == "US" && rows[0].app == "ca-app-pub-1~2")
    // A metric the row leaves out is unknown, not zero.
    #expect(rows[1].network == "max" && rows[1].attempts == 300 && rows[1].impressions == nil)
    #expect(rows[1].dimensions["country"] == "DE")
    let zone = try MediationConfig.load(Data(DefaultConfig.json.utf8), source: "built-in").zone(
      "level_complete")
    let calibration = Calibration(zone: zone, segmentation: .none)
    // The AdMob Network's placement is the ad unit; a third party's, its instance's label.
    #expect(rows.map { calibration.lineItem(for: $0) } == [2, 1])
  }

  @Test func admobBadInputIsNamed() {
    func message(_ json: String) -> String? {
      do {
        _ = try AdMobReport.rows(Data(json.utf8), file: "admob.json", networks: Self.networks)
        return nil
      } catch { return error.message }
    }
    #expect(
      message(Self.admobJSON(currency: "EUR"))?.hasPrefix(
        "admob.json: [0].header.localizationSettings.currencyCode: must be USD") == true)
    #expect(
      message(Self.admobJSON(format: "BANNER"))?.hasPrefix(
        "admob.json: [1].row.dimensionValues.FORMAT.value: must be REWARDED") == true)
    #expect(
      message(Self.admobJSON(impressions: "\"lots\""))
        == "admob.json: [1].row.metricValues.IMPRESSIONS.integerValue: must be a whole number ≥ 0 (an int64 "
        + "string), found \"lots\"")
    #expect(message("{\"rows\": []}") == "admob.json: the document: must be an array, found an object")
    #expect(message("[{\"row\": ")?.hasPrefix("admob.json: not valid JSON") == true)
    #expect(
      message("[{\"nothing\": 1}]") == "admob.json: [0]: must be a header, a row or a footer, found an object"
    )
  }
}
