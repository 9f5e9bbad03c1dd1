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

  // MARK: The app's calls: acknowledge and pendingRewards

  /// A completed show in zone `z` on `ledger`, written on `io`, whose reward is recorded unless
  /// the ledger blocks; seeded transaction ids, so every run earns the same reward.
  static func shown(ledger: any RewardLedger, io: DispatchQueue) throws -> Harness {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 10)]), zone([item("a", "a2", ecpm: 5)], id: "y")],
      scripts: ["a": ["a1": [.fill(after: .milliseconds(200))]]],
      options: MediatorOptions(
        seed: 1, wallClockMilliseconds: clock, transactionIDs: .seeded, ledgerQueue: .dispatch(io)),
      ledger: ledger)
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    try ad.show(from: presenter)
    harness.settle()  // the network rewards 30 s into the show, which ends at 31 s
    return harness
  }

  /// Lets the ledger queue finish, then runs the completions it queued on the scheduler.
  static func drain(_ io: DispatchQueue, _ harness: Harness) {
    io.sync {}
    harness.scheduler.advance(by: .zero)
  }

  @Test func aSynchronousAcknowledgementNeverWaitsForTheDiskNorOvertakesItsRecord() throws {
    // The reward the blocked run will earn, from a run that is not blocked (same seeded id).
    let io = DispatchQueue(label: "LedgerQueueTests.io")
    let earlier = try Self.shown(ledger: InMemoryRewardLedger(), io: io)
    Self.drain(io, earlier)
    let reward = try #require(RewardLedgerTests.rewards(earlier).first)

    let disk = SlowDisk()
    let operations = Locked<[HookedLedger.Operation]>([])
    let ledger = HookedLedger { operation in
      operations.withLock { $0.append(operation) }
      if operation == .record || operation == .acknowledge { disk.block() }
    }
    let harness = try Self.shown(ledger: ledger, io: io)
    #expect(disk.entered.wait(timeout: .now() + 10) == .success)  // the record is blocked

    // Acknowledged while its own record is still on the disk: the call returns at once (the test
    // thread never enters the blocked write) and the write waits behind the record.
    try harness.mediator.rewardedAd(zone: "z").acknowledge(reward)
    harness.mediator.acknowledgeReward(transactionID: reward.transactionID)
    #expect(operations.withLock { $0 } == [.pending, .record])  // the start-up read, then the record

    disk.release()
    Self.drain(io, harness)
    #expect(operations.withLock { $0 } == [.pending, .record, .acknowledge, .acknowledge])
    #expect(try ledger.inner.pending().isEmpty)
    #expect(harness.names() == ["loading", "ready", "shown", "revenue_paid", "rewarded", "closed"])
    #expect(RewardLedgerTests.rewards(harness) == [reward])
    #expect(!disk.waitedFullTime.withLock { $0 })
  }

  @Test func aFailedAcknowledgementLeavesTheRewardPendingAndSaysSoOnItsZone() throws {
    let ledger = HookedLedger { (operation) throws(LedgerError) in
      if operation == .acknowledge { throw LedgerError("acknowledge: disk I/O error (/tmp/full.sqlite)") }
    }
    let io = DispatchQueue(label: "LedgerQueueTests.io")
    let harness = try Self.shown(ledger: ledger, io: io)
    Self.drain(io, harness)
    let reward = try #require(RewardLedgerTests.rewards(harness).first)

    let acknowledgements: [() throws -> Void] = [
      { try harness.mediator.rewardedAd(zone: "z").acknowledge(reward) },
      { harness.mediator.acknowledgeReward(transactionID: reward.transactionID) },
    ]
    for acknowledge in acknowledgements {
      let before = harness.recorder.events.count
      try acknowledge()
      Self.drain(io, harness)
      let new = harness.recorder.events.dropFirst(before)
      #expect(new.map(\.zoneID) == ["z"])  // the reward's zone only
      guard case .diagnostic(let note) = new.first?.event else {
        Issue.record("expected a diagnostic, got \(Array(new))")
        continue
      }
      #expect(note.kind == .ledgerWriteFailed)
      #expect(note.message.contains(reward.transactionID))
      #expect(note.message.contains("disk I/O error (/tmp/full.sqlite)"))
      #expect(note.message.contains("stays pending and will be redelivered"))
      #expect(new.first?.network == "a")
    }
    #expect(try ledger.inner.pending().map(\.reward) == [reward])

    // An id this run never delivered: no zone is known, so every zone is told.
    let before = harness.recorder.events.count
    harness.mediator.acknowledgeReward(transactionID: "unknown")
    Self.drain(io, harness)
    #expect(harness.recorder.events.dropFirst(before).map(\.zoneID).sorted() == ["y", "z"])
  }

  @Test func theAsyncFormsAnswerFromTheLedgerQueueWithoutTheExecutor() async throws {
    // The virtual clock is never advanced while awaiting: an answer that went through the
    // scheduler would never come.
    let io = DispatchQueue(label: "LedgerQueueTests.io")
    let ledger = InMemoryRewardLedger()
    let harness = try Self.shown(ledger: ledger, io: io)
    Self.drain(io, harness)
    let reward = try #require(RewardLedgerTests.rewards(harness).first)
    let ad = try harness.mediator.rewardedAd(zone: "z")

    #expect(try await harness.mediator.pendingRewards().map(\.reward) == [reward])
    #expect(try await ad.acknowledge(reward))
    #expect(try await !ad.acknowledge(reward))
    #expect(try await !harness.mediator.acknowledgeReward(transactionID: reward.transactionID))
    #expect(try await harness.mediator.pendingRewards().isEmpty)
    #expect(try ledger.pending().isEmpty)
  }

  @Test func theAsyncFormsThrowLedgerFailureWhenTheLedgerFails() async throws {
    let ledger = HookedLedger { (operation) throws(LedgerError) in
      if operation == .acknowledge || operation == .pending {
        throw LedgerError("\(operation): disk I/O error (/tmp/full.sqlite)")
      }
    }
    let io = DispatchQueue(label: "LedgerQueueTests.io")
    let harness = try Self.shown(ledger: ledger, io: io)
    Self.drain(io, harness)
    let reward = try #require(RewardLedgerTests.rewards(harness).first)
    let ad = try harness.mediator.rewardedAd(zone: "z")

    let calls: [(String, () async throws -> Void)] = [
      ("ad.acknowledge", { _ = try await ad.acknowledge(reward) }),
      (
        "acknowledgeReward",
        { _ = try await harness.mediator.acknowledgeReward(transactionID: reward.transactionID) }
      ),
      ("pendingRewards", { _ = try await harness.mediator.pendingRewards() }),
    ]
    for (name, call) in calls {
      do {
        try await call()
        Issue.record("\(name): expected ledger_failure")
      } catch let error as MediationError {
        #expect(error.code == .ledgerFailure, "\(name)")
        #expect(error.message.contains("disk I/O error (/tmp/full.sqlite)"), "\(name)")
      } catch {
        Issue.record("\(name): expected a MediationError, got \(error)")
      }
    }
    #expect(try ledger.inner.pending().map(\.reward) == [reward])
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
