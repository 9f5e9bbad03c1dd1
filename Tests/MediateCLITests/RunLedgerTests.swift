import Foundation
import MediateCLI
import MediationKit
import RewardLedgerSQLite
import Testing

/// `mediate --ledger FILE` in-process: what it prints, records and acknowledges, and its usage
/// errors. (The SIGKILL test on the real binary is `LedgerCrashTests`.)
@Suite("mediate --ledger")
struct RunLedgerTests {
  /// A fresh directory with a ledger path in it, removed at the end.
  static func withLedgerPath(_ body: (String) throws -> Void) throws {
    let directory = NSTemporaryDirectory() + "mediate-run-ledger-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try body(directory + "/rewards.sqlite")
  }

  static let pending = LedgerEntry(
    reward: Reward(type: "gems", amount: 7, transactionID: "tx-left-over", network: "max"),
    zoneID: "level_complete", recordedAtMilliseconds: 1_700_000_000_000)

  @Test func aRunRecordsItsRewardAndAcknowledgesItOncePrinted() throws {
    try Self.withLedgerPath { path in
      let result = mediate(["--zone", "level_complete", "--networks", "empower", "--ledger", path, "--json"])
      #expect(result.code == 0)
      let rewarded = result.out.filter { $0.contains("\"event\":\"rewarded\"") }
      #expect(rewarded.count == 1)
      #expect(!rewarded[0].contains("redelivery"))
      let records = try SQLiteRewardLedger(path: path, createIfMissing: false).entries(
        includeAcknowledged: true)
      #expect(records.count == 1)
      #expect(records.first?.isAcknowledged == true)
      #expect(rewarded[0].contains(records.first?.entry.reward.transactionID ?? "missing"))
    }
  }

  @Test func aRewardLeftPendingIsPrintedFirstAsARedeliveryThenAcknowledged() throws {
    try Self.withLedgerPath { path in
      try SQLiteRewardLedger(path: path).record(Self.pending)
      let json = mediate(["--zone", "level_complete", "--networks", "empower", "--ledger", path, "--json"])
      #expect(json.code == 0)
      let first = try #require(json.out.first)
      #expect(first.contains("\"event\":\"rewarded\""))
      #expect(first.contains("\"redelivery\":true"))
      #expect(first.contains("tx-left-over"))
      #expect(json.out.filter { $0.contains("\"redelivery\":true") }.count == 1)
      let ledger = try SQLiteRewardLedger(path: path, createIfMissing: false)
      #expect(try ledger.pending().isEmpty)
      #expect(try ledger.entry(transactionID: "tx-left-over")?.entry.deliveries == 2)
    }
  }

  @Test func theTextTimelineMarksTheRedeliveryAndTheOutcomeIgnoresIt() throws {
    try Self.withLedgerPath { path in
      try SQLiteRewardLedger(path: path).record(Self.pending)
      let text = mediate(["--zone", "level_complete", "--networks", "empower", "--ledger", path])
      #expect(text.code == 0)
      let line = try #require(text.out.first { $0.contains("tx-left-over") })
      #expect(line.contains("rewarded"))
      #expect(line.hasSuffix("— redelivered: not acknowledged in an earlier run"))
      let outcome = try #require(text.out.first { $0.hasPrefix("Outcome:") })
      #expect(outcome.contains("empower filled"))
      #expect(outcome.hasSuffix("reward granted once: 100 coins"))
    }
  }

  @Test(arguments: [
    (
      ["--pause-before-ack"], "Error: --pause-before-ack needs --ledger FILE"
    ),
    (
      ["--ledger", "/tmp/never-created.sqlite", "--requests", "10"],
      "Error: --ledger records the rewards of one cycle; it cannot be combined with --requests"
    ),
  ])
  func usageErrors(arguments: [String], message: String) {
    let result = mediate(arguments)
    #expect(result.code == 64)
    #expect(result.err.first == message)
    #expect(!FileManager.default.fileExists(atPath: "/tmp/never-created.sqlite"))
  }

  @Test func aFileThatIsNotALedgerIsBadDataAndStaysUnchanged() throws {
    try Self.withLedgerPath { path in
      try Data("not a database\n".utf8).write(to: URL(fileURLWithPath: path))
      let result = mediate(["--zone", "level_complete", "--ledger", path])
      #expect(result.code == 65)
      #expect(result.err.first?.contains(path) == true)
      #expect(try String(contentsOfFile: path, encoding: .utf8) == "not a database\n")
    }
  }
}
