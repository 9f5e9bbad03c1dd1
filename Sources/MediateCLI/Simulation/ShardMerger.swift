/// Merges shard results in shard order as they arrive, holding only the few that finish early, so
/// memory stays flat and floating-point sums come out the same whatever the number of cores.
struct ShardMerger {
  private(set) var merged = SimulationStats()
  private var next = 0
  private var early: [Int: SimulationStats] = [:]

  mutating func add(_ stats: SimulationStats, shard: Int) {
    early[shard] = stats
    while let ready = early.removeValue(forKey: next) {
      merged.merge(ready)
      next += 1
    }
  }
}
