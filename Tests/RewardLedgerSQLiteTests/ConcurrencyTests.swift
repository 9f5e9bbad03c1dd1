import Dispatch
import Foundation
import MediationKit
import RewardLedgerSQLite
import StoreTestSupport
import Testing

@Suite("SQLiteRewardLedger under concurrency")
struct ConcurrencyTests {
  @Test func manyThreadsRecordingAndAcknowledgingLoseNoRow() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let ledger = try SQLiteRewardLedger(path: directory.file("rewards.sqlite"))
    let workers = 8
    let perWorker = 24
    let failures = Locked<[String]>([])
    DispatchQueue.concurrentPerform(iterations: workers) { worker in
      for index in 0..<perWorker {
        let id = "w\(worker)-\(index)"
        do {
          try ledger.record(entry(id, at: Int64(index)))
          if index % 2 == 0 {
            guard try ledger.acknowledge(transactionID: id) else {
              failures.withLock { $0.append("\(id): acknowledge returned false") }
              continue
            }
          }
          _ = try ledger.pending()
        } catch {
          failures.withLock { $0.append("\(id): \(error)") }
        }
      }
    }
    #expect(failures.get() == [])
    let all = try ledger.entries(includeAcknowledged: true)
    #expect(all.count == workers * perWorker)
    #expect(Set(all.map(\.entry.reward.transactionID)).count == workers * perWorker)
    let pending = try ledger.pending()
    #expect(pending.count == workers * perWorker / 2)
    #expect(pending.allSatisfy { Int($0.reward.transactionID.split(separator: "-")[1])! % 2 == 1 })
  }

  @Test func racingAcknowledgmentsOfOneRewardSucceedExactlyOnce() throws {
    let ledger = try SQLiteRewardLedger.inMemory()
    let ids = (0..<20).map { "tx-\($0)" }
    for id in ids { try ledger.record(entry(id)) }
    let granted = Locked<[String]>([])
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for id in ids where (try? ledger.acknowledge(transactionID: id)) == true {
        granted.withLock { $0.append(id) }
      }
    }
    #expect(granted.get().sorted() == ids.sorted())
    #expect(try ledger.pending() == [])
  }

  @Test func twoConnectionsWritingOneFileAtOnceLoseNoRow() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("rewards.sqlite")
    let ledgers = [try SQLiteRewardLedger(path: path), try SQLiteRewardLedger(path: path)]
    let failures = Locked<[String]>([])
    DispatchQueue.concurrentPerform(iterations: 4) { worker in
      let ledger = ledgers[worker % 2]
      for index in 0..<20 {
        do {
          try ledger.record(entry("w\(worker)-\(index)", at: Int64(index)))
          try ledger.markRedelivered(transactionID: "w\(worker)-\(index)")
        } catch {
          failures.withLock { $0.append("\(error)") }
        }
      }
    }
    #expect(failures.get() == [])
    for ledger in ledgers {
      let pending = try ledger.pending()
      #expect(pending.count == 80)
      #expect(pending.allSatisfy { $0.deliveries == 2 })
    }
  }
}
