import Foundation

/// The guard's connections: at most `capacity` open at once, opened when needed, each lent to one
/// caller at a time. A caller that finds them all lent waits, up to a deadline, for one to come
/// back (or for room to open one).
final class PostgresConnectionPool: @unchecked Sendable {
  // @unchecked Sendable is safe: `idle` and `open` are read and written only while `condition` is
  // locked, and a connection, once lent, is used only by the caller that borrowed it until it is
  // given back or dropped.
  private let condition = NSCondition()
  private var idle: [PostgresConnection] = []
  private var open = 0
  let capacity: Int

  init(capacity: Int) { self.capacity = capacity }

  /// What ``borrow(until:)`` hands out: an idle connection, or the right to open a new one.
  enum Loan {
    case idle(PostgresConnection)
    case openNew
  }

  /// An idle connection, or the right to open one; nil if none came free before `deadline`.
  func borrow(until deadline: Date) -> Loan? {
    condition.lock()
    defer { condition.unlock() }
    while true {
      if let connection = idle.popLast() { return .idle(connection) }
      if open < capacity {
        open += 1
        return .openNew
      }
      guard condition.wait(until: deadline) else { return nil }
    }
  }

  /// Gives back a connection that still works.
  func giveBack(_ connection: PostgresConnection) {
    condition.lock()
    idle.append(connection)
    condition.signal()
    condition.unlock()
  }

  /// Gives up a loan whose connection broke or could not be opened; with `dropIdle`, also closes
  /// every idle connection (after a lost connection the server has most likely restarted, and they
  /// are all dead).
  func drop(dropIdle: Bool) {
    condition.lock()
    // Closed when this function returns, after the unlock (PQfinish may write to the socket).
    let closing = dropIdle ? idle : []
    if dropIdle { idle = [] }
    open -= 1 + closing.count
    condition.broadcast()
    condition.unlock()
  }
}
