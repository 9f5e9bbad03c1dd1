import Foundation
import MediationKit
import Testing

@testable import MediateCLI

/// `mediate calibrate` end to end — a simulation's event log and vendor reports in, a market file
/// out that `--market`, `compare` and `optimize` accept — and every kind of bad input, each with
/// its exit code and a message naming the file, the row, the column, what was found and what was
/// expected.
@Suite("mediate calibrate")
struct CalibrateCommandTests {
  static func directory() -> String {
    let path = NSTemporaryDirectory() + "mediate-calibrate-\(UUID().uuidString)/"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  static func write(_ text: String, _ name: String, in directory: String) -> String {
    let path = directory + name
    _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    return path
  }

  static func run(_ arguments: [String]) -> (code: Int32, out: [String], err: [String]) {
    mediate(arguments, registry: BuiltInNetworks.registry())
  }

  /// The simulation's files: 3,000 sessions are enough to match every line item that is reached.
  static let recorded: (directory: String, events: String, max: String, admob: String) = {
    let directory = Self.directory()
    let (events, max, admob) = (directory + "events.jsonl", directory + "max.csv", directory + "admob.json")
    let result = run([
      "--zone", "level_complete", "--requests", "3000", "--seed", "4", "--events", events,
      "--export-report", "max", max, "--export-report", "admob", admob, "--json",
    ])
    #expect(result.code == 0, "\(result.err)")
    return (directory, events, max, admob)
  }()

  @Test func theRoundTripWritesAMarketTheSimulatorCompareAndOptimizeAccept() throws {
    let files = Self.recorded
    let out = files.directory + "market.json"
    let result = Self.run([
      "calibrate", "--zone", "level_complete", "--out", out, "--events", files.events, "--max-report",
      files.max,
      "--admob-report", files.admob, "--json",
    ])
    #expect(result.code == 0, "\(result.err)")
    let line = try #require(result.out.first)
    let report = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    let items = try #require(report["line_items"] as? [[String: Any]])
    #expect(items.count == 4)
    // The event log is the richest source: it gives fill, prices and latencies.
    let first = try #require(items.first)
    #expect((first["fill"] as? [String: Any])?["source"] as? String == "event log")
    #expect((first["price"] as? [String: Any])?["sigmaFromData"] as? Bool == true)
    #expect((first["loadLatency"] as? [String: Any])?["source"] as? String == "event log")
    let market = try MarketFile.read(#require(FileManager.default.contents(atPath: out)), source: out)
    #expect(
      market.zone == "level_complete"
        && market.sources.map(\.kind) == ["max_report", "admob_report", "event_log"])
    // Every default is said, with its reason: no bid requests in a waterfall's data.
    #expect(market.lineItems.allSatisfy { $0.defaults.contains { $0.field == "bidLatency, bidNoAnswer" } })
    let simulated = Self.run(["--zone", "level_complete", "--requests", "500", "--market", out, "--json"])
    #expect(simulated.code == 0, "\(simulated.err)")
    let config = Self.write(DefaultConfig.json, "a.json", in: files.directory)
    let compared = Self.run([
      "compare", config, config, "--zone", "level_complete", "--requests", "300", "--replications", "2",
      "--market", out,
      "--calibration-resamples", "2", "--json",
    ])
    #expect(compared.code == 0, "\(compared.err)")
    let comparedLine = try #require(compared.out.first)
    let comparison = try #require(
      JSONSerialization.jsonObject(with: Data(comparedLine.utf8)) as? [String: Any])
    let calibration = try #require(comparison["calibration"] as? [String: Any])
    #expect(calibration["resamples"] as? Int == 2)
    // A against itself: no difference on any market, so none from the calibration either.
    #expect(calibration["relative_by_resample"] as? [Double] == [0, 0])
  }

