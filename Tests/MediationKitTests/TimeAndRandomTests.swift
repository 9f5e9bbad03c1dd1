import Foundation
import MediationKit
import MediationKitTesting
import Testing

@Suite("VirtualScheduler and SeededRandom")
struct TimeAndRandomTests {
  @Test func runsInTimeThenSubmissionOrderAndJumpsTheClock() {
    let scheduler = VirtualScheduler()
    let log = Locked<[String]>([])
    scheduler.schedule(after: .seconds(2)) { log.withLock { $0.append("b@\(scheduler.now)") } }
    scheduler.schedule(after: .seconds(1)) { log.withLock { $0.append("a@\(scheduler.now)") } }
    scheduler.schedule(after: .seconds(2)) { log.withLock { $0.append("c@\(scheduler.now)") } }
    scheduler.run()
    #expect(log.withLock { $0 } == ["a@1.0 seconds", "b@2.0 seconds", "c@2.0 seconds"])
  }

  /// Many timers, with repeated times, cancellations (enough to trigger the purge of cancelled
  /// entries) and timers scheduled from inside actions: they run in exactly (time, submission)
  /// order, which pins the scheduler's heap.
  @Test func manyTimersRunInTimeThenSubmissionOrder() {
    let scheduler = VirtualScheduler()
    let log = Locked<[Int]>([])
    var expected: [(time: Int64, order: Int, id: Int)] = []
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next(_ bound: UInt64) -> UInt64 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return (state >> 33) % bound
    }
    var cancels: [Cancellable] = []
    for id in 0..<2_000 {
      let millis = Int64(next(50))
      let handle = scheduler.schedule(after: .milliseconds(millis)) { log.withLock { $0.append(id) } }
      if next(3) == 0 {
        cancels.append(handle)
      } else {
        expected.append((millis, id, id))
      }
    }
    cancels.forEach { $0.cancel() }
    // An action that schedules more work at its own time and later.
    scheduler.schedule(after: .milliseconds(10)) {
      scheduler.schedule(after: .zero) { log.withLock { $0.append(-1) } }
      scheduler.schedule(after: .milliseconds(5)) { log.withLock { $0.append(-2) } }
    }
    expected.append((10, 2_000, -3))
    expected.append((10, 2_001, -1))
    expected.append((15, 2_002, -2))
    scheduler.run()
    let order = expected.sorted { ($0.time, $0.order) < ($1.time, $1.order) }.map(\.id).filter { $0 != -3 }
    #expect(log.withLock { $0 } == order)
    #expect(scheduler.pendingCount == 0)
  }

  @Test func advanceStopsAtTheDeadlineAndCancelWorks() {
    let scheduler = VirtualScheduler()
    let ran = Locked(0)
    scheduler.schedule(after: .seconds(1)) { ran.withLock { $0 += 1 } }
    let cancelled = scheduler.schedule(after: .seconds(2)) { ran.withLock { $0 += 100 } }
    scheduler.schedule(after: .seconds(5)) { ran.withLock { $0 += 10 } }
    cancelled.cancel()
    scheduler.advance(by: .seconds(3))
    #expect(ran.withLock { $0 } == 1)
    #expect(scheduler.now == .seconds(3))
    #expect(scheduler.pendingCount == 1)
    scheduler.run()
    #expect(ran.withLock { $0 } == 11)
  }

  /// Many actions, scheduled, cancelled and replaced at random: the run order is exactly
  /// (time, submission order), and a cancelled action never runs.
  @Test func manyActionsRunInTimeThenSubmissionOrderThroughCancellations() {
    let scheduler = VirtualScheduler()
    let log = Locked<[Int]>([])
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    func next(_ bound: UInt64) -> UInt64 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return (state >> 33) % bound
    }
    // 200 deadlines, each re-set (its earlier action cancelled) or cleared at random.
    var handles: [Cancellable?] = Array(repeating: nil, count: 200)
    var scheduledAt: [(time: Int64, order: Int)?] = Array(repeating: nil, count: handles.count)
    var expectedOneShots: [(time: Int64, order: Int, id: Int)] = []
    for order in 0..<3_000 {
      let id = Int(next(UInt64(handles.count)))
      let millis = Int64(next(40))
      switch next(4) {
      case 0:
        handles[id]?.cancel()
        handles[id] = nil
        scheduledAt[id] = nil
      case 1:
        scheduler.schedule(after: .milliseconds(millis)) { log.withLock { $0.append(1_000 + order) } }
        expectedOneShots.append((millis, order, 1_000 + order))
      default:
        handles[id]?.cancel()
        handles[id] = scheduler.schedule(after: .milliseconds(millis)) { log.withLock { $0.append(id) } }
        scheduledAt[id] = (millis, order)
      }
    }
    let expected =
      (scheduledAt.enumerated().compactMap { id, at in at.map { ($0.time, $0.order, id) } } + expectedOneShots)
      .sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
    #expect(scheduler.pendingCount == expected.count)
    scheduler.run()
    #expect(log.withLock { $0 } == expected)
    #expect(scheduler.pendingCount == 0)
  }

  /// How the last reference to an owner of a scheduled action can sit in the scheduler's queue,
  /// in an action that captured the owner: dropped there when the action is skipped as cancelled, purged with
  /// the other cancelled ones, or released with the scheduler itself.
  enum DroppedOwner: CaseIterable { case skippedAsCancelled, purged, releasedWithTheScheduler }

  /// The owner goes away inside the scheduler, and cancels its own scheduled action as it does
  /// (a zone dropped with its expiry armed): that cancellation must not wait on the scheduler's
  /// lock while the scheduler itself holds it.
  @Test(arguments: DroppedOwner.allCases)
  func anArmedTimersOwnerCanBeDroppedFromInsideTheScheduler(_ path: DroppedOwner) {
    final class Owner: Sendable {
      let deadline: Cancellable
      init(_ deadline: Cancellable) { self.deadline = deadline }
      deinit { deadline.cancel() }
    }
    var scheduler: VirtualScheduler? = VirtualScheduler()
    do {
      let owner = Owner(scheduler!.schedule(after: .seconds(10)) {})
      let action = scheduler!.schedule(after: .seconds(1)) { withExtendedLifetime(owner) {} }
      if path != .releasedWithTheScheduler { action.cancel() }
    }
    let work = Locked<VirtualScheduler?>(scheduler.take())
    let finished = finishes {
      // The only reference to the scheduler: it goes when this returns.
      let scheduler = work.withLock { $0.take() }!
      switch path {
      case .skippedAsCancelled:
        scheduler.run()
        #expect(scheduler.pendingCount == 0)
      case .purged:
        // Enough cancelled actions that scheduling purges them.
        for _ in 0..<100 { scheduler.schedule(after: .seconds(5)) {}.cancel() }
        scheduler.schedule(after: .seconds(5)) {}
        #expect(scheduler.pendingCount == 1)
      case .releasedWithTheScheduler:
        break
      }
    }
    #expect(finished, "the scheduler deadlocked")
  }

  /// `advance(by:)` can stop the clock between two whole nanoseconds, and `now` must still be
  /// exact there.
  @Test func nowIsExactAtSubNanosecondTimes() {
    let scheduler = VirtualScheduler()
    let half = Duration(secondsComponent: 0, attosecondsComponent: 500_000_000)
    scheduler.advance(by: .nanoseconds(3) + half)
    #expect(scheduler.now == .nanoseconds(3) + half)
    let seen = Locked<[Duration]>([])
    scheduler.schedule(after: .zero) { seen.withLock { $0.append(scheduler.now) } }
    scheduler.schedule(after: .nanoseconds(2)) { seen.withLock { $0.append(scheduler.now) } }
    scheduler.runUntilIdle()
    // A zero delay runs at the current time; a timer's due time is counted in whole nanoseconds.
    #expect(seen.get() == [.nanoseconds(3) + half])
    #expect(scheduler.now == .nanoseconds(3) + half)
    scheduler.run()
    #expect(seen.get() == [.nanoseconds(3) + half, .nanoseconds(5)])
    #expect(scheduler.now == .nanoseconds(5))
    scheduler.advance(by: .seconds(2))
    #expect(scheduler.now == .seconds(2) + .nanoseconds(5))
    let attosecond = Duration(secondsComponent: 0, attosecondsComponent: 1)
    scheduler.advance(by: attosecond)
    #expect(scheduler.now == .seconds(2) + .nanoseconds(5) + attosecond)
    scheduler.advance(by: .zero)
    #expect(scheduler.now == .seconds(2) + .nanoseconds(5) + attosecond)
  }

  /// Another thread reading `now` while the executor moves the clock sees only times the clock
  /// stood at, never going back.
  @Test func nowReadFromAnotherThreadOnlyMovesForward() async {
    let scheduler = VirtualScheduler()
    for step in 1...2_000 {
      scheduler.schedule(after: .microseconds(step)) {}
    }
    let done = Locked(false)
    let reader = Task.detached {
      var last = Duration.zero
      var ok = true
      while !done.get() {
        let now = scheduler.now
        if now < last || now.components.attoseconds % 1_000_000_000_000 != 0 { ok = false }
        last = now
      }
      return ok && scheduler.now == .microseconds(2_000)
    }
    scheduler.run()
    done.set(true)
    #expect(await reader.value)
  }

  @Test func actionsCanScheduleMoreWork() {
    let scheduler = VirtualScheduler()
    let count = Locked(0)
    @Sendable func tick() {
      if count.withLock({
        $0 += 1; return $0
      }) < 5 {
        scheduler.schedule(after: .seconds(1), tick)
      }
    }
    scheduler.execute(tick)
    scheduler.run()
    #expect(count.withLock { $0 } == 5)
    #expect(scheduler.now == .seconds(4))
  }

  @Test func seededRandomIsReproducibleAndDerivedStreamsDiffer() {
    var a = SeededRandom(seed: 42)
    var b = SeededRandom(seed: 42)
    #expect((0..<5).map { _ in a.next() } == (0..<5).map { _ in b.next() })
    var max = SeededRandom(seed: 1).derived("max")
    var google = SeededRandom(seed: 1).derived("google")
    #expect(max.next() != google.next())
    var again = SeededRandom(seed: 1).derived("max")
    var max2 = SeededRandom(seed: 1).derived("max")
    #expect(again.next() == max2.next())
  }

  @Test func unitDrawsStayInRange() {
    var random = SeededRandom(seed: 3)
    let draws = (0..<10_000).map { _ in random.nextUnit() }
    #expect(draws.allSatisfy { $0 >= 0 && $0 < 1 })
    let mean = draws.reduce(0, +) / Double(draws.count)
    #expect(abs(mean - 0.5) < 0.02)
  }
}

