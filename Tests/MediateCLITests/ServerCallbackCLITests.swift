import Foundation
import MediateCLI
import MediationKit
import MediationKitTesting
import RewardCallbacks
import Testing

@Suite("mediate run sends server callbacks; verifier-keys")
struct ServerCallbackCLITests {
  static let eventKey = "cli-event-key"

  /// A config file whose one zone has a MAX and a Google line item calling `receiver`.
  static func configFile(receiver: LoopbackHTTPReceiver, maxURL: String? = nil, eventKey: String? = eventKey)
    throws -> String
  {
    let maxTemplate =
      maxURL
      ?? "\(receiver.baseURL)/max?event_id={EVENT_ID}&token={EVENT_TOKEN}&user_id={USER_ID}&amount={AMOUNT}"
    var maxCallback: [String: Any] = ["url": maxTemplate]
    if let eventKey { maxCallback["eventKey"] = eventKey }
    let config: [String: Any] = [
      "zones": [
        [
          "id": "level_complete", "reward": ["type": "coins", "amount": 40], "loadTimeoutSeconds": 30,
          "adExpirySeconds": 3600, "rewardGraceSeconds": 5, "autoReload": true,
          "lineItems": [
            [
              "network": "max", "placementId": "max-unit", "priority": 0, "ecpm": 15, "timeoutSeconds": 8,
              "serverCallback": maxCallback,
            ],
            [
              "network": "google", "placementId": "ca-app-pub-1/2", "priority": 0, "ecpm": 12,
              "timeoutSeconds": 8, "serverCallback": ["url": "\(receiver.baseURL)/ssv"],
            ],
          ],
        ]
      ]
    ]
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("s2s-cli-\(UUID().uuidString).json").path
    try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: path))
    return path
  }

  static func run(_ arguments: [String]) -> (code: Int32, out: [String], err: [String]) {
    mediate(arguments, networks: BuiltInNetworks.registry(serverCallbacks:))
  }

  @Test func aMaxCycleSendsItsCallbackAndReportsIt() throws {
    let receiver = try LoopbackHTTPReceiver()
    defer { receiver.stop() }
    let config = try Self.configFile(receiver: receiver)
    defer { try? FileManager.default.removeItem(atPath: config) }
    let result = Self.run(["--config", config, "--networks", "max", "--seed", "3", "--user-id", "u 1&2"])
    #expect(result.code == 0)
    let request = try #require(receiver.requests.first)
    #expect(receiver.requests.count == 1)
    #expect(request.path == "/max")
    let line = try #require(result.err.first { $0.hasPrefix("server callback: max GET ") })
    #expect(line.hasSuffix("→ HTTP 200 after 1 attempt"))
    #expect(line.contains(request.target))
    let template = try MaxCallbackTemplate(
      "\(receiver.baseURL)/max?event_id={EVENT_ID}&token={EVENT_TOKEN}&user_id={USER_ID}&amount={AMOUNT}")
    let reward = try MaxCallbackVerifier(template: template, eventKey: Self.eventKey).verify(request.target)
    #expect(reward.userID == "u 1&2")
    #expect(reward.amount == "40")
  }

  @Test func aGoogleCycleSendsASignedCallbackThatVerifiesWithThePrintedKeys() throws {
    let receiver = try LoopbackHTTPReceiver()
    defer { receiver.stop() }
    let config = try Self.configFile(receiver: receiver)
    defer { try? FileManager.default.removeItem(atPath: config) }
    let result = Self.run([
      "--config", config, "--networks", "google", "--seed", "5", "--user-id", "u-5", "--json",
    ])
    #expect(result.code == 0)
    let request = try #require(receiver.requests.first)
    #expect(request.path == "/ssv")
    let last = try #require(result.out.last)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
    #expect(object["event"] as? String == "server_callback")
    #expect(object["network"] as? String == "google")
    #expect(object["delivered"] as? Bool == true)
    #expect(object["status"] as? Int == 200)
    #expect(object["attempts"] as? Int == 1)
    #expect((object["url"] as? String)?.hasSuffix(request.target) == true)

    let keys = Self.run(["verifier-keys", "--network", "google", "--seed", "5"])
    #expect(keys.code == 0)
    let keysFile = FileManager.default.temporaryDirectory
      .appendingPathComponent("s2s-keys-\(UUID().uuidString).json").path
    defer { try? FileManager.default.removeItem(atPath: keysFile) }
    try Data(keys.out.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: keysFile))
    let verified = Self.run(
      ["verify-callback", "--network", "google", "--keys", keysFile, receiver.baseURL + request.target])
    #expect(verified.code == 0)
    let reward = try GoogleSSVVerifier(keys: try VerifierKeys(json: Data(keys.out.joined().utf8)))
      .verify(request.target)
    #expect(reward.userID == "u-5")
    #expect(reward.amount == "40")
    // Another seed's keys do not verify it.
    let otherKeys = Self.run(["verifier-keys", "--network", "google", "--seed", "6"])
    #expect(throws: CallbackRejection.self) {
      try GoogleSSVVerifier(keys: try VerifierKeys(json: Data(otherKeys.out.joined().utf8))).verify(
        request.target)
    }
  }

  @Test func aFailingEndpointIsRetriedAndReported() throws {
    let receiver = try LoopbackHTTPReceiver(script: [], fallback: .status(503))
    defer { receiver.stop() }
    let config = try Self.configFile(receiver: receiver)
    defer { try? FileManager.default.removeItem(atPath: config) }
    let result = Self.run(["--config", config, "--networks", "max", "--seed", "3"])
    #expect(result.code == 0)
    #expect(receiver.requests.count == 3)
    #expect(result.err.contains { $0.hasSuffix("→ not delivered (HTTP 503) after 3 attempts") })
  }

  @Test func theSimulatorSendsNothing() throws {
    let receiver = try LoopbackHTTPReceiver()
    defer { receiver.stop() }
    let config = try Self.configFile(receiver: receiver)
    defer { try? FileManager.default.removeItem(atPath: config) }
    let result = Self.run(["--config", config, "--requests", "50", "--seed", "3"])
    #expect(result.code == 0)
    #expect(receiver.requests.isEmpty)
    #expect(!result.err.contains { $0.hasPrefix("server callback") })
    let help = Self.run(["run", "--help"]).out.joined(separator: "\n")
    #expect(help.contains("(server callbacks are not sent)"))
    #expect(help.contains("--user-id ID"))
  }

  @Test func aBadUserIDIsAUsageError() {
    let long = Self.run(["--user-id", String(repeating: "x", count: 8193)])
    #expect(long.code == 64)
    #expect(
      long.err.first
        == "Error: invalid value for --user-id: 8193 UTF-16 code units long; at most 8192 are allowed")
    let empty = Self.run(["--user-id", ""])
    #expect(empty.code == 64)
    #expect(empty.err.first == "Error: invalid value '' for --user-id: expected a non-empty id")
  }

  @Test func configChecksNameThePathOfABadCallback() throws {
    let receiver = try LoopbackHTTPReceiver()
    defer { receiver.stop() }
    let unknownMacro = try Self.configFile(receiver: receiver, maxURL: "https://a.example/cb?u={USERID}")
    defer { try? FileManager.default.removeItem(atPath: unknownMacro) }
    let result = Self.run(["validate", unknownMacro])
    #expect(result.code == 65)
    #expect(result.err.count == 1)
    #expect(
      result.err.first?.hasPrefix(
        "\(unknownMacro): zones[0].lineItems[0].serverCallback.url: not a valid MAX callback template: ")
        == true)
    #expect(result.err.first?.contains("unknown macro {USERID}") == true)
    let noKey = try Self.configFile(receiver: receiver, eventKey: nil)
    defer { try? FileManager.default.removeItem(atPath: noKey) }
    let missing = Self.run(["--config", noKey])
    #expect(missing.code == 65)
    #expect(
      missing.err.first
        == "Error: \(noKey): zones[0].lineItems[0].serverCallback.eventKey: required for network 'max' (the account's S2S event key, which keys {EVENT_TOKEN} and {EVENT_TOKEN_ALL}), found none"
    )
  }

  @Test(arguments: [
    (["verifier-keys"], "Error: missing --network; networks with verifier keys: google"),
    (
      ["verifier-keys", "--network", "empower"],
      "Error: unknown network 'empower'; networks with verifier keys: google"
    ),
    (
      ["verifier-keys", "--network", "max"],
      "Error: max publishes no keys: its callbacks carry an event token keyed with the ad unit's event key (check them with 'mediate verify-callback --network max --key KEY')"
    ),
    (["verifier-keys", "--network", "google", "extra"], "Error: unexpected argument 'extra'"),
    (
      ["verifier-keys", "--network", "google", "--seed", "-1"],
      "Error: invalid value '-1' for --seed: expected a non-negative integer"
    ),
  ])
  func verifierKeysUsageErrors(arguments: [String], message: String) {
    let result = Self.run(arguments)
    #expect(result.code == 64)
    #expect(result.err.first == message)
    #expect(result.err.contains("Usage: mediate verifier-keys --network google [--seed N]"))
  }

  @Test func verifierKeysAreTheSameForTheSameSeed() throws {
    let one = Self.run(["verifier-keys", "--network", "google", "--seed", "9"])
    let again = Self.run(["verifier-keys", "--network", "google", "--seed", "9"])
    #expect(one.code == 0)
    #expect(one.out == again.out)
    let keys = try VerifierKeys(json: Data(one.out.joined(separator: "\n").utf8))
    #expect(keys.keys.count == 1)
  }

  @Test func aToolWithoutGoogleSaysSo() {
    let registry = AdapterRegistry()
    let result = mediate(["verifier-keys", "--network", "google"], registry: registry)
    #expect(result.code == 64)
    #expect(result.err.first == "Error: no 'google' adapter is registered in this tool")
    let scripted = mediate(["verifier-keys", "--network", "google"])
    #expect(scripted.code == 64)
    #expect(
      scripted.err.first
        == "Error: the 'google' adapter registered in this tool is not the simulated Google SDK; it has no keys"
    )
  }
}
