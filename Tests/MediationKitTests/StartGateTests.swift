import Testing

@testable import MediationKit

/// The pure start gate: what a request does in each phase, and whom a start outcome releases.
@Suite("Start gate")
struct StartGateTests {
  typealias Gate = StartGate<String>

  static func ticket(_ admission: Gate.Admission) -> (ticket: Int, callStart: Bool)? {
    if case .wait(let ticket, let callStart) = admission { return (ticket, callStart) }
    return nil
  }

  @Test func requestsWaitForAStartAndGoOnWhenItSucceeds() {
    var gate = Gate(network: "a", mode: .atLaunch)
    let started = gate.beginStart(now: .zero)
    #expect(started)
    let startedAgain = gate.beginStart(now: .zero)
    #expect(!startedAgain, "a start is called once")
    let load = gate.admit({ "load" }, now: .seconds(1))
    #expect(Self.ticket(load)?.callStart == false)
    let bid = gate.admit({ "bid" }, now: .seconds(1))
    #expect(Self.ticket(bid) != nil)
    #expect(gate.status.state == .initializing)
    let release = gate.completed(.success(()), now: .seconds(2))
    #expect(release.waiters == ["load", "bid"])
    #expect(release.refusal == nil)
    #expect(gate.waiterCount == 0)
    #expect(gate.status.state == .ready)
    #expect(gate.status.latency == .seconds(2))
    var made = false
    guard
      case .proceed = gate.admit(
        {
          made = true; return "later"
        }, now: .seconds(3))
    else {
      Issue.record("a started network must let requests through")
      return
    }
    #expect(!made, "a request that goes straight through makes no waiter")
  }

  @Test func aFailedStartRefusesTheWaitersAndEveryLaterRequest() {
    var gate = Gate(network: "a", mode: .atLaunch)
    _ = gate.beginStart(now: .zero)
    _ = gate.admit({ "load" }, now: .zero)
    let release = gate.completed(
      .failure(AdapterError(.notInitialized, message: "bad key")), now: .seconds(1))
    #expect(release.waiters == ["load"])
    #expect(release.refusal == "adapter failed to start: not_initialized: bad key")
    guard case .refuse(let reason) = gate.admit({ "next" }, now: .seconds(2)) else {
      Issue.record("a failed network must refuse")
      return
    }
    #expect(reason == release.refusal)
    #expect(gate.status.state == .failed)
    // A late success after a failure changes nothing.
    let lateSuccess = gate.completed(.success(()), now: .seconds(3))
    #expect(lateSuccess.waiters.isEmpty)
    #expect(gate.status.state == .failed)
  }

  @Test func aTimedOutStartRefusesUntilItAnswers() {
    var gate = Gate(network: "a", mode: .atLaunch)
    _ = gate.beginStart(now: .zero)
    _ = gate.admit({ "load" }, now: .zero)
    let release = gate.startTimedOut(after: .seconds(10))
    #expect(release.waiters == ["load"])
    #expect(release.refusal == "adapter start timed out after 10 s")
    #expect(gate.status.state == .timedOut)
    if case .proceed = gate.admit({ "next" }, now: .seconds(11)) {
      Issue.record("a timed-out start let a load through")
    }
    let lateAnswer = gate.completed(.success(()), now: .seconds(12))
    #expect(lateAnswer.waiters.isEmpty)
    #expect(gate.status.state == .ready)
    #expect(gate.status.latency == .seconds(12))
    let lateTimer = gate.startTimedOut(after: .seconds(10))
    #expect(lateTimer.waiters.isEmpty, "a late timer changes nothing")
  }

  @Test func aLazyNetworkStartsWithItsFirstRequest() {
    var gate = Gate(network: "a", mode: .onFirstUse)
    #expect(gate.status.state == .notStarted)
    #expect(gate.status.description == "starts on first use")
    let firstRequest = gate.admit({ "first" }, now: .seconds(5))
    #expect(Self.ticket(firstRequest)?.callStart == true)
    let secondRequest = gate.admit({ "second" }, now: .seconds(5))
    #expect(Self.ticket(secondRequest)?.callStart == false)
    #expect(gate.status.state == .initializing)
    let released = gate.completed(.success(()), now: .seconds(6))
    #expect(released.waiters == ["first", "second"])
    #expect(gate.status.latency == .seconds(1))
  }

  @Test func aNetworkNeverStartedRefusesAndCannotBeStarted() {
    var gate = Gate(network: "a", mode: .never)
    let started = gate.beginStart(now: .zero)
    #expect(!started)
    guard case .refuse(let reason) = gate.admit({ "load" }, now: .zero) else {
      Issue.record("a never-started network must refuse")
      return
    }
    #expect(reason == "not started: MediatorOptions.networkStarts says .never for 'a'")
    #expect(gate.status.state == .notStarted)
    #expect(gate.status.start == .never)
  }

  @Test func aCancelledWaiterIsNotReleased() {
    var gate = Gate(network: "a", mode: .atLaunch)
    _ = gate.beginStart(now: .zero)
    let first = Self.ticket(gate.admit({ "first" }, now: .zero))!.ticket
    _ = gate.admit({ "second" }, now: .zero)
    let cancelled = gate.cancel(first)
    #expect(cancelled == "first")
    let cancelledAgain = gate.cancel(first)
    #expect(cancelledAgain == nil)
    let released = gate.completed(.success(()), now: .seconds(1))
    #expect(released.waiters == ["second"])
  }
}
