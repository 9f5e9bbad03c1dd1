import Foundation
import Testing

@testable import MediateCLI

/// `mediate bench-app` runs real cycles on real threads; these tests check what it reports, never
/// how fast (the figures depend on the machine).
@Suite("bench-app")
struct BenchAppTests {
  @Test func runsEveryCycleToItsEndAndReportsBothFigures() throws {
    let result = mediate(["bench-app", "--cycles", "20", "--json"], registry: BuiltInNetworks.registry())
    #expect(result.code == 0, "\(result.err)")
    let line = try #require(result.out.first)
    let report = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    #expect(report["cycles"] as? Int == 20)
    // At least the app's own load and show calls of every cycle ran on the executor, timed.
    let actions = try #require(report["executor_actions"] as? Int)
    #expect(actions >= 40)
    for key in [
      "cycle_cpu_us_median", "cycle_cpu_us_p99", "executor_hold_cpu_us_median", "executor_hold_cpu_us_p99",
      "executor_hold_cpu_us_max", "executor_hold_wall_us_median", "executor_hold_wall_us_p99",
    ] {
      let value = try #require(report[key] as? Double, "\(key) missing")
      #expect(value >= 0, "\(key)")
    }
    let median = try #require(report["cycle_cpu_us_median"] as? Double)
    let p99 = try #require(report["cycle_cpu_us_p99"] as? Double)
    #expect(median <= p99)
  }

  @Test func withTheFlightRecorderTheZoneRecordsAndSaysSo() throws {
    let result = mediate(
      ["bench-app", "--cycles", "20", "--flight-recorder", "--json"], registry: BuiltInNetworks.registry())
    #expect(result.code == 0, "\(result.err)")
    let line = try #require(result.out.first)
    let report = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    #expect(report["flight_recorder"] as? Bool == true)
    #expect(report["cycles"] as? Int == 20)
    #expect((report["recorded_inputs"] as? Int ?? 0) > 0, "the zone recorded")
    let without = mediate(["bench-app", "--cycles", "20", "--json"], registry: BuiltInNetworks.registry())
    let plainLine = try #require(without.out.first)
    let plain = try #require(JSONSerialization.jsonObject(with: Data(plainLine.utf8)) as? [String: Any])
    #expect(plain["recorded_inputs"] as? Int == 0)
  }

  @Test(arguments: ["0", "abc", "1000001"])
  func aBadCycleCountIsAUsageError(_ value: String) {
    let result = mediate(["bench-app", "--cycles", value], registry: BuiltInNetworks.registry())
    #expect(result.code == 64)
    #expect(
      result.err.joined().contains(
        "invalid value '\(value)' for --cycles: expected a whole number from 1 to 1000000"), "\(result.err)")
  }
}
