/// Inputs taken one at a time, in order, by whichever thread finds none being taken: the pure
/// half of a serial mailbox. Its owner keeps it behind its lock and performs each input outside:
///
/// ```swift
/// guard state.withLock({ $0.turns.enqueue(input) }) else { return }  // another thread's turn
/// while let input = state.withLock({ $0.turns.next() }) { perform(input) }
/// ```
///
/// No lock is held while an input is performed, so performing one may call code that submits
/// another (it is queued, not deadlocked) and inputs from many threads are performed in the
/// order they were enqueued.
struct TurnQueue<Input> {
  private var pending: [Input] = []
  private var taking = false

  /// Queues `input`.
  ///
  /// - Returns: Whether the caller is to take the queue's inputs now (`next()` until `nil`):
  ///   `false` when another caller is taking them, and will take this one too.
  mutating func enqueue(_ input: Input) -> Bool {
    pending.append(input)
    guard !taking else { return false }
    taking = true
    return true
  }

  /// The next input for the caller whose turn it is; `nil` ends the turn.
  mutating func next() -> Input? {
    guard !pending.isEmpty else {
      taking = false
      return nil
    }
    return pending.removeFirst()
  }
}
