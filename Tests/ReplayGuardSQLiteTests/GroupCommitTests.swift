import Dispatch
import Foundation
import MediationKit
import Testing

@testable import ReplayGuardSQLite

@Suite("GroupCommit: concurrent claims share one transaction")
struct GroupCommitTests {
  /// A caller alone commits at once; callers arriving while a commit runs are committed together
  /// in the next one, each told its own outcome.
  @Test func callersArrivingDuringACommitShareTheNextOne() {
    let release = DispatchSemaphore(value: 0)
    let batches = Locked<[[Int]]>([])
    let group = GroupCommit<Int, String> { batch in
      batches.withLock { $0.append(batch) }
      if batch == [0] { release.wait() }  // the first commit holds until the others have queued
      return batch.map { "outcome \($0)" }
    }
    let outcomes = Locked<[Int: String]>([:])
    let done = DispatchGroup()
    func submit(_ request: Int) {
      done.enter()
      Thread {
        outcomes.withLock { [outcome = group.submit(request)] in $0[request] = outcome }
        done.leave()
      }.start()
    }
    submit(0)
    while batches.get().isEmpty { sched_yield() }  // the first commit has started
    for request in 1...5 { submit(request) }
    while group.queued < 5 { sched_yield() }  // all five wait for the next transaction
    release.signal()
    done.wait()
    #expect(batches.get().map { $0.sorted() } == [[0], [1, 2, 3, 4, 5]])
    #expect(outcomes.get() == Dictionary(uniqueKeysWithValues: (0...5).map { ($0, "outcome \($0)") }))
  }

  /// Many threads claiming the same ids through one guard: each id once, whatever the batches.
  @Test func oneIDClaimedTwiceInOneBatchIsWonOnce() throws {
    let guardian = try SQLiteReplayGuard.inMemory()
    let wins = Locked(0)
    let done = DispatchGroup()
    for _ in 0..<16 {
      done.enter()
      Thread {
        for round in 0..<20 where (try? guardian.claim("id-\(round)", network: .max)) == true {
          wins.withLock { $0 += 1 }
        }
        done.leave()
      }.start()
    }
    done.wait()
    #expect(wins.get() == 20)
    #expect(try guardian.count() == 20)
  }
}
