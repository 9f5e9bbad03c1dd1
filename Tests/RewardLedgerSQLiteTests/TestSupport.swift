import Foundation
import MediationKit
import StoreTestSupport
import Testing

@testable import RewardLedgerSQLite

/// A ledger entry with the fields tests vary.
func entry(
  _ id: String, at recordedAt: Int64 = 1_000, zone: String = "level_complete", network: String = "max",
  type: String = "coins", amount: Int = 100, networkReward: AdapterSignal.NetworkReward? = nil,
  deliveries: Int = 1
) -> LedgerEntry {
  LedgerEntry(
    reward: Reward(
      type: type, amount: amount, transactionID: id, network: NetworkID(network), networkReward: networkReward
    ),
    zoneID: zone, recordedAtMilliseconds: recordedAt, deliveries: deliveries)
}
