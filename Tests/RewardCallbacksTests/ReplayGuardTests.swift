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

  @Test func theNetworkClaimDefaultsToANamespacedPlainClaim() throws {
    let guardian = InMemoryReplayGuard()
    #expect(try guardian.claim("same", network: .max))
    #expect(try guardian.claim("same", network: .google))
    #expect(guardian.claim("same"))
    #expect(try !guardian.claim("same", network: .max))
    #expect(!guardian.claim("max:same"))  // what the default implementation claimed
  }

  @Test func oneGuardSharedByBothVerifiersKeepsTheirIDsApart() throws {
    let guardian = InMemoryReplayGuard()
    let sharedID = Fixture.eventID  // a Google transaction id may be any text, even a MAX event id
    let maxURL = MaxCallbackTemplate.standard.expand(
      Fixture.maxValues(eventID: sharedID), eventKey: Fixture.eventKey)
    var callback = Fixture.callback
    callback.transactionID = sharedID
    let googleURL = try Fixture.signedURL(callback)
    #expect(
      try MaxCallbackVerifier(eventKey: Fixture.eventKey, replayGuard: guardian).verify(maxURL).network
        == .max)
    let google = GoogleSSVVerifier(keys: Fixture.keys, replayGuard: guardian)
    #expect(try google.verify(googleURL).transactionID == sharedID)
    #expect(rejection { () throws(CallbackRejection) in try google.verify(googleURL) }?.reason == .replayed)
  }

  /// A guard whose storage always fails.
  struct BrokenGuard: ReplayGuard {
    func claim(_ id: String) -> Bool { Issue.record("the verifier must use the throwing claim"); return true }
    func claim(_ id: String, network: CallbackNetwork) throws(ReplayGuardError) -> Bool {
      throw ReplayGuardError("disk I/O error on /srv/seen.sqlite")
    }
  }

  @Test func aStorageFailureIsAStorageRejectionNotAReplay() throws {
    let maxURL = MaxCallbackTemplate.standard.expand(Fixture.maxValues, eventKey: Fixture.eventKey)
    let max = MaxCallbackVerifier(eventKey: Fixture.eventKey, replayGuard: BrokenGuard())
    let maxRejection = try #require(rejection { () throws(CallbackRejection) in try max.verify(maxURL) })
    #expect(
      maxRejection
        == CallbackRejection(
          .storageFailure, parameter: "event_id",
          "event id \(Fixture.eventID) could not be checked for a replay: disk I/O error on /srv/seen.sqlite; "
            + "the callback is not accepted (nothing was recorded, so a retry is accepted once the storage works)"
        ))
    #expect(!maxRejection.isMalformed)
    let google = GoogleSSVVerifier(keys: Fixture.keys, replayGuard: BrokenGuard())
    let googleURL = try Fixture.signedURL()
    let googleRejection = try #require(
      rejection { () throws(CallbackRejection) in try google.verify(googleURL) })
    #expect(googleRejection.reason == .storageFailure)
    #expect(googleRejection.parameter == "transaction_id")
    // A forged callback is refused for what it is, before the guard is asked.
    let forged = MaxCallbackTemplate.standard.expand(Fixture.maxValues, eventKey: "wrong")
    #expect(rejection { () throws(CallbackRejection) in try max.verify(forged) }?.reason == .invalidToken)
  }
}
