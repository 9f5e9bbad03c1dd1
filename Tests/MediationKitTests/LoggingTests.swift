import MediationKit
import MediationKitTesting
import Testing

/// `MediatorOptions.logging`: a record per event, with the category and level the article
/// lists, from the minimum level up, on the executor outside every engine lock; nothing when off.
@Suite("Logging")
struct LoggingTests {
  /// A handler's records, kept in order.
  final class Records: Sendable {
    private let kept = Locked<[Mediator.LogRecord]>([])
    var all: [Mediator.LogRecord] { kept.withLock { $0 } }
    func append(_ record: Mediator.LogRecord) { kept.withLock { $0.append(record) } }
  }

  /// A zone over network `a` whose show is displayed and dismissed, and whose reward comes 20 s
  /// after the dismissal: past the 5 s grace window, a `late_reward`.
  static func lateReward(logging: MediatorOptions.Logging) throws -> Harness {
    try Harness(
      zones: [zone([item("a", "a1", ecpm: 9)])], scripts: ["a": ["a1": [.fill(after: .seconds(1))]]],
      show: ScriptedAdapter.ShowScript([
        (.zero, .displayed), (.seconds(1), .dismissed), (.seconds(21), .rewarded(nil)),
      ]), options: MediatorOptions(logging: logging))
  }

  static func loadAndShow(_ harness: Harness) throws {
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    try ad.show(from: HeadlessPresenter())
    harness.settle()
  }

  @Test func recordsCarryTheCategoryAndLevelOfTheirEvent() throws {
    let records = Records()
    let harness = try Self.lateReward(logging: .handler(records.append))
    try Self.loadAndShow(harness)

    let logged = records.all.map { "\($0.category) \($0.level) \($0.event.event.name)" }
    #expect(
      logged == [
        "zone.z debug loading", "zone.z info ready", "zone.z info shown", "zone.z debug revenue_paid",
        "zone.z info skipped", "network.a notice diagnostic",
      ])
    #expect(records.all.map(\.event) == harness.recorder.events)
    let late = try #require(records.all.last)
    #expect(late.message.hasPrefix("zone 'z', network 'a': diagnostic — late_reward: "))
    let ready = records.all[1].message
    #expect(ready.contains("line items: a a1 (priority 0, eCPM 9.00): loaded in 1.000 s"))
    #expect(Mediator.LogRecord.subsystem == "com.mediationkit")
  }

  @Test func aFailedShowIsAnErrorOfItsNetwork() throws {
    let records = Records()
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 9)])], scripts: ["a": ["a1": [.fill(after: .seconds(1))]]],
      show: ScriptedAdapter.ShowScript([(.zero, .showFailed(AdapterError(.notReady, message: "gone")))]),
      options: MediatorOptions(logging: .handler(minimumLevel: .notice, records.append)))
    try Self.loadAndShow(harness)

    #expect(records.all.map(\.category) == ["network.a"])
    #expect(records.all.map(\.level) == [.error])
    #expect(records.all.first?.event.event.name == "show_failed")
  }

  @Test func theMinimumLevelDropsTheLowerOnes() throws {
    let records = Records()
    let harness = try Self.lateReward(logging: .handler(minimumLevel: .info, records.append))
    try Self.loadAndShow(harness)
    #expect(records.all.map(\.event.event.name) == ["ready", "shown", "skipped", "diagnostic"])
    #expect(records.all.allSatisfy { $0.level >= .info })
  }

  @Test func quietByDefault() throws {
    #expect(!MediatorOptions().logging.isEnabled)
    #expect(MediatorOptions().logging.handler == nil && !MediatorOptions().logging.writesToOSLog)
    #expect(!MediatorOptions.Logging.off.isEnabled)
    #if canImport(os)
      #expect(MediatorOptions.Logging.osLog.isEnabled)
    #else
      #expect(!MediatorOptions.Logging.osLog.isEnabled, "no os.Logger here: nothing to write to")
    #endif
    // Switched off by leaving the handler out: the same run, nothing handed on.
    let records = Records()
    var logging = MediatorOptions.Logging.handler(records.append)
    logging.handler = nil
    try Self.loadAndShow(try Self.lateReward(logging: logging))
    #expect(records.all.isEmpty)
  }

  @Test func theHandlerRunsOutsideTheEngineLocks() throws {
    // A handler that calls back into the mediator and the ad from inside a record would deadlock
    // under any engine lock.
    let box = Locked<Mediator?>(nil)
    let reads = Locked(0)
    let harness = try Self.lateReward(
      logging: .handler { _ in
        guard let mediator = box.withLock({ $0 }) else { return }
        _ = mediator.inspect()
        _ = try? mediator.rewardedAd(zone: "z").isReady
        reads.withLock { $0 += 1 }
      })
    box.withLock { $0 = harness.mediator }
    #expect(finishes { try? Self.loadAndShow(harness) })
    #expect(reads.withLock { $0 } == 6)
    box.withLock { $0 = nil }
  }
}