  @Test func eachSourceAloneSaysWhatItCannotTell() throws {
    let files = Self.recorded
    let out = files.directory + "from-max.json"
    let result = Self.run(["calibrate", "--zone", "level_complete", "--out", out, "--max-report", files.max])
    #expect(result.code == 0, "\(result.err)")
    let text = result.out.joined(separator: "\n")
    #expect(text.contains("[MAX report]"))
    #expect(
      text.contains(
        "default loadLatency: no source times 2 loads of this line item (reports carry no latencies)"))
    #expect(text.contains("default price.sigma: the MAX report gives the mean eCPM only"))
    let market = try MarketFile.read(#require(FileManager.default.contents(atPath: out)), source: out)
    #expect(market.lineItems[0].estimate.price.sigmaFromData == false)
    #expect(market.lineItems[0].estimate.loadLatency.source == "default")
  }

  static let header =
    "day,package_name,ad_format,network,network_placement,attempts,responses,impressions,estimated_revenue"
  static let row = "2025-01-07,com.example,REWARD,AppLovin,b3f1c0d2e4a59687,1000,900,880,11.0"

  /// Runs calibrate on a MAX report with `lines` (after the header) and returns the result.
  static func calibrateMax(_ lines: [String], extra: [String] = [], header: String = header) -> (
    code: Int32, out: [String], err: [String]
  ) {
    let directory = directory()
    let report = write(([header] + lines).joined(separator: "\n") + "\n", "max.csv", in: directory)
    return run(["calibrate", "--out", directory + "market.json", "--max-report", report] + extra)
  }

  @Test func duplicatedDaysAreCountedOnce() throws {
    let directory = Self.directory()
    let first = Self.write(Self.header + "\n" + Self.row + "\n", "a.csv", in: directory)
    let second = Self.write(
      Self.header + "\n" + Self.row + "\n"
        + Self.row.replacingOccurrences(of: "2025-01-07", with: "2025-01-08") + "\n",
      "b.csv", in: directory)
    let out = directory + "market.json"
    let result = Self.run(["calibrate", "--out", out, "--max-report", first, "--max-report", second])
    #expect(result.code == 0, "\(result.err)")
    let market = try MarketFile.read(#require(FileManager.default.contents(atPath: out)), source: out)
    // 2 days, not 3: the 7th is in both reports.
    #expect(market.lineItems[1].estimate.fill.trials == 2_000)
    #expect(market.notes.contains("1 report rows given twice (the same day and keys) were counted once"))
    // The same file twice is read once.
    let again = Self.run(["calibrate", "--out", out, "--max-report", first, "--max-report", first])
    #expect(again.code == 0 && again.err.contains { $0.contains("has the same bytes as a file read before") })
  }

  @Test func unmatchedRowsAreReportedNeverDropped() throws {
    let result = Self.calibrateMax([Self.row, "2025-01-07,com.example,REWARD,Unity Ads,video,10,5,5,0.1"])
    #expect(result.code == 0, "\(result.err)")
    #expect(
      result.out.contains {
        $0.contains("1 row(s) or line item(s) in the data match no line item of zone 'level_complete'")
          && $0.contains(
            "max.csv line 3: network 'Unity Ads', placement 'video' (a network mediate does not know)")
      })
  }

