import Foundation
import MediateCLI
import MediationKit
import Testing

/// `mediate networks` shows when each network starts and how its start ended, including the
/// networks started on first use or never.
@Suite("mediate networks: start modes")
struct NetworkStartsCommandTests {
  static func networks(_ arguments: [String]) throws -> [String: [String: Any]] {
    let result = mediate(["networks", "--json"] + arguments, registry: BuiltInNetworks.registry())
    #expect(result.code == 0, "\(result.err)")
    let object = try #require(JSONSerialization.jsonObject(with: Data(result.out[0].utf8)) as? [String: Any])
    let list = try #require(object["networks"] as? [[String: Any]])
    return Dictionary(uniqueKeysWithValues: list.map { ($0["id"] as! String, $0) })
  }

  @Test func everyNetworkStartsAtLaunchByDefault() throws {
    let networks = try Self.networks([])
    #expect(networks.values.map { $0["starts"] as? String } == ["at_launch", "at_launch", "at_launch"])
    #expect(networks.values.map { $0["status"] as? String } == ["ready", "ready", "ready"])
  }

  @Test func lazyAndNeverStartedNetworksShowThatTheyDidNotStart() throws {
    let networks = try Self.networks(["--start-on-first-use", "max", "--never-start", "google"])
    #expect(networks["max"]?["starts"] as? String == "on_first_use")
    #expect(networks["max"]?["status"] as? String == "not_started")
    #expect(networks["max"]?["status_description"] as? String == "starts on first use")
    #expect(networks["google"]?["starts"] as? String == "never")
    #expect(networks["google"]?["status"] as? String == "not_started")
    #expect(networks["empower"]?["status"] as? String == "ready")

    let text = mediate(["networks", "--never-start", "google"], registry: BuiltInNetworks.registry()).out
    #expect(text.contains { $0.hasPrefix("google ") && $0.contains("not_started  -         never ") })
    #expect(text.contains { $0.hasPrefix("max ") && $0.contains(" at_launch ") })
  }

  @Test func badListsAreRefusedWithTheReason() {
    let unknown = mediate(["networks", "--never-start", "maxx"], registry: BuiltInNetworks.registry())
    #expect(unknown.code != 0)
    #expect(unknown.err.first?.contains("maxx") == true, "\(unknown.err)")
    let both = mediate(
      ["networks", "--never-start", "max", "--start-on-first-use", "max"],
      registry: BuiltInNetworks.registry())
    #expect(both.code != 0)
    #expect(
      both.err.first == "Error: 'max' is in both --start-on-first-use and --never-start; name it in one",
      "\(both.err)")
    let empty = mediate(["networks", "--never-start", "max,"], registry: BuiltInNetworks.registry())
    #expect(empty.err.first?.hasPrefix("Error: --never-start has an empty entry") == true, "\(empty.err)")
  }
}