@Suite("SeededRandom keyed streams")
struct KeyedRandomTests {
  @Test func keyedStreamsDependOnlyOnTheirKey() {
    let base = SeededRandom(seed: 9)
    var a = base.derived("placement-1", 7)
    var b = base.derived("placement-1", 7)
    var c = base.derived("placement-1", 8)
    var d = base.derived("placement-2", 7)
    let first = a.next()
    #expect(first == b.next())
    #expect(first != c.next())
    #expect(first != d.next())
  }
}

@Suite("SeededRandom UUIDs")
struct UUIDTests {
  @Test func uuidsAreVersion4AndReproducible() throws {
    var random = SeededRandom(seed: 5)
    var again = SeededRandom(seed: 5)
    let ids = (0..<100).map { _ in random.uuidString() }
    #expect(ids == (0..<100).map { _ in again.uuidString() })
    #expect(Set(ids).count == 100)
    for id in ids {
      let parsed = try #require(UUID(uuidString: id))
      #expect(parsed.uuidString == id)
      let chars = Array(id)
      #expect(chars[14] == "4")
      #expect("89AB".contains(chars[19]))
    }
  }

  /// Each id is the next two draws laid out as a version-4 UUID, in Foundation's own formatting
  /// (uppercase hex, 8-4-4-4-12): pins the bytes of every seeded transaction id.
  @Test func uuidIsTheNextTwoDrawsFormattedAsFoundationDoes() {
    var random = SeededRandom(seed: 42)
    for _ in 0..<2_000 {
      var draws = random
      let high = (draws.next() & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
      let low = (draws.next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
      var b: [UInt8] = []
      for word in [high, low] {
        for shift in stride(from: 56, through: 0, by: -8) {
          b.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
        }
      }
      let expected = UUID(
        uuid: (
          b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]
        )
      ).uuidString
      #expect(random.uuidString() == expected)
      #expect(random.next() == draws.next())
    }
  }
}
