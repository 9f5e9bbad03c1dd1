import Foundation
import MediateCLI
import MediationKit
import RewardLedgerSQLite
import Testing

/// A ledger file in a directory of its own, removed by `remove()`.
private struct LedgerFixture {
  let directory: String
  let path: String

  init(_ entries: [LedgerEntry] = [], acknowledged: [String] = [], clock: Int64 = 1_700_000_000_123) throws {
    directory = NSTemporaryDirectory() + "mediate-rewards-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    path = directory + "/rewards.sqlite"
    let ledger = try SQLiteRewardLedger(path: path, wallClockMilliseconds: { clock })
    for entry in entries { try ledger.record(entry) }
    for id in acknowledged { try ledger.acknowledge(transactionID: id) }
  }

  func remove() { try? FileManager.default.removeItem(atPath: directory) }
}

private func reward(
  _ id: String, at time: Int64, zone: String = "level_complete", network: String = "max", deliveries: Int = 1,
  networkReward: AdapterSignal.NetworkReward? = nil
) -> LedgerEntry {
  LedgerEntry(
    reward: Reward(
      type: "coins", amount: 100, transactionID: id, network: NetworkID(network), networkReward: networkReward
    ),
    zoneID: zone, recordedAtMilliseconds: time, deliveries: deliveries)
}

