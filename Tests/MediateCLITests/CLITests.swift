import Foundation
import MediateCLI
import MediationKit
import MediationKitSimulation
import MediationKitTesting
import Testing

/// Captures what the CLI writes.
final class Captured: Sendable {
  private let lines = Locked<(out: [String], err: [String])>(([], []))
  var out: [String] { lines.withLock { $0.out } }
  var err: [String] { lines.withLock { $0.err } }
  var output: CLIOutput {
    CLIOutput(
      out: { line in
        self.lines.withLock {
          $0.out.append(
            contentsOf: line.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
        }
      },
      err: { line in self.lines.withLock { $0.err.append(line) } }, stderrIsTerminal: false)
  }
}

/// Runs `mediate` in-process over scripted networks named like the built-in ones.
func mediate(_ arguments: [String], registry: AdapterRegistry = scriptedRegistry()) -> (
  code: Int32, out: [String], err: [String]
) {
  mediate(arguments, networks: { _ in registry })
}

/// Runs `mediate` in-process over the registries `networks` makes for a callback sender.
func mediate(
  _ arguments: [String], networks: @escaping ((any ServerCallbackSender)?) -> AdapterRegistry
) -> (code: Int32, out: [String], err: [String]) {
  let captured = Captured()
  let code = MediateCLI.run(arguments, networks: networks, output: captured.output)
  return (code, captured.out, captured.err)
}

/// Scripted empower/max/google: every load fills after 500 ms, every show completes.
func scriptedRegistry(fill: Bool = true) -> AdapterRegistry {
  let registry = AdapterRegistry()
  for id in ["empower", "google", "max"] {
    let loads: [String: [ScriptedAdapter.LoadScript]] = [:]
    let adapter = ScriptedAdapter(id: NetworkID(id), scheduler: VirtualScheduler(), loads: loads)
    try! registry.register(
      AdapterRegistry.Registration(info: adapter.info) { environment in
        ScriptedNetwork.make(id: NetworkID(id), scheduler: environment.scheduler, fill: fill)
      })
  }
  return registry
}

enum ScriptedNetwork {
  static func make(id: NetworkID, scheduler: any Scheduler, fill: Bool) -> ScriptedAdapter {
    let placements = [
      "emp-level-complete-high", "b3f1c0d2e4a59687", "ca-app-pub-3940256099942544/1712485313",
      "emp-level-complete-floor",
      "7c2e9a41d0b36f58", "ca-app-pub-3940256099942544/5224354917", "emp-daily-bonus",
    ]
    let script: ScriptedAdapter.LoadScript =
      fill
      ? .fill(after: .milliseconds(500))
      : .fail(after: .milliseconds(200), AdapterError(.noFill, vendorCode: 204, message: "no fill"))
    return ScriptedAdapter(
      id: id, scheduler: scheduler, loads: Dictionary(uniqueKeysWithValues: placements.map { ($0, [script]) })
    )
  }
}

/// A simulation's `--json` report without its wall-time figures (which differ run to run).
func simulationFigures(_ line: String?) throws -> [String: Any] {
  var object = try #require(JSONSerialization.jsonObject(with: Data((line ?? "").utf8)) as? [String: Any])
  object["wall_s"] = nil
  object["requests_per_s"] = nil
  return object
}

func temporaryFile(_ contents: String) -> String {
  let path = NSTemporaryDirectory() + "mediate-test-\(UUID().uuidString).json"
  _ = FileManager.default.createFile(atPath: path, contents: Data(contents.utf8))
  return path
}

@Suite("mediate CLI")
struct CLITests {
  @Test func runPrintsWaterfallTimelineAndOutcome() {
    let result = mediate(["--zone", "level_complete", "--networks", "max,google", "--seed", "3"])
    #expect(result.code == 0)
    #expect(result.err.isEmpty)
    let text = result.out.joined(separator: "\n")
    #expect(text.contains("Zone 'level_complete' · reward 100 coins · networks max, google · seed 3"))
    #expect(text.contains("skipped"))  // empower line items are skipped: not in --networks
    #expect(text.contains("Outcome: max filled at $12.50 eCPM; reward granted once: 100 coins"))
  }

  @Test func jsonLinesCarryTheRequiredKeys() throws {
    let result = mediate(["--zone", "level_complete", "--networks", "empower", "--json", "--seed", "9"])
    #expect(result.code == 0)
    let objects = try result.out.map {
      try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    #expect(
      objects.map { $0["event"] as? String } == [
        "loading", "ready", "shown", "revenue_paid", "rewarded", "closed",
      ])
    for object in objects {
      #expect(object["t_ms"] is Int)
      #expect(object["zone"] as? String == "level_complete")
      #expect(object.keys.contains("network"))
    }
    #expect(objects[4]["reward_type"] as? String == "coins")
    #expect(objects[4]["reward_amount"] as? Int == 100)
    #expect((objects[1]["waterfall"] as? [[String: Any]])?.first?["state"] as? String == "loaded")
  }

