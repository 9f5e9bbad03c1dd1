/// Inputs taken one at a time, in order, by whichever thread finds none being taken: the pure
/// half of a serial mailbox (the mediator's changes, the event hub's deliveries, the registry's
/// changes). Its owner keeps it behind its lock and performs each input outside:
///
/// ```swift
/// guard state.withLock({ $0.turns.startOrQueue(input) }) else { return }  // another's turn
/// perform(input)
/// while let input = state.withLock({ $0.turns.next() }) { perform(input) }
/// ```
///
/// No lock is held while an input is performed, so performing one may call code that submits
/// another (it is queued, not deadlocked) and inputs from many threads are performed in the
/// order they were enqueued.
struct TurnQueue<Input> {
  private var pending: [Input] = []
  private var taking = false

  /// Starts the caller's turn with `input`, or queues `input` for the caller whose turn it is.
  ///
  /// - Returns: `true` when it is the caller's turn: it performs `input` itself, then takes
  ///   `next()` until `nil`. `false` when another caller is taking inputs, and will take this one.
  mutating func startOrQueue(_ input: Input) -> Bool {
    guard taking else {
      taking = true
      return true
    }
    pending.append(input)
    return false
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
