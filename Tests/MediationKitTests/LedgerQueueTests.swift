import Dispatch
import MediationKit
import MediationKitTesting
import Testing

/// A ledger on a slow disk: each blocked operation takes up to 2 s, or until the test releases
/// it (so the test does not take 2 s). It writes only once released.
private final class SlowDisk: Sendable {
  /// Signalled when a blocked operation starts.
  let entered = DispatchSemaphore(value: 0)
  private let gate = DispatchSemaphore(value: 0)
  /// Set when an operation waited the full 2 s: nothing released it (the caller blocked the test).
  let waitedFullTime = Locked(false)

  /// Lets every blocked operation, and every later one, go on.
  func release() {
    for _ in 0..<16 { gate.signal() }
  }

  func block() {
    entered.signal()
    if gate.wait(timeout: .now() + 2) == .timedOut {
      waitedFullTime.withLock { $0 = true }
    }
  }

  /// A ledger whose `blocked` operations stall on this disk.
  func ledger(blocking blocked: HookedLedger.Operation) -> HookedLedger {
    HookedLedger { operation in if operation == blocked { self.block() } }
  }
}

@Suite("Ledger queue: the scheduler's executor never waits on the disk")
struct LedgerQueueTests {
  static let presenter = HeadlessPresenter()
  static let clock: @Sendable () -> Int64 = { 1_764_000_000_000 }

  /// Zone `z` (the show) and zone `y` (another zone, filling after 5 s), on virtual time, with
  /// the ledger written on `io`.
  static func harness(ledger: any RewardLedger, io: DispatchQueue) throws -> Harness {
    try Harness(
      zones: [zone([item("a", "a1", ecpm: 10)]), zone([item("a", "a2", ecpm: 5)], id: "y")],
      scripts: ["a": ["a1": [.fill(after: .milliseconds(200))], "a2": [.fill(after: .seconds(5))]]],
      options: MediatorOptions(seed: 1, wallClockMilliseconds: clock, ledgerQueue: .dispatch(io)),
      ledger: ledger)
  }