  @Test func sameSeedSameBytes() {
    let first = mediate(["--zone", "daily_bonus", "--json", "--seed", "5"])
    let second = mediate(["--zone", "daily_bonus", "--json", "--seed", "5"])
    #expect(first.out == second.out)
  }

  @Test func noFillStillExitsZero() {
    let result = mediate(["--zone", "daily_bonus", "--json"], registry: scriptedRegistry(fill: false))
    #expect(result.code == 0)
    #expect(result.out.last?.contains("\"event\":\"failed\"") == true)
  }

  @Test func unknownZoneListsKnownOnesAndExits64() {
    let result = mediate(["--zone", "nope"])
    #expect(result.code == 64)
    #expect(
      result.err[0]
        == "Error: unknown zone 'nope'; known: level_complete, daily_bonus, extra_life, store_coins")
    #expect(result.err[1].hasPrefix("Usage: mediate [run]"))
    #expect(result.err[2] == "See 'mediate --help'.")
    #expect(result.out.isEmpty)
  }

  @Test func unknownNetworkListsRegisteredOnesAndExits64() {
    let result = mediate(["--networks", "max,maxx"])
    #expect(result.code == 64)
    #expect(result.err[0] == "Error: unknown network 'maxx'; registered: empower, google, max")
  }

  @Test func usageMistakesExit64WithOneLineErrors() {
    for (arguments, message) in [
      (["--seed", "abc"], "Error: invalid value 'abc' for --seed: expected a non-negative integer"),
      (["--zone"], "Error: option '--zone' needs a value (ZONE)"),
      (["--frobnicate"], "Error: unknown option '--frobnicate' for 'run'"),
      (
        ["launch"],
        "Error: unknown command 'launch'; commands: run, networks, zones, validate, bench, rewards, "
          + "config, compare, optimize, calibrate, replay, inspect, verify-callback, verifier-keys, bench-callbacks, "
          + "bench-apply, bench-app"
      ),
      (
        ["--networks", "max,,google"],
        "Error: --networks has an empty entry; registered: empower, google, max"
      ),
      (["validate"], "Error: missing FILE to validate"),
      (["--json=yes"], "Error: option '--json' takes no value"),
    ] {
      let result = mediate(arguments)
      #expect(result.code == 64, "\(arguments)")
      #expect(result.err.first == message, "\(arguments)")
    }
  }

