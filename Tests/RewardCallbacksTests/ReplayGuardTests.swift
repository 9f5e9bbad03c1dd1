import RewardCallbacks
import Testing

@Suite("InMemoryReplayGuard")
struct ReplayGuardTests {
  @Test func claimsOncePerID() {
    let guardian = InMemoryReplayGuard()
    #expect(guardian.claim("a"))
    #expect(!guardian.claim("a"))
    #expect(guardian.claim("b"))
    #expect(guardian.count == 2)
  }

  @Test func forgetsTheOldestBeyondItsCapacity() {
    let guardian = InMemoryReplayGuard(capacity: 3)
    for id in ["a", "b", "c"] { #expect(guardian.claim(id)) }
    #expect(guardian.claim("d"))  // forgets "a"
    #expect(guardian.count == 3)
    #expect(!guardian.claim("b") && !guardian.claim("c") && !guardian.claim("d"))
    #expect(guardian.claim("a"))  // documented: an id older than the capacity is accepted again
  }

  @Test func concurrentClaimsOfOneIDSucceedOnce() async {
    let guardian = InMemoryReplayGuard()
    let wins = await withTaskGroup(of: Bool.self) { group in
      for _ in 0..<64 { group.addTask { guardian.claim("same") } }
      return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
    #expect(wins == 1)
  }
}