  @Test(arguments: [
    (
      ["2025-01-07,com.example,REWARD,AppLovin,b3f1c0d2e4a59687,1000,900,880,lots"], [String](),
      ExitCode.dataError,
      "max.csv: line 2, column estimated_revenue: found 'lots', expected revenue in US dollars"
    ),
    (
      ["2025-01-07,com.example,INTER,AppLovin,b3f1c0d2e4a59687,1000,900,880,11"], [], ExitCode.dataError,
      "max.csv: line 2, column ad_format: found 'INTER', expected REWARD"
    ),
    (
      [row, "2025-01-07,com.other,REWARD,AppLovin,b3f1c0d2e4a59687,10,9,8,0.1"], [], ExitCode.dataError,
      "max.csv: the MAX reports cover 2 apps (com.example, com.other)"
    ),
    ([row], ["--app", "com.typo"], ExitCode.dataError, "--app com.typo: no report row is for this app"),
    (
      ["2025-01-07,com.example,REWARD,Unity Ads,video,10,5,5,0.1"], [], ExitCode.dataError,
      "none of the data is about zone 'level_complete''s line items"
    ),
    (
      [row, row.replacingOccurrences(of: ",11.0", with: ",12.0")], [], ExitCode.dataError,
      "max.csv line 3 are the same row (the same day and keys) with different counts; keep the report you trust"
    ),
    ([row], ["--segment-by", "country"], ExitCode.usage, "--segment-by country: every source must have it"),
    ([row], ["--zone", "nope"], ExitCode.usage, "zone 'nope' is not in built-in default"),
    (
      ["2025-01-07,com.example,REWARD,\"AppLovin\"x,p,1,1,1,1"], [], ExitCode.dataError,
      "max.csv: line 2, field 4: text after the field's closing quote"
    ),
  ])
  func badReportsAreRefusedWithTheirExitCode(lines: [String], extra: [String], code: Int32, message: String) {
    let result = Self.calibrateMax(lines, extra: extra)
    #expect(result.code == code, "\(result.err)")
    let error = result.err.first ?? ""
    #expect(error.hasPrefix("Error: ") && error.contains(message), "\(error)")
  }

  @Test func badUsageAndFiles() throws {
    let directory = Self.directory()
    let report = Self.write(Self.header + "\n" + Self.row + "\n", "max.csv", in: directory)
    func check(_ arguments: [String], _ code: Int32, _ message: String) {
      let result = Self.run(["calibrate"] + arguments)
      #expect(result.code == code, "\(arguments): \(result.err)")
      #expect(result.err.first?.contains(message) == true, "\(result.err)")
    }
    check(["--max-report", report], ExitCode.usage, "calibrate needs --out FILE")
    check(["--out", directory + "m.json"], ExitCode.usage, "calibrate needs data: --max-report FILE")
    check(
      ["--out", "/nonexistent/dir/m.json", "--max-report", report], ExitCode.usage,
      "no directory /nonexistent/dir")
    check(["--out", directory, "--max-report", report], ExitCode.ioError, "it is a directory")
    check(
      ["--out", directory + "m.json", "--max-report", directory + "missing.csv"], ExitCode.noInput,
      "no such file")
    check(
      ["--out", directory + "m.json", "--max-report", report, "--segment-by", "a b"], ExitCode.usage,
      "invalid value 'a b' for --segment-by")
    let latin1 = directory + "latin1.csv"
    _ = FileManager.default.createFile(atPath: latin1, contents: Data([0x6E, 0x65, 0x74, 0xE9, 0x0A]))
    check(
      ["--out", directory + "m.json", "--max-report", latin1], ExitCode.dataError,
      "latin1.csv: not UTF-8 text")
    let events = Self.write(
      #"{"v":2,"zone":"level_complete","event":"loading"}"# + "\n", "e.jsonl", in: directory)
    check(
      ["--out", directory + "m.json", "--events", events], ExitCode.dataError, "e.jsonl: line 1: v: must be 1"
    )
    let euro = Self.write(ReportParserTests.admobJSON(currency: "EUR"), "admob.json", in: directory)
    check(
      ["--out", directory + "m.json", "--admob-report", euro], ExitCode.dataError, "currencyCode: must be USD"
    )
    // A market file that is not one for the zone, or asks for a segment it does not have.
    let market = Self.write(
      MarketFileTests.market([MarketFileTests.item("max", "b3f1c0d2e4a59687", fill: 1, price: 1)]), "m.json",
      in: directory)
    let wrongZone = Self.run(["--zone", "daily_bonus", "--requests", "10", "--market", market])
    #expect(wrongZone.code == ExitCode.usage)
    #expect(
      wrongZone.err.first?.contains("is the market of zone 'level_complete', not of zone 'daily_bonus'")
        == true)
    let noSegments = Self.run([
      "--zone", "level_complete", "--requests", "10", "--market", market, "--country", "US",
    ])
    #expect(noSegments.code == ExitCode.usage && noSegments.err.first?.contains("has no segments") == true)
    let badCountry = Self.run([
      "--zone", "level_complete", "--requests", "10", "--market", market, "--country", "USA",
    ])
    #expect(
      badCountry.code == ExitCode.usage && badCountry.err.first?.contains("two-letter country code") == true)
    let broken = Self.write(
      #"{"mediationkitMarket": 1, "zone": "level_complete", "lineItems": [{}]}"#, "b.json", in: directory)
    let invalid = Self.run(["--zone", "level_complete", "--requests", "10", "--market", broken])
    #expect(invalid.code == ExitCode.dataError)
    #expect(invalid.err.first == "Error: \(broken): lineItems[0].network: must be a string, found nothing")
  }

