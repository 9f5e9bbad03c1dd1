import Foundation
import MediationKit
import Testing

@testable import MediateCLI

/// `mediate config`: the configuration in use as a file `validate` accepts and `--config` loads
/// back to an equal configuration.
@Suite("mediate config")
struct ConfigCommandTests {
  static func load(_ text: String) throws -> MediationConfig {
    try ConfigLoader.load(Data(text.utf8), source: "printed", knownNetworks: ["empower", "max", "google"])
  }

  @Test func builtInDefaultRoundTripsAndValidates() throws {
    let printed = mediate(["config"])
    #expect(printed.code == 0, "\(printed.err)")
    let text = printed.out.joined(separator: "\n")
    let builtIn = try ConfigLoader.load(Data(DefaultConfig.json.utf8), source: "built-in")
    #expect(try Self.load(text) == builtIn)
    #expect(builtIn.zones.count == 4)
    // Defaults the built-in file leaves out are spelled out.
    #expect(text.contains(#""strategy": "waterfall""#))
    #expect(text.contains(#""bidFloor": 0"#))
    // One line item per line, keys in the documented order.
    #expect(
      text.contains(
        #"{ "network": "empower", "placementId": "emp-level-complete-high", "priority": 0, "ecpm": 14, "timeoutSeconds": 8, "bidding": false, "bidFloor": 0, "disabled": false }"#
      ))
    let path = temporaryFile(text)
    let validated = mediate(["validate", path])
    #expect(validated.code == 0, "\(validated.err)")
    // Printing what was loaded back gives the same bytes: the format is a fixed point.
    #expect(mediate(["config", "--config", path]).out == printed.out)
  }

  @Test func fileWithEverySettingRoundTrips() throws {
    let file = """
      { "zones": [ { "id": "z", "reward": { "type": "coins", "amount": 3 }, "loadTimeoutSeconds": 12.3,
        "adExpirySeconds": 0.1, "rewardGraceSeconds": 2.5, "autoReload": false, "strategy": "hybrid",
        "auctionTimeoutSeconds": 1.7, "caps": { "maxPerHour": 4, "maxPerDay": 20, "minIntervalSeconds": 0.3 },
        "lineItems": [
          { "network": "max", "placementId": "a/b\\"c", "priority": 1, "ecpm": 12.345678901, "timeoutSeconds": 0.7,
            "bidding": true, "bidFloor": 0.01,
            "serverCallback": { "url": "https://x.example/cb?u={USER_ID}&t={EVENT_TOKEN}", "eventKey": "k" } },
          { "network": "google", "placementId": "g", "priority": 0, "ecpm": 1e-3, "timeoutSeconds": 5,
            "serverCallback": { "url": "https://x.example/ssv" } } ] } ] }
      """
    let original = try Self.load(file)
    let printed = mediate(["config", "--config", temporaryFile(file)])
    #expect(printed.code == 0, "\(printed.err)")
    #expect(try Self.load(printed.out.joined(separator: "\n")) == original)
  }

  @Test func zoneFilterPrintsOnlyThatZone() throws {
    let printed = mediate(["config", "--zone", "daily_bonus"])
    #expect(printed.code == 0)
    let config = try Self.load(printed.out.joined(separator: "\n"))
    let builtIn = try ConfigLoader.load(Data(DefaultConfig.json.utf8), source: "built-in")
    #expect(config == MediationConfig(zones: [try builtIn.zone("daily_bonus")]))
  }

  @Test func unknownZoneIsAUsageErrorListingTheKnownOnes() {
    let result = mediate(["config", "--zone", "nope"])
    #expect(result.code == ExitCode.usage)
    #expect(result.out.isEmpty)
    let message = result.err.first ?? ""
    #expect(message.contains("nope"))
    for zone in ["level_complete", "daily_bonus", "extra_life", "store_coins"] {
      #expect(message.contains(zone), "\(message)")
    }
  }

  @Test func missingOrInvalidConfigFile() {
    let missing = mediate(["config", "--config", "/nonexistent/zones.json"])
    #expect(missing.code == ExitCode.noInput)
    #expect(missing.err.first == "Error: /nonexistent/zones.json: no such file")
    let invalid = mediate(["config", "--config", temporaryFile(#"{ "zones": [] }"#)])
    #expect(invalid.code == ExitCode.dataError)
    #expect(invalid.out.isEmpty)
    let extra = mediate(["config", "stray"])
    #expect(extra.code == ExitCode.usage)
  }
}