  @Test func badConfigDataExits65NamingFileAndPath() {
    let path = temporaryFile(
      #"{"zones": [{"id": "z", "reward": {"type": "coins", "amount": 1}, "loadTimeoutSeconds": 30, "adExpirySeconds": 60, "rewardGraceSeconds": 1, "autoReload": false, "lineItems": [{"network": "max", "placementId": "a", "priority": 0, "ecpm": -3, "timeoutSeconds": 5}]}]}"#
    )
    let run = mediate(["--config", path])
    #expect(run.code == 65)
    #expect(
      run.err == [
        "Error: \(path): zones[0].lineItems[0].ecpm: must be a finite number ≥ 0 and ≤ 10000, found -3"
      ])
    let validate = mediate(["validate", path])
    #expect(validate.code == 65)
    #expect(
      validate.err == [
        "\(path): zones[0].lineItems[0].ecpm: must be a finite number ≥ 0 and ≤ 10000, found -3"
      ])
  }

  @Test func invalidJSONExits65() {
    let path = temporaryFile("{ not json")
    let result = mediate(["validate", path])
    #expect(result.code == 65)
    #expect(result.err.first?.hasPrefix("\(path): not valid JSON") == true)
  }

  @Test func missingFileExits66() {
    let result = mediate(["--config", "/nonexistent/zones.json"])
    #expect(result.code == 66)
    #expect(result.err == ["Error: /nonexistent/zones.json: no such file"])
  }

  @Test func validateAcceptsAGoodFile() {
    let path = temporaryFile(
      #"{"zones": [{"id": "z", "reward": {"type": "coins", "amount": 1}, "loadTimeoutSeconds": 30, "adExpirySeconds": 60, "rewardGraceSeconds": 1, "autoReload": false, "lineItems": [{"network": "max", "placementId": "a", "priority": 0, "ecpm": 3, "timeoutSeconds": 5}]}]}"#
    )
    let result = mediate(["validate", path])
    #expect(result.code == 0)
    #expect(result.out == ["\(path): valid — 1 zones, 1 line items"])
    #expect(mediate(["--config", path, "--networks", "max"]).code == 0)
  }

  @Test func networksAndZonesList() throws {
    let networks = mediate(["networks", "--json"])
    #expect(networks.code == 0)
    let object = try #require(
      JSONSerialization.jsonObject(with: Data(networks.out[0].utf8)) as? [String: Any])
    #expect(
      (object["networks"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [
        "empower", "google", "max",
      ])
    let zones = mediate(["zones"])
    #expect(zones.code == 0)
    #expect(zones.out.contains { $0.hasPrefix("level_complete — reward 100 coins") })
  }

  /// The three built-in networks register (their versions fit this MediationKit), and
  /// `mediate networks` shows each one's adapter API version and supported SDK range.
  @Test func builtInNetworksRegisterAndShowTheirCompatibility() throws {
    let registry = BuiltInNetworks.registry()
    #expect(registry.networkIDs == ["empower", "google", "max"])
    for registration in registry.all {
      #expect(AdapterCompatibility.check(registration.info) == .compatible, "\(registration.info.id)")
    }
    let json = mediate(["networks", "--json"], registry: registry)
    let object = try #require(JSONSerialization.jsonObject(with: Data(json.out[0].utf8)) as? [String: Any])
    #expect(object["adapter_api_version"] as? String == AdapterCompatibility.coreAPIVersion.description)
    let max = try #require((object["networks"] as? [[String: Any]])?.first { $0["id"] as? String == "max" })
    #expect(max["adapter_api_version"] as? String == "2.1.0")
    #expect(max["supported_sdk_versions"] as? [String: String] == ["min": "13.0.0", "below": "14.0.0"])
    let text = mediate(["networks"], registry: registry).out
    #expect(text.contains { $0.hasPrefix("max ") && $0.contains("13.3.1-sim   13.0.0..<14.0.0  2.1.0") })
    #expect(
      text.contains {
        $0.hasPrefix(
          "Compatibility: this MediationKit provides adapter API \(AdapterCompatibility.coreAPIVersion).")
      })
  }

  @Test func helpAndVersion() {
    for command in ["", "networks", "zones", "validate", "run"] {
      let result = mediate((command.isEmpty ? [] : [command]) + ["--help"])
      #expect(result.code == 0)
      #expect(result.out.contains { $0.hasPrefix("USAGE: mediate") })
    }
    #expect(mediate(["--version"]).out == ["mediate \(MediateCLI.version)"])
  }

  /// Every row of every command's help: the name, then at least one space before the
  /// description in its column, or the description alone on the next line under the others
  /// (`--pause-before-ack` and `--config-cache DIR` fill the name column).
  @Test func helpNeverRunsANameIntoItsDescription() {
    let top = mediate(["--help"]).out
    let commands = top.drop { $0 != "COMMANDS:" }.dropFirst().prefix { !$0.isEmpty }
      .map { String($0.dropFirst(2).prefix { $0 != " " }) }
    #expect(commands.count >= 10)
    var rows = 0
    for command in [""] + commands {
      let help = mediate((command.isEmpty ? [] : [command]) + ["--help"]).out
      #expect(help.contains("OPTIONS:"), "\(command)")
      for (index, line) in help.enumerated() where line.hasPrefix("  ") && !line.hasPrefix("   ") {
        rows += 1
        let characters = Array(line)
        let next = index + 1 < help.count ? help[index + 1] : ""
        if next.hasPrefix(String(repeating: " ", count: 20)), next.count > 20 {
          // A name too long for its column, alone on its line.
          #expect(!line.dropFirst(2).contains("  "), "\(command): \(line)")
        } else {
          #expect(
            characters.count > 20 && characters[19] == " " && characters[20] != " ", "\(command): \(line)")
        }
      }
    }
    #expect(rows > 50)
    let run = mediate(["run", "--help"]).out
    let pause = run.firstIndex(of: "  --pause-before-ack")
    #expect(pause != nil)
    if let pause {
      #expect(
        run[pause + 1] == String(repeating: " ", count: 20)
          + "With --ledger: before acknowledging the rewards, wait for a line on standard input.")
    }
  }
}

@Suite("mediate as a library for other tools")
struct ProgramNameTests {
  @Test func toolsBuiltOnTheCLIUseTheirOwnName() {
    let captured = Captured()
    let code = MediateCLI.run(
      ["--frobnicate"], registry: scriptedRegistry(), output: captured.output, programName: "mediate-unity")
    #expect(code == 64)
    #expect(captured.err[1].hasPrefix("Usage: mediate-unity [run]"))
    #expect(captured.err[2] == "See 'mediate-unity --help'.")
    let version = Captured()
    _ = MediateCLI.run(
      ["--version"], registry: scriptedRegistry(), output: version.output, programName: "mediate-unity")
    #expect(version.out == ["mediate-unity \(MediateCLI.version)"])
  }
}

@Suite("Simulator oracle coverage")
struct OracleCoverageTests {
  @Test func networksThatCannotQuoteAreNamed() {
    let result = mediate(["--zone", "level_complete", "--networks", "max", "--requests", "50", "--json"])
    #expect(result.code == 0)
    #expect(
      result.err == [
        "note: the oracle leaves out max: their adapters cannot quote (SimulatedNetwork), so oracle revenue and efficiency ignore them"
      ])
  }
}
