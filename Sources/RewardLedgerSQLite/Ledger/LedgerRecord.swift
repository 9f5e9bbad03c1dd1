import MediationKit
import SQLiteSupport

/// A reward as the ledger file holds it: the entry, and when it was acknowledged if it was.
///
/// Tools read these with ``SQLiteRewardLedger/entries(includeAcknowledged:)``; the mediator only
/// needs ``RewardLedger/pending()``.
public struct LedgerRecord: Sendable, Equatable, Codable {
  /// The reward, its zone, when it was recorded and how often it was delivered.
  public var entry: LedgerEntry
  /// When the app acknowledged it, in milliseconds since 1970; `nil` while it is pending.
  public var acknowledgedAtMilliseconds: Int64?

  /// Creates a record.
  public init(entry: LedgerEntry, acknowledgedAtMilliseconds: Int64? = nil) {
    self.entry = entry
    self.acknowledgedAtMilliseconds = acknowledgedAtMilliseconds
  }

  /// Whether the app acknowledged the reward (it is never delivered again).
  public var isAcknowledged: Bool { acknowledgedAtMilliseconds != nil }
}
