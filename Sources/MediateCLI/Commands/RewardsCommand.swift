import Foundation
import MediationKit
import RewardLedgerSQLite

/// `mediate rewards --ledger FILE`: the rewards pending in a reward ledger, oldest first, or
/// (`--ack ID`) acknowledge one of them. Never creates a ledger.
struct RewardsCommand {
  let context: CommandContext

  init(_ context: CommandContext) { self.context = context }

  func run() throws(CLIError) -> Int32 {
    try context.noPositional(.rewards)
    guard let path = context.ledgerPath else {
      throw .usage("missing --ledger FILE: the reward ledger to read", .rewards)
    }
    let acknowledging = context.arguments.value(.ack)
    let all = context.arguments.has(.all)
    if acknowledging != nil && all {
      throw .usage("--ack acknowledges one reward and --all lists them: give one of them", .rewards)
    }
    let ledger = try context.openLedger(path: path, createIfMissing: false)
    if let id = acknowledging { return try acknowledge(id, in: ledger) }

    let records: [LedgerRecord]
    do {
      records = try ledger.entries(includeAcknowledged: all)
    } catch {
      throw .ledger(error)
    }
    if context.json {
      context.output.out(JSONLine.encode(array: records.map(LedgerRecordFormat.jsonObject)))
      return ExitCode.success
    }
    guard !records.isEmpty else {
      context.output.out(all ? "no rewards in \(path)" : "no pending rewards in \(path)")
      return ExitCode.success
    }
    let pending = records.filter { !$0.isAcknowledged }.count
    context.output.out(
      all
        ? "Rewards in \(path), pending and acknowledged, oldest first:"
        : "Pending rewards in \(path), oldest first:")
    for line in LedgerRecordFormat.table(records, includeAcknowledged: all) { context.output.out(line) }
    context.output.out(
      all ? "\(pending) pending, \(records.count - pending) acknowledged" : "\(pending) pending")
    return ExitCode.success
  }

  /// Acknowledges the pending reward `id`: exit 0; an unknown or already acknowledged id is a
  /// data error (exit 65), so a script can tell that this call did not credit anything.
  private func acknowledge(_ id: String, in ledger: SQLiteRewardLedger) throws(CLIError) -> Int32 {
    let path = ledger.path
    let acknowledged: Bool
    let record: LedgerRecord?
    do {
      acknowledged = try ledger.acknowledge(transactionID: id)
      record = try ledger.entry(transactionID: id)
    } catch {
      throw .ledger(error)
    }
    guard let record else {
      throw .data(
        "transaction id '\(id)' is not in the ledger at \(path); expected the id of a pending reward "
          + "(see 'mediate rewards --ledger \(path)')")
    }
    guard acknowledged else {
      let when = record.acknowledgedAtMilliseconds.map { LedgerRecordFormat.iso8601(milliseconds: $0) } ?? "?"
      throw .data(
        "transaction id '\(id)' in \(path) was already acknowledged at \(when); expected a pending reward")
    }
    if context.json {
      context.output.out(JSONLine.encode(LedgerRecordFormat.jsonObject(record)))
    } else {
      let entry = record.entry
      context.output.out(
        "acknowledged \(id): \(LedgerRecordFormat.reward(entry.reward)) in zone \(entry.zoneID) "
          + "from \(entry.reward.network), recorded \(LedgerRecordFormat.iso8601(milliseconds: entry.recordedAtMilliseconds))"
      )
    }
    return ExitCode.success
  }
}
