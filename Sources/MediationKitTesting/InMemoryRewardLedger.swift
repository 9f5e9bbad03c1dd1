import MediationKit

/// A ledger in memory: the contract of `RewardLedger` without durability, for tests (a reward
/// recorded here is lost with the process; an app that accepts that can pass no ledger at all).
public final class InMemoryRewardLedger: RewardLedger {
  private struct State {
    var entries: [String: LedgerEntry] = [:]
    var acknowledged: Set<String> = []
  }

  private let state = Locked(State())

  /// Creates an empty ledger.
  public init() {}

  public func record(_ entry: LedgerEntry) throws(LedgerError) {
    let id = entry.reward.transactionID
    try state.withLock { (state) throws(LedgerError) in
      guard state.entries[id] == nil, !state.acknowledged.contains(id) else {
        throw LedgerError("record: transaction id \(id) is already in the ledger")
      }
      state.entries[id] = entry
    }
  }

  public func pending() throws(LedgerError) -> [LedgerEntry] {
    state.withLock { state in
      state.entries.values.sorted {
        ($0.recordedAtMilliseconds, $0.reward.transactionID) < (
          $1.recordedAtMilliseconds, $1.reward.transactionID
        )
      }
    }
  }

  public func markRedelivered(transactionID: String) throws(LedgerError) {
    state.withLock { $0.entries[transactionID]?.deliveries += 1 }
  }

  @discardableResult
  public func acknowledge(transactionID: String) throws(LedgerError) -> Bool {
    state.withLock { state in
      guard state.entries.removeValue(forKey: transactionID) != nil else { return false }
      state.acknowledged.insert(transactionID)
      return true
    }
  }
}