  @Test func aSlowRecordLeavesTheExecutorFreeAndClosedStillFollowsRewarded() throws {
    let disk = SlowDisk()
    let ledger = disk.ledger(blocking: .record)
    let io = DispatchQueue(label: "LedgerQueueTests.io")
    let harness = try Self.harness(ledger: ledger, io: io)
    let pendingWhenTold = Locked<[[String]]>([])
    harness.mediator.observeEvents { event in
      guard case .rewarded = event.event else { return }
      let ids = (try? ledger.inner.pending().map(\.reward.transactionID)) ?? []
      pendingWhenTold.withLock { $0.append(ids) }
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    try ad.show(from: Self.presenter)
    // The network rewards 30 s into the show: the record starts on `io` and blocks there.
    harness.scheduler.advance(by: .seconds(30))
    #expect(disk.entered.wait(timeout: .now() + 10) == .success)

    // While it is blocked the executor runs on: the show's dismissal (31 s), another zone's load
    // and its network's 5 s fill, and their timers.
    try harness.mediator.rewardedAd(zone: "y").load()
    harness.scheduler.advance(by: .seconds(10))
    #expect(harness.names("y") == ["loading", "ready"])
    // Zone z's reward waits for the record, and its `closed` waits behind the reward.
    #expect(harness.names() == ["loading", "ready", "shown", "revenue_paid"])

    disk.release()
    io.sync {}  // the record is done and its completion is queued on the scheduler
    harness.scheduler.advance(by: .zero)
    #expect(harness.names() == ["loading", "ready", "shown", "revenue_paid", "rewarded", "closed"])
    let reward = try #require(RewardLedgerTests.rewards(harness).first)
    #expect(pendingWhenTold.withLock { $0 } == [[reward.transactionID]])
    // Each event keeps the time it happened: the reward at 30 s into the show, `closed` at 31 s.
    let times = harness.recorder.events.filter { $0.zoneID == "z" }.map(\.time)
    #expect(times.suffix(2) == [times[2] + .seconds(30), times[2] + .seconds(31)])
    #expect(!disk.waitedFullTime.withLock { $0 })
    try RewardContract.verify(harness.recorder.events(zone: "z"))
  }

  @Test func onARealQueueTheDefaultRecordsOffTheExecutor() throws {
    let disk = SlowDisk()
    let ledger = disk.ledger(blocking: .record)
    // A private serial queue stands for the main queue.
    let scheduler = DispatchScheduler(queue: DispatchQueue(label: "LedgerQueueTests.main"))
    let adapter = ScriptedAdapter(
      id: "a", scheduler: scheduler, loads: ["a1": [.fill(after: .zero)]],
      show: ScriptedAdapter.ShowScript([(.zero, .displayed), (.zero, .rewarded(nil)), (.zero, .dismissed)]))
    let registry = AdapterRegistry()
    try registry.register(adapter.registration)
    let mediator = try Mediator(
      config: MediationConfig(zones: [zone([item("a", "a1", ecpm: 10)])]), registry: registry,
      scheduler: scheduler, options: MediatorOptions(seed: 1), ledger: ledger)
    let names = Locked<[String]>([])
    let ready = DispatchSemaphore(value: 0)
    let closed = DispatchSemaphore(value: 0)
    mediator.observeEvents { event in
      names.withLock { $0.append(event.event.name) }
      if case .ready = event.event { ready.signal() }
      if case .closed = event.event { closed.signal() }
    }
    let ad = try mediator.rewardedAd(zone: "z")
    ad.load()
    #expect(ready.wait(timeout: .now() + 10) == .success)
    try ad.show(from: Self.presenter)
    #expect(disk.entered.wait(timeout: .now() + 10) == .success)

    // The record is blocked; the executor still runs actions and timers.
    let ran = DispatchSemaphore(value: 0)
    scheduler.execute { ran.signal() }
    #expect(ran.wait(timeout: .now() + 10) == .success)
    let fired = DispatchSemaphore(value: 0)
    scheduler.schedule(after: .milliseconds(1)) { fired.signal() }
    #expect(fired.wait(timeout: .now() + 10) == .success)
    #expect(!names.withLock { $0.contains("rewarded") || $0.contains("closed") })

    disk.release()
    #expect(closed.wait(timeout: .now() + 10) == .success)
    #expect(names.withLock { $0 } == ["loading", "ready", "shown", "revenue_paid", "rewarded", "closed"])
    #expect(try ledger.inner.pending().count == 1)
    #expect(!disk.waitedFullTime.withLock { $0 })
  }

  @Test func theStartUpReadOfPendingRewardsLeavesTheExecutorFree() throws {
    let disk = SlowDisk()
    let ledger = disk.ledger(blocking: .pending)
    let reward = Reward(type: "coins", amount: 100, transactionID: "t1", network: "a")
    try ledger.inner.record(LedgerEntry(reward: reward, zoneID: "z", recordedAtMilliseconds: 1))
    let io = DispatchQueue(label: "LedgerQueueTests.io")
    let harness = try Self.harness(ledger: ledger, io: io)
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    #expect(disk.entered.wait(timeout: .now() + 10) == .success)
    // The zone loads while the read is blocked; the redelivery comes once it is done.
    #expect(harness.names() == ["loading", "ready"])

    disk.release()
    io.sync {}
    harness.scheduler.advance(by: .zero)
    #expect(harness.names() == ["loading", "ready", "rewarded"])
    #expect(RewardLedgerTests.rewards(harness).map(\.isRedelivery) == [true])
    #expect(try ledger.inner.pending().first?.deliveries == 2)
    #expect(!disk.waitedFullTime.withLock { $0 })
  }

  @Test func eventsHeldBehindTwoRewardsOfOneZoneComeOutInOrder() throws {
    // The second show starts, and earns its reward, while the first reward is still recording.
    let disk = SlowDisk()
    let ledger = disk.ledger(blocking: .record)
    let io = DispatchQueue(label: "LedgerQueueTests.io")
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 10)])],
      scripts: ["a": ["a1": [.fill(after: .milliseconds(200)), .fill(after: .milliseconds(200))]]],
      options: MediatorOptions(seed: 1, wallClockMilliseconds: Self.clock, ledgerQueue: .dispatch(io)),
      ledger: ledger)
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    try ad.show(from: Self.presenter)
    harness.settle()
    #expect(disk.entered.wait(timeout: .now() + 10) == .success)
    ad.load()
    harness.settle()
    try ad.show(from: Self.presenter)
    harness.settle()
    #expect(harness.names() == ["loading", "ready", "shown", "revenue_paid"])

    disk.release()
    io.sync {}
    harness.scheduler.advance(by: .zero)
    #expect(
      harness.names() == [
        "loading", "ready", "shown", "revenue_paid", "rewarded", "closed", "loading", "ready", "shown",
        "revenue_paid", "rewarded", "closed",
      ])
    #expect(try ledger.inner.pending().count == 2)
    try RewardContract.verify(harness.recorder.events(zone: "z"))
  }

  @Test func onAVirtualSchedulerTheDefaultRecordsInTheActionThatEarnedTheReward() throws {
    // Virtual time moves only when nothing is runnable: the record must not leave the executor,
    // or a seeded run would depend on how fast another thread writes.
    let ledger = InMemoryRewardLedger()
    let harness = try RewardLedgerTests.run(ledger: ledger, show: true, settle: false)
    harness.scheduler.advance(by: .seconds(30))
    #expect(harness.names() == ["loading", "ready", "shown", "revenue_paid", "rewarded"])
    #expect(try ledger.pending().count == 1)
  }
}
