import StoreTestSupport
import Testing

@testable import RewardLedgerSQLite

@Suite("SQLiteRewardLedger: many first opens of one new file at once")
struct ConcurrentCreationTests {
  @Test func everyLedgerOpensANewFileCreatedConcurrently() throws {
    let failures = try failuresOfConcurrentFirstOpens { path in _ = try SQLiteRewardLedger(path: path) }
    #expect(failures == [])
  }
}
