/// The actions a ``DispatchScheduler`` has not run yet: immediate ones until their turn on the
/// queue, delayed ones by deadline, and the wake-ups asked of Dispatch that have not fired. A
/// pure value; the scheduler keeps it behind its lock.
struct PendingActions {
  private var lastID: UInt64 = 0
  private var actions: [UInt64: (due: Duration?, run: @Sendable () -> Void)] = [:]
  /// The delayed actions' deadlines, sorted by deadline and then by id (scheduling order).
  private var deadlines: [(due: Duration, id: UInt64)] = []
  /// The wake-ups asked of Dispatch that have not fired yet.
  private var wakes: [Duration] = []

  enum Next {
    case action(@Sendable () -> Void)
    case wake(Duration)
    case none
  }

  /// Adds an immediate action; returns its id.
  mutating func add(_ action: @escaping @Sendable () -> Void) -> UInt64 {
    lastID += 1
    actions[lastID] = (nil, action)
    return lastID
  }

  /// Adds an action due at `due`; returns its id and the wake-up to ask Dispatch for, if no
  /// wake-up already asked for comes at or before `due`.
  mutating func add(_ action: @escaping @Sendable () -> Void, due: Duration) -> (UInt64, wake: Duration?) {
    lastID += 1
    actions[lastID] = (due, action)
    deadlines.insert((due, lastID), at: index(of: (due, lastID)))
    guard !wakes.contains(where: { $0 <= due }) else { return (lastID, nil) }
    wakes.append(due)
    return (lastID, due)
  }

  /// Removes and returns immediate action `id`, unless it was cancelled.
  mutating func take(_ id: UInt64) -> (@Sendable () -> Void)? {
    actions.removeValue(forKey: id)?.run
  }

  mutating func cancel(_ id: UInt64) {
    guard let removed = actions.removeValue(forKey: id), let due = removed.due else { return }
    let index = index(of: (due, id))
    if index < deadlines.count, deadlines[index].id == id { deadlines.remove(at: index) }
  }

  mutating func woke(_ wake: Duration) {
    if let index = wakes.firstIndex(of: wake) { wakes.remove(at: index) }
  }

  /// The first delayed action if it is due at `now`; otherwise the wake-up to ask for the
  /// earliest deadline, unless one is outstanding.
  mutating func takeDue(now: Duration) -> Next {
    while let first = deadlines.first, first.due <= now {
      deadlines.removeFirst()
      if let action = actions.removeValue(forKey: first.id) { return .action(action.run) }
    }
    guard let first = deadlines.first, !wakes.contains(where: { $0 <= first.due }) else { return .none }
    wakes.append(first.due)
    return .wake(first.due)
  }

  /// Where `key` goes in `deadlines`, by binary search.
  private func index(of key: (due: Duration, id: UInt64)) -> Int {
    var low = 0
    var high = deadlines.count
    while low < high {
      let middle = (low + high) / 2
      if deadlines[middle] < key { low = middle + 1 } else { high = middle }
    }
    return low
  }
}
