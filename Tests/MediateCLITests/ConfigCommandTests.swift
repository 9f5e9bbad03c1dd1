import Foundation
import MediationKit
import Testing

@testable import MediateCLI

/// `mediate config`: the configuration in use as a file `validate` accepts and `--config` loads
/// back to an equal configuration.
@Suite("mediate config")
struct ConfigCommandTests {
  static func load(_ text: String) throws -> MediationConfig {
    try MediationConfig.load(Data(text.utf8), source: "printed", knownNetworks: ["empower", "max", "google"])
  }

  @Test func builtInDefaultRoundTripsAndValidates() throws {
    let printed = mediate(["config"])
    #expect(printed.code == 0, "\(printed.err)")
    let text = printed.out.joined(separator: "\n")
    let builtIn = try MediationConfig.load(Data(DefaultConfig.json.utf8), source: "built-in")
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
        "autoECPM": true,
        "lineItems": [
          { "network": "max", "placementId": "a/b\\"c", "priority": 1, "ecpm": 12.345678901, "timeoutSeconds": 0.7,
            "bidding": true, "bidFloor": 0.01,
            "serverCallback": { "url": "https://x.example/cb?u={USER_ID}&t={EVENT_TOKEN}", "eventKey": "k" } },
          { "network": "google", "placementId": "g", "priority": 0, "ecpm": 1e-3, "timeoutSeconds": 5,
            "serverCallback": { "url": "https://x.example/ssv" } } ] } ] }
      """
    let original = try Self.load(file)
    #expect(original.zones[0].autoECPM)
    let printed = mediate(["config", "--config", temporaryFile(file)])
    #expect(printed.code == 0, "\(printed.err)")
    #expect(printed.out.contains("      \"autoECPM\": true,"))
    #expect(try Self.load(printed.out.joined(separator: "\n")) == original)
  }

  @Test func zoneFilterPrintsOnlyThatZone() throws {
    let printed = mediate(["config", "--zone", "daily_bonus"])
    #expect(printed.code == 0)
    let config = try Self.load(printed.out.joined(separator: "\n"))
    let builtIn = try MediationConfig.load(Data(DefaultConfig.json.utf8), source: "built-in")
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

  /// A file with every live-mediation field: version, kill switches, queue depth, experiments.
  static let liveFile = """
    { "version": "2026-12-01.1", "disabledNetworks": ["google"],
      "zones": [ { "id": "z", "reward": { "type": "coins", "amount": 3 }, "loadTimeoutSeconds": 30,
        "adExpirySeconds": 3600, "rewardGraceSeconds": 5, "autoReload": true, "queueDepth": 2,
        "experiments": [
          { "id": "bidding-test", "overrides": { "qa-device-7": "hybrid" }, "arms": [
            { "id": "control", "weight": 50 },
            { "id": "hybrid", "weight": 50, "strategy": "hybrid", "auctionTimeoutSeconds": 2, "lineItems": [
              { "network": "empower", "placementId": "e", "priority": 0, "ecpm": 12.5, "timeoutSeconds": 8 },
              { "network": "max", "placementId": "m", "priority": 0, "ecpm": 15, "timeoutSeconds": 8,
                "bidding": true, "bidFloor": 5,
                "serverCallback": { "url": "https://x.example/cb?u={USER_ID}&t={EVENT_TOKEN}", "eventKey": "k" } } ] } ] },
          { "id": "reload", "arms": [ { "id": "a", "weight": 1 }, { "id": "b", "weight": 3 } ] } ],
        "lineItems": [
          { "network": "empower", "placementId": "e", "priority": 0, "ecpm": 12.5, "timeoutSeconds": 8 },
          { "network": "google", "placementId": "g", "priority": 1, "ecpm": 9, "timeoutSeconds": 8, "disabled": true } ] },
        { "id": "other", "reward": { "type": "coins", "amount": 1 }, "loadTimeoutSeconds": 30,
          "adExpirySeconds": 3600, "rewardGraceSeconds": 5, "autoReload": true,
          "lineItems": [ { "network": "max", "placementId": "o", "priority": 0, "ecpm": 1, "timeoutSeconds": 8 } ] } ] }
    """

  @Test func liveFieldsArePrintedAndRoundTrip() throws {
    let original = try Self.load(Self.liveFile)
    #expect(original.zones[0].experiments.count == 2)
    let printed = mediate(["config", "--config", temporaryFile(Self.liveFile)])
    #expect(printed.code == 0, "\(printed.err)")
    let text = printed.out.joined(separator: "\n")
    #expect(try Self.load(text) == original)
    for expected in [
      #""version": "2026-12-01.1""#, #""disabledNetworks": ["google"]"#, #""queueDepth": 2"#,
      #""queueDepth": 1"#,
      #""disabled": true"#, #"{ "id": "control", "weight": 50 }"#, #""overrides": {}"#,
    ] {
      #expect(text.contains(expected), "\(expected)")
    }
    let path = temporaryFile(text)
    let validated = mediate(["validate", path])
    #expect(validated.code == 0, "\(validated.err)")
    #expect(mediate(["config", "--config", path]).out == printed.out)
  }

  @Test func builtInDefaultSpellsOutTheLiveFieldsDefaults() {
    let text = mediate(["config"]).out.joined(separator: "\n")
    #expect(text.contains(#""disabledNetworks": []"#))
    #expect(text.contains(#""queueDepth": 1"#))
    #expect(text.contains(#""experiments": []"#))
    #expect(!text.contains(#""version""#))
  }

  /// `--zone` keeps the configuration's version and switched-off networks, which apply to it too.
  @Test func zoneFilterKeepsVersionAndDisabledNetworks() throws {
    let printed = mediate(["config", "--config", temporaryFile(Self.liveFile), "--zone", "other"])
    #expect(printed.code == 0, "\(printed.err)")
    let config = try Self.load(printed.out.joined(separator: "\n"))
    #expect(config.version == "2026-12-01.1")
    #expect(config.disabledNetworks == ["google"])
    #expect(config.zones.map(\.id) == ["other"])
  }

  /// `validate` reports the new fields' problems by path, the built-in networks' callback checks
  /// included for an arm's line items.
  @Test func validateReportsExperimentProblemsByPath() throws {
    let bad = Self.liveFile.replacingOccurrences(of: #""weight": 3"#, with: #""weight": 0"#)
      .replacingOccurrences(of: #""queueDepth": 2"#, with: #""queueDepth": 9"#)
    let path = temporaryFile(bad)
    let result = mediate(["validate", path])
    #expect(result.code == ExitCode.dataError)
    #expect(
      result.err == [
        "\(path): zones[0].queueDepth: must be an integer between 1 and 5, found 9",
        "\(path): zones[0].experiments[1].arms[1].weight: must be an integer between 1 and 1000000, found 0",
      ])
    // The built-in networks' checks run once MediationKit's pass.
    let badCallback = temporaryFile(
      Self.liveFile.replacingOccurrences(of: "{EVENT_TOKEN}", with: "{NOT_A_MAX_MACRO}"))
    let callback = mediate(["validate", badCallback])
    #expect(callback.code == ExitCode.dataError)
    #expect(
      callback.err.count == 1
        && callback.err[0].hasPrefix(
          "\(badCallback): zones[0].experiments[0].arms[1].lineItems[1].serverCallback.url: "
            + "not a valid MAX callback template"),
      "\(callback.err)")
    let json = mediate(["validate", path, "--json"])
    #expect(json.code == ExitCode.dataError)
    #expect(
      json.out.first?.contains(#""path":"zones[0].experiments[1].arms[1].weight""#) == true, "\(json.out)")
  }
}
