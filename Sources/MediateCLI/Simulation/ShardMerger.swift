import MediationKit

/// Merges shard results in shard order as they arrive, holding only the few that finish early, so
/// memory stays flat and floating-point sums come out the same whatever the number of cores.
struct ShardMerger {
  /// Where each shard's event log goes, in shard order; its text is not kept in ``merged``.
  let eventLog: (@Sendable (String) -> Void)?
  private(set) var merged = SimulationStats()
  private var next = 0
  private var early: [Int: SimulationStats] = [:]

  init(eventLog: (@Sendable (String) -> Void)?) { self.eventLog = eventLog }

  mutating func add(_ stats: SimulationStats, shard: Int) {
    early[shard] = stats
    while var ready = early.removeValue(forKey: next) {
      if let log = ready.eventLog {
        eventLog?(log)
        ready.eventLog = nil
      }
      merged.merge(ready)
      next += 1
    }
  }
}
