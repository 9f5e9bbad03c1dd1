import Foundation
import MediationKit
import RewardLedgerSQLite

/// How `mediate` prints ledger records: ISO-8601 UTC times, text rows and snake_case JSON.
enum LedgerRecordFormat {
  /// `milliseconds` since 1970 as ISO-8601 in UTC with milliseconds, e.g.
  /// `2023-11-14T22:13:20.123Z`.
  static func iso8601(milliseconds: Int64) -> String {
    var (seconds, millisecond) = milliseconds.quotientAndRemainder(dividingBy: 1000)
    if millisecond < 0 {
      seconds -= 1
      millisecond += 1000
    }
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.formatOptions = [.withInternetDateTime]
    // Whole seconds are exact in a Double; the milliseconds are added as digits, not as a
    // fraction that could round to the wrong one.
    let whole = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    return String(whole.dropLast()) + "." + String(String(millisecond + 1000).dropFirst()) + "Z"
  }

  /// "coins × 100".
  static func reward(_ reward: Reward) -> String { "\(reward.type) × \(reward.amount)" }

  /// The record as a JSON object with snake_case keys; acknowledgment fields are null while it
  /// is pending; `arms` (experiment id → arm id) only when the reward was earned under A/B test arms.
  static func jsonObject(_ record: LedgerRecord) -> [String: Any] {
    let entry = record.entry
    let reward = entry.reward
    var object: [String: Any] = [
      "transaction_id": reward.transactionID,
      "zone": entry.zoneID,
      "network": reward.network.rawValue,
      "reward_type": reward.type,
      "reward_amount": reward.amount,
      "network_reward": reward.networkReward.map { ["type": $0.type, "amount": $0.amount] as [String: Any] }
        ?? NSNull(),
      "recorded_at": iso8601(milliseconds: entry.recordedAtMilliseconds),
      "recorded_at_ms": entry.recordedAtMilliseconds,
      "deliveries": entry.deliveries,
      "acknowledged": record.isAcknowledged,
      "acknowledged_at": record.acknowledgedAtMilliseconds.map { iso8601(milliseconds: $0) } ?? NSNull(),
      "acknowledged_at_ms": record.acknowledgedAtMilliseconds ?? NSNull(),
    ]
    if !reward.experimentArms.isEmpty { object["arms"] = reward.experimentArms }
    return object
  }

  /// The records as a text table, one row each, columns padded to the widest cell.
  static func table(_ records: [LedgerRecord], includeAcknowledged: Bool) -> [String] {
    var header = ["TRANSACTION ID", "ZONE", "NETWORK", "REWARD", "RECORDED (UTC)", "DELIVERIES"]
    if includeAcknowledged { header.append("ACKNOWLEDGED (UTC)") }
    let rows = records.map { record in
      let entry = record.entry
      var row = [
        entry.reward.transactionID, entry.zoneID, entry.reward.network.rawValue, reward(entry.reward),
        iso8601(milliseconds: entry.recordedAtMilliseconds), "\(entry.deliveries)",
      ]
      if includeAcknowledged {
        row.append(record.acknowledgedAtMilliseconds.map { iso8601(milliseconds: $0) } ?? "pending")
      }
      return row
    }
    let widths = header.indices.map { column in
      ([header] + rows).map { $0[column].count }.max() ?? 0
    }
    return ([header] + rows).map { cells in
      cells.enumerated().map { column, cell in
        column == cells.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
      }.joined(separator: "  ")
    }
  }
}
