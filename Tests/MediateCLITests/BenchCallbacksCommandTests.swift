import Foundation
import MediateCLI
import Testing

/// `mediate bench-callbacks`: the figures' names are what scripts read, so they are pinned.
@Suite("mediate bench-callbacks")
struct BenchCallbacksCommandTests {
  @Test func jsonHasOneRatePerNetworkAndGuardAndPostgresIsNullWithoutAURL() throws {
    let result = mediate(["bench-callbacks", "--callbacks", "40", "--json"])
    #expect(result.code == 0, "\(result.err)")
    let line = try #require(result.out.first)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    #expect(
      Set(object.keys) == [
        "callbacks", "concurrency", "cores", "google_memory_per_s", "google_sqlite_per_s",
        "google_postgres_per_s",
        "max_memory_per_s", "max_sqlite_per_s", "max_postgres_per_s",
      ])
    #expect(object["callbacks"] as? Int == 40)
    #expect(object["concurrency"] as? Int == 2)
    for name in ["google_memory", "google_sqlite", "max_memory", "max_sqlite"] {
      #expect((object["\(name)_per_s"] as? Double ?? 0) > 0, "\(name)")
    }
    #expect(object["google_postgres_per_s"] is NSNull)
    #expect(object["max_postgres_per_s"] is NSNull)
  }

  @Test func textNamesEveryScenarioAndSaysWhyPostgresIsSkipped() {
    let result = mediate(["bench-callbacks", "--callbacks", "20", "--concurrency", "3"])
    #expect(result.code == 0)
    #expect(
      result.out.first
        == "20 callbacks verified and claimed per scenario, 3 at once, \(ProcessInfo.processInfo.activeProcessorCount) cores"
    )
    #expect(result.out.count == 7)
    #expect(result.out.contains("  google postgres       skipped (no --postgres URL)"))
  }

  @Test func badValuesAreUsageErrors() {
    for (arguments, message) in [
      (
        ["--callbacks", "0"],
        "Error: invalid value '0' for --callbacks: expected a whole number from 1 to 1000000"
      ),
      (
        ["--concurrency", "x"],
        "Error: invalid value 'x' for --concurrency: expected a whole number from 1 to 256"
      ),
      (["extra"], "Error: unexpected argument 'extra'"),
    ] {
      let result = mediate(["bench-callbacks"] + arguments)
      #expect(result.code == 64)
      #expect(result.err.first == message)
    }
  }
}
