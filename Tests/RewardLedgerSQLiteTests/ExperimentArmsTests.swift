import Foundation
import MediationKit
import StoreTestSupport
import Testing

@testable import RewardLedgerSQLite

/// The ledger keeps each reward's A/B test arms (schema version 2), and reads a version 1 file —
/// written before arms existed — upgrading it in place, its rewards with no arm.
@Suite("SQLite ledger: experiment arms")
struct ExperimentArmsTests {
  @Test func armsRoundTrip() throws {
    let ledger = try SQLiteRewardLedger.inMemory()
    var withArms = entry("t1")
    withArms.reward.experimentArms = ["e": "treatment", "f": "control"]
    try ledger.record(withArms)
    try ledger.record(entry("t2", at: 2_000))
    #expect(try ledger.pending() == [withArms, entry("t2", at: 2_000)])
    #expect(
      try ledger.entry(transactionID: "t1")?.entry.reward.experimentArms == withArms.reward.experimentArms)
  }

  @Test func aVersion1FileIsUpgradedAndItsRowsReadWithNoArm() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("v1.sqlite")
    // The version 1 schema, as MediationKit wrote it before arms.
    try rawSQL(
      path,
      """
      CREATE TABLE rewards (
        transaction_id TEXT PRIMARY KEY NOT NULL, zone_id TEXT NOT NULL, network TEXT NOT NULL,
        reward_type TEXT NOT NULL, reward_amount INTEGER NOT NULL, network_reward_type TEXT,
        network_reward_amount REAL, recorded_at_ms INTEGER NOT NULL, deliveries INTEGER NOT NULL,
        acknowledged_at_ms INTEGER,
        CHECK ((network_reward_type IS NULL) = (network_reward_amount IS NULL)))
      """)
    try rawSQL(
      path,
      "INSERT INTO rewards VALUES ('old', 'level_complete', 'max', 'coins', 100, NULL, NULL, 1000, 1, NULL)")
    try rawSQL(path, "PRAGMA user_version = 1")
    let ledger = try SQLiteRewardLedger(path: path)
    #expect(try ledger.pending() == [entry("old")])
    #expect(try rawSQL(path, "PRAGMA user_version") == ["2"])
    var new = entry("new", at: 2_000)
    new.reward.experimentArms = ["e": "b"]
    try ledger.record(new)
    // A second open finds it upgraded and leaves it so.
    let again = try SQLiteRewardLedger(path: path)
    #expect(try again.pending() == [entry("old"), new])
  }

  @Test func unreadableArmsTextReadsAsNoArm() {
    #expect(SQLiteRewardLedger.decodeArms("not json").isEmpty)
    #expect(SQLiteRewardLedger.decodeArms(#"{"e": 3}"#).isEmpty)
    #expect(SQLiteRewardLedger.decodeArms(#"{"e": "a"}"#) == ["e": "a"])
  }
}
