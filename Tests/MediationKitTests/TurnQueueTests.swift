import MediationKitTesting
import Testing

@testable import MediationKit

@Suite("TurnQueue: one taker at a time, inputs in order")
struct TurnQueueTests {
  @Test func theFirstCallerPerformsItsInputThenTakesTheQueuedOnesInOrder() {
    var queue = TurnQueue<Int>()
    var taken: [Int?] = []
    let turns = [queue.startOrQueue(1), queue.startOrQueue(2)]
    taken.append(queue.next())
    let whileTaking = queue.startOrQueue(3)
    taken += [queue.next(), queue.next()]
    let afterTheTurn = queue.startOrQueue(4)
    taken.append(queue.next())

    #expect(turns == [true, false], "the first caller's turn, with its own input; the second only queues")
    #expect(!whileTaking, "an input queued while its taker performs one waits its turn")
    #expect(afterTheTurn, "the turn ended with nil: the next caller starts one")
    #expect(
      taken == [2, 3, nil, nil], "the caller performs its own input; next() hands the queued ones in order")
  }
}

/// Changes the privacy signals again, once, from inside `privacyDidChange` — as an SDK that reports
/// consent back to its app might. Under a lock held across the call this would deadlock.
final class PrivacyEchoAdapter: ScriptedWrapper {
  let scripted: ScriptedAdapter
  let mediator = Locked<Mediator?>(nil)

  init(_ scripted: ScriptedAdapter) { self.scripted = scripted }

  func privacyDidChange(_ privacy: PrivacySettings) {
    scripted.privacyDidChange(privacy)
    guard privacy.doNotSell != true, let mediator = mediator.get() else { return }
    mediator.updatePrivacy { $0.doNotSell = true }
  }
}

@Suite("The mediator calls adapter code under none of its locks")
struct AdapterCodeOutsideLocksTests {
  @Test func aPrivacyChangeMadeInsidePrivacyDidChangeIsToldNextInOrder() throws {
    let scheduler = VirtualScheduler()
    let echo = PrivacyEchoAdapter(ScriptedAdapter(id: "a", scheduler: scheduler, loads: [:]))
    let registry = AdapterRegistry()
    try registry.register(AdapterRegistry.Registration(info: echo.info) { _ in echo })
    let zone = zone([item("a", "a1", ecpm: 10)])
    let mediator = try Mediator(
      config: MediationConfig(zones: [zone]), registry: registry, scheduler: scheduler)
    echo.mediator.set(mediator)
    defer { echo.mediator.set(nil) }

    mediator.privacy = PrivacySettings(hasUserConsent: true)

    #expect(
      echo.scripted.privacyChanges == [
        PrivacySettings(hasUserConsent: true), PrivacySettings(hasUserConsent: true, doNotSell: true),
      ])
    #expect(mediator.privacy == PrivacySettings(hasUserConsent: true, doNotSell: true))
  }

  @Test func aChangeThatLeavesThePrivacySignalsAsTheyWereTellsNoAdapter() throws {
    let harness = try Harness(zones: [zone([item("a", "a1", ecpm: 10)])], scripts: ["a": [:]])
    harness.mediator.updatePrivacy { $0.isChildDirected = false }
    harness.mediator.updatePrivacy { $0.isChildDirected.toggle() }
    harness.mediator.updatePrivacy { $0.isChildDirected.toggle() }
    #expect(harness.adapters["a"]!.privacyChanges.map(\.isChildDirected) == [true, false])
  }
}