@Suite("mediate rewards")
struct RewardsCommandTests {
  @Test func listsPendingRewardsOldestFirst() throws {
    let fixture = try LedgerFixture(
      [
        reward("tx-late", at: 1_700_000_000_123, zone: "daily_bonus", network: "google", deliveries: 3),
        reward("tx-early", at: 0),
        reward("tx-done", at: 5),
      ], acknowledged: ["tx-done"])
    defer { fixture.remove() }
    let result = mediate(["rewards", "--ledger", fixture.path])
    #expect(result.code == 0)
    #expect(result.err.isEmpty)
    #expect(
      result.out == [
        "Pending rewards in \(fixture.path), oldest first:",
        "TRANSACTION ID  ZONE            NETWORK  REWARD       RECORDED (UTC)            DELIVERIES",
        "tx-early        level_complete  max      coins × 100  1970-01-01T00:00:00.000Z  1",
        "tx-late         daily_bonus     google   coins × 100  2023-11-14T22:13:20.123Z  3",
        "2 pending",
      ])
  }

  @Test func timesBefore1970AreFormattedDownToTheMillisecond() throws {
    let fixture = try LedgerFixture([reward("tx-old", at: -5)])
    defer { fixture.remove() }
    let result = mediate(["rewards", "--ledger", fixture.path])
    #expect(result.out[2].contains("  1969-12-31T23:59:59.995Z  "))
  }

  @Test func saysSoWhenNothingIsPending() throws {
    let fixture = try LedgerFixture([reward("tx-done", at: 5)], acknowledged: ["tx-done"])
    defer { fixture.remove() }
    let result = mediate(["rewards", "--ledger", fixture.path])
    #expect(result.code == 0)
    #expect(result.out == ["no pending rewards in \(fixture.path)"])
    #expect(mediate(["rewards", "--ledger", fixture.path, "--json"]).out == ["[]"])
  }

  @Test func allIncludesAcknowledgedRewardsWithTheirTime() throws {
    let fixture = try LedgerFixture(
      [reward("tx-a", at: 1_000), reward("tx-b", at: 2_000)], acknowledged: ["tx-a"], clock: 1_700_000_000_000
    )
    defer { fixture.remove() }
    let result = mediate(["rewards", "--ledger", fixture.path, "--all"])
    #expect(result.code == 0)
    #expect(
      result.out == [
        "Rewards in \(fixture.path), pending and acknowledged, oldest first:",
        "TRANSACTION ID  ZONE            NETWORK  REWARD       RECORDED (UTC)            DELIVERIES  ACKNOWLEDGED (UTC)",
        "tx-a            level_complete  max      coins × 100  1970-01-01T00:00:01.000Z  1           2023-11-14T22:13:20.000Z",
        "tx-b            level_complete  max      coins × 100  1970-01-01T00:00:02.000Z  1           pending",
        "1 pending, 1 acknowledged",
      ])
  }

  @Test func jsonIsAnArrayOfSnakeCaseObjects() throws {
    let fixture = try LedgerFixture(
      [
        reward("tx-a", at: 1_000, networkReward: AdapterSignal.NetworkReward(type: "Coin", amount: 2.5)),
        reward("tx-b", at: 2_000, network: "google"),
      ], acknowledged: ["tx-a"], clock: 9_000)
    defer { fixture.remove() }
    let pending = mediate(["rewards", "--ledger", fixture.path, "--json"])
    #expect(pending.code == 0)
    #expect(pending.out.count == 1)
    let objects = try #require(
      JSONSerialization.jsonObject(with: Data(pending.out[0].utf8)) as? [[String: Any]])
    #expect(objects.count == 1)
    let object = try #require(objects.first)
    #expect(
      Set(object.keys) == [
        "transaction_id", "zone", "network", "reward_type", "reward_amount", "network_reward", "recorded_at",
        "recorded_at_ms", "deliveries", "acknowledged", "acknowledged_at", "acknowledged_at_ms",
      ])
    #expect(object["transaction_id"] as? String == "tx-b")
    #expect(object["network"] as? String == "google")
    #expect(object["reward_amount"] as? Int == 100)
    #expect(object["recorded_at"] as? String == "1970-01-01T00:00:02.000Z")
    #expect(object["recorded_at_ms"] as? Int == 2_000)
    #expect(object["acknowledged"] as? Bool == false)
    #expect(object["acknowledged_at"] is NSNull)
    #expect(object["network_reward"] is NSNull)

    let all = mediate(["rewards", "--ledger", fixture.path, "--json", "--all"])
    let both = try #require(JSONSerialization.jsonObject(with: Data(all.out[0].utf8)) as? [[String: Any]])
    #expect(both.map { $0["transaction_id"] as? String } == ["tx-a", "tx-b"])
    #expect(both[0]["acknowledged_at_ms"] as? Int == 9_000)
    #expect(both[0]["acknowledged_at"] as? String == "1970-01-01T00:00:09.000Z")
    let networkReward = try #require(both[0]["network_reward"] as? [String: Any])
    #expect(networkReward["type"] as? String == "Coin")
    #expect(networkReward["amount"] as? Double == 2.5)
  }

  @Test func ackAcknowledgesOnceThenRefuses() throws {
    let fixture = try LedgerFixture([reward("tx-a", at: 1_000), reward("tx-b", at: 2_000)])
    defer { fixture.remove() }
    let first = mediate(["rewards", "--ledger", fixture.path, "--ack", "tx-a"])
    #expect(first.code == 0)
    #expect(
      first.out == [
        "acknowledged tx-a: coins × 100 in zone level_complete from max, recorded 1970-01-01T00:00:01.000Z"
      ])
    #expect(try SQLiteRewardLedger(path: fixture.path).pending().map(\.reward.transactionID) == ["tx-b"])

    let again = mediate(["rewards", "--ledger", fixture.path, "--ack", "tx-a"])
    #expect(again.code == 65)
    #expect(again.err.count == 1)
    #expect(
      again.err[0].hasPrefix("Error: transaction id 'tx-a' in \(fixture.path) was already acknowledged at "))
    #expect(again.err[0].hasSuffix("; expected a pending reward"))

    let unknown = mediate(["rewards", "--ledger", fixture.path, "--ack", "tx-zzz"])
    #expect(unknown.code == 65)
    #expect(
      unknown.err == [
        "Error: transaction id 'tx-zzz' is not in the ledger at \(fixture.path); expected the id of a pending "
          + "reward (see 'mediate rewards --ledger \(fixture.path)')"
      ])

    let json = mediate(["rewards", "--ledger", fixture.path, "--ack", "tx-b", "--json"])
    #expect(json.code == 0)
    let object = try #require(JSONSerialization.jsonObject(with: Data(json.out[0].utf8)) as? [String: Any])
    #expect(object["transaction_id"] as? String == "tx-b")
    #expect(object["acknowledged"] as? Bool == true)
    #expect(object["acknowledged_at_ms"] is Int)
  }

  @Test func aMissingLedgerExits66AndIsNotCreated() throws {
    let directory = NSTemporaryDirectory() + "mediate-rewards-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/typo.sqlite"
    for arguments in [["rewards", "--ledger", path], ["rewards", "--ledger", path, "--ack", "tx-1"]] {
      let result = mediate(arguments)
      #expect(result.code == 66)
      #expect(result.err == ["Error: no ledger at \(path)"])
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == [])

    let asDirectory = mediate(["rewards", "--ledger", directory])
    #expect(asDirectory.code == 66)
    #expect(asDirectory.err == ["Error: \(directory) is a directory; expected a reward ledger file"])
  }

  @Test func aFileThatIsNotALedgerExits65() throws {
    let path = temporaryFile(#"{"zones": []}"#)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let result = mediate(["rewards", "--ledger", path])
    #expect(result.code == 65)
    #expect(result.err.count == 1)
    #expect(result.err[0].hasPrefix("Error: \(path) is not a SQLite database"))
    #expect(FileManager.default.contents(atPath: path) == Data(#"{"zones": []}"#.utf8))
  }

  @Test func usageMistakesExit64() {
    for (arguments, message) in [
      (["rewards"], "Error: missing --ledger FILE: the reward ledger to read"),
      (["rewards", "--ledger"], "Error: option '--ledger' needs a value (FILE)"),
      (
        ["rewards", "--ledger", "x.sqlite", "--all", "--ack", "tx"],
        "Error: --ack acknowledges one reward and --all lists them: give one of them"
      ),
      (["rewards", "--ledger", "x.sqlite", "extra"], "Error: unexpected argument 'extra'"),
      (["rewards", "--seed", "1"], "Error: unknown option '--seed' for 'rewards'"),
    ] {
      let result = mediate(arguments)
      #expect(result.code == 64, "\(arguments)")
      #expect(result.err.first == message, "\(arguments)")
      #expect(
        result.err.dropFirst().first == "Usage: mediate rewards --ledger FILE [--all] [--ack ID] [--json]")
    }
  }

  @Test func helpDescribesTheOptions() {
    let result = mediate(["rewards", "--help"])
    #expect(result.code == 0)
    #expect(result.out.contains("USAGE: mediate rewards --ledger FILE [--all] [--ack ID] [--json]"))
    for option in ["--ledger FILE", "--all", "--ack ID", "--json"] {
      #expect(result.out.contains { $0.hasPrefix("  \(option) ") }, "\(option)")
    }
    #expect(mediate(["--help"]).out.contains { $0.hasPrefix("  rewards ") })
  }
}
