import SQLiteSupport

/// The ledger's tables and statements, in one place. Every value is bound to a `?N` parameter;
/// no SQL here is ever built from data.
enum LedgerSchema {
  /// The schema version this code writes and reads, kept in `PRAGMA user_version`. A file with a
  /// higher one was written by a newer MediationKit and is refused, never altered.
  static let version: Int64 = 2

  /// The ledger as a kind of SQLite store file: its name in messages and its schema.
  static let kind = SQLiteStoreKind(
    name: "reward ledger", shortName: "ledger", writeReason: "rewards are recorded in it", version: version,
    table: "rewards", create: create, migrations: migrations)

  /// Version 2 (version 1 plus `experiment_arms`): one row per reward, keyed by transaction id. An acknowledged reward keeps its row
  /// (with `acknowledged_at_ms` set) as history, so acknowledging it again is a no-op and
  /// recording its id again is refused, until ``SQLiteRewardLedger/pruneAcknowledged(olderThanMilliseconds:)``
  /// removes it.
  static let create = [
    """
    CREATE TABLE rewards (
      transaction_id TEXT PRIMARY KEY NOT NULL,
      zone_id TEXT NOT NULL,
      network TEXT NOT NULL,
      reward_type TEXT NOT NULL,
      reward_amount INTEGER NOT NULL,
      network_reward_type TEXT,
      network_reward_amount REAL,
      recorded_at_ms INTEGER NOT NULL,
      deliveries INTEGER NOT NULL,
      acknowledged_at_ms INTEGER,
      experiment_arms TEXT,
      CHECK ((network_reward_type IS NULL) = (network_reward_amount IS NULL))
    )
    """,
    """
    CREATE INDEX rewards_pending ON rewards (recorded_at_ms, transaction_id)
    WHERE acknowledged_at_ms IS NULL
    """,
    "PRAGMA user_version = 2",
  ]

  /// Version 1 → 2: the reward's A/B test arms (``Reward/experimentArms``) as a JSON object with
  /// sorted keys, `NULL` for none — which is what every row written by version 1 reads as.
  static let migrations: [Int64: [String]] = [
    1: ["ALTER TABLE rewards ADD COLUMN experiment_arms TEXT", "PRAGMA user_version = 2"]
  ]

  /// The columns every SELECT returns, in ``LedgerRecord`` order.
  private static let columns = """
    transaction_id, zone_id, network, reward_type, reward_amount, network_reward_type,
    network_reward_amount, recorded_at_ms, deliveries, acknowledged_at_ms, experiment_arms
    """

  static let insert = """
    INSERT INTO rewards (\(columns))
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, NULL, ?10)
    """

  static let selectPending = """
    SELECT \(columns) FROM rewards WHERE acknowledged_at_ms IS NULL
    ORDER BY recorded_at_ms, transaction_id
    """

  static let selectAll = """
    SELECT \(columns) FROM rewards ORDER BY recorded_at_ms, transaction_id
    """

  static let selectOne = """
    SELECT \(columns) FROM rewards WHERE transaction_id = ?1
    """

  static let markRedelivered = """
    UPDATE rewards SET deliveries = deliveries + 1
    WHERE transaction_id = ?1 AND acknowledged_at_ms IS NULL
    """

  static let acknowledge = """
    UPDATE rewards SET acknowledged_at_ms = ?2
    WHERE transaction_id = ?1 AND acknowledged_at_ms IS NULL
    """

  static let pruneAcknowledged = """
    DELETE FROM rewards WHERE acknowledged_at_ms IS NOT NULL AND acknowledged_at_ms < ?1
    """

}