  @Test func recordingUsageErrors() {
    let directory = Self.directory()
    func check(_ arguments: [String], _ code: Int32, _ message: String) {
      let result = Self.run(arguments)
      #expect(result.code == code, "\(arguments): \(result.err)")
      #expect(result.err.first?.contains(message) == true, "\(result.err)")
    }
    check(
      ["--events", directory + "e.jsonl"], ExitCode.usage, "--events and --export-report record a simulation")
    check(
      ["--requests", "10", "--export-report", "csv", directory + "r.csv"], ExitCode.usage,
      "invalid value 'csv' for --export-report: expected max or admob")
    check(
      ["--requests", "10", "--export-report", "max"], ExitCode.usage, "option '--export-report' needs a value"
    )
    check(
      ["--requests", "10", "--events", "/nonexistent/e.jsonl"], ExitCode.ioError, "no directory /nonexistent")
    check(["--requests", "10", "--events", directory], ExitCode.ioError, "it is a directory")
  }
}

extension CalibrateCommandTests {
  @Test func helpSaysWhatEachSourceTellsAndEveryOption() {
    let help = Self.run(["calibrate", "--help"])
    #expect(help.code == 0)
    let text = help.out.joined(separator: "\n")
    for option in OptionSpec.options(for: .calibrate) { #expect(text.contains(option.name)) }
    #expect(text.contains("WHAT EACH SOURCE TELLS"))
    #expect(
      text.contains(
        "  MAX / AdMob       fill per attempt (timeouts included) and the mean eCPM; no spread, no latency"))
    let run = Self.run(["--help"]).out.joined(separator: "\n")
    #expect(
      run.contains("--events FILE") && run.contains("--export-report max|admob FILE")
        && run.contains("calibrate"))
  }
}

extension CalibrateCommandTests {
  /// Countries in one source but not in another: the market is not split, and the note says why.
  @Test func countriesInOnlySomeSourcesAreSaidNotSplit() throws {
    let directory = Self.directory()
    let withCountry = Self.write(
      "day,country,network,network_placement,attempts,responses,impressions,estimated_revenue\n"
        + "2025-01-07,us,AppLovin,b3f1c0d2e4a59687,1000,900,880,11.0\n", "a.csv", in: directory)
    let events = Self.write(
      #"{"v":1,"zone":"level_complete","event":"failed","error":"no_fill","message":"","waterfall":[{"network":"max","placement":"b3f1c0d2e4a59687","priority":0,"ecpm":12.5,"state":"failed","latency_ms":700}]}"#
        + "\n", "e.jsonl", in: directory)
    let out = directory + "m.json"
    let result = Self.run(["calibrate", "--out", out, "--max-report", withCountry, "--events", events])
    #expect(result.code == 0, "\(result.err)")
    let market = try MarketFile.read(#require(FileManager.default.contents(atPath: out)), source: out)
    #expect(market.segmentBy == nil)
    #expect(market.notes.contains { $0.hasPrefix("not split by country: the event log (a line without") })
  }
}
