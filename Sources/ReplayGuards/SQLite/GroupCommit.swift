import Foundation

/// Group commit: requests from concurrent callers handed to `commit` together, so one transaction
/// — one sync to disk — serves every claim that arrived while the previous one was syncing, and
/// each caller gets its own request's outcome once that transaction ends.
///
/// There is no timer and no added wait: a caller alone commits its request at once. While a
/// commit runs, the next callers queue; when it ends, one of them commits everything queued so far.
/// `commit` gets the requests in arrival order and returns one outcome per request, in that order.
final class GroupCommit<Request, Outcome>: @unchecked Sendable {
  // @unchecked Sendable is safe: `queue`, `outcomes`, `committing` and `nextTicket` are read and
  // written only while `condition` is locked; `commit` runs for one caller at a time (the one that
  // set `committing`), outside the lock, on requests no other caller touches any more.
  private let condition = NSCondition()
  private var queue: [(ticket: Int, request: Request)] = []
  private var outcomes: [Int: Outcome] = [:]
  private var committing = false
  private var nextTicket = 0
  private let commit: ([Request]) -> [Outcome]

  init(commit: @escaping ([Request]) -> [Outcome]) { self.commit = commit }

  /// How many requests are queued for the next transaction (for tests).
  var queued: Int {
    condition.lock()
    defer { condition.unlock() }
    return queue.count
  }

  /// Queues `request`, waits for the transaction that carries it, and returns its outcome.
  func submit(_ request: Request) -> Outcome {
    condition.lock()
    defer { condition.unlock() }
    let ticket = nextTicket
    nextTicket += 1
    queue.append((ticket, request))
    while true {
      if let outcome = outcomes.removeValue(forKey: ticket) { return outcome }
      guard committing else {
        committing = true
        let batch = queue
        queue = []
        condition.unlock()
        let results = commit(batch.map(\.request))
        condition.lock()
        precondition(results.count == batch.count, "commit returns one outcome per request")
        for (entry, outcome) in zip(batch, results) { outcomes[entry.ticket] = outcome }
        committing = false
        condition.broadcast()
        continue
      }
      condition.wait()
    }
  }
}
