import SQLiteSupport

/// The replay guard's table and statements, in one place. Every value is bound to a `?N`
/// parameter; no SQL here is ever built from data.
enum ReplayGuardSchema {
  /// The schema version this code writes and reads, kept in `PRAGMA user_version`. A file with a
  /// higher one was written by a newer MediationKit and is refused, never altered.
  static let version: Int64 = 1

  /// The replay guard as a kind of SQLite store file: its name in messages and its schema.
  static let kind = SQLiteStoreKind(
    name: "replay guard", shortName: "replay guard", writeReason: "accepted callback ids are recorded in it",
    version: version, table: "claimed_ids", create: create)

  /// Version 1: one row per claimed id, keyed by (network, id) — each network's ids are a namespace
  /// of their own (the unnamed namespace, for ``SQLiteReplayGuard/claim(_:)``, is `''`). The claim
  /// time drives ``SQLiteReplayGuard/pruneClaims(olderThanMilliseconds:)``, through its index.
  static let create = [
    """
    CREATE TABLE claimed_ids (
      network TEXT NOT NULL,
      id TEXT NOT NULL,
      claimed_at_ms INTEGER NOT NULL,
      PRIMARY KEY (network, id)
    ) WITHOUT ROWID
    """,
    "CREATE INDEX claimed_ids_by_age ON claimed_ids (claimed_at_ms)",
    "PRAGMA user_version = 1",
  ]

  /// The claim: one atomic statement. It inserts the row, or does nothing when (network, id) is
  /// there; the connection's `changes` (1 or 0) says which.
  static let claim = """
    INSERT INTO claimed_ids (network, id, claimed_at_ms) VALUES (?1, ?2, ?3)
    ON CONFLICT (network, id) DO NOTHING
    """

  static let claimedAt = """
    SELECT claimed_at_ms FROM claimed_ids WHERE network = ?1 AND id = ?2
    """

  static let count = "SELECT count(*) FROM claimed_ids"

  static let prune = "DELETE FROM claimed_ids WHERE claimed_at_ms < ?1"
}
