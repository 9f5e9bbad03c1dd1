import MediationKit
import MediationKitTesting
import Testing

@Suite("Property tests: withdrawn ads")
struct WithdrawalPropertyTests {
  /// Over random fill, withdrawal and show times: the zone is ready exactly between the fill and
  /// the withdrawal (or the show); a show before the withdrawal plays out unchanged whatever
  /// the withdrawal does; a show after it is refused `expired`; the contract holds throughout.
  ///
  /// Fill and withdrawal fall on whole 10 ms, the checks and the show on an odd 5 ms, so nothing
  /// ties.
  @Test func aWithdrawnAdIsNeverReadyAndNeverChangesAShow() throws {
    var outcomes: [String: Int] = [:]
    for seed in UInt64(1)...300 {
      var random = SeededRandom(seed: seed)
      let fillAt = Duration.milliseconds(Int64(random.next() % 200) * 10)
      let withdrawnAfter = Duration.milliseconds(Int64(random.next() % 6000) * 10)
      let showAt = Duration.milliseconds(Int64(random.next() % 100) * 1000 + 5)
      let reason = AdapterWithdrawal(.availabilityLost, message: "seed \(seed)")
      let harness = try Harness(
        zones: [zone([item("a", "a1", ecpm: 1)])],
        scripts: ["a": ["a1": [.fillThenWithdraw(after: fillAt, withdrawnAfter: withdrawnAfter, reason)]]])
      let ad = try harness.mediator.rewardedAd(zone: "z")
      ad.load()
      let withdrawnAt = fillAt + withdrawnAfter
      var shown = false
      var outcome = "not shown"
      var now = Duration.milliseconds(5)
      while now < .seconds(200) {
        harness.scheduler.advance(by: now - harness.scheduler.now)
        if !shown && now >= showAt {
          shown = true
          do {
            try ad.show(from: HeadlessPresenter())
            outcome = "shown"
            #expect(now >= fillAt && now < withdrawnAt, "seed \(seed): showed outside the ready window")
          } catch {
            outcome = error.code.rawValue
            let expected: MediationError.Code = now < fillAt ? .notReady : .expired
            #expect(error.code == expected, "seed \(seed): \(error)")
          }
        }
        let expectReady = now >= fillAt && now < withdrawnAt && !(shown && outcome == "shown")
        #expect(ad.isReady == expectReady, "seed \(seed) at \(now): isReady \(ad.isReady)")
        now += .milliseconds(100)
      }
      outcomes[outcome, default: 0] += 1
      let names = harness.names()
      if outcome == "shown" {
        // The show's own events, whether the withdrawal came during it, after it, or never.
        let show = names.drop { $0 != "shown" }.filter { $0 != "diagnostic" }
        #expect(Array(show) == ["shown", "revenue_paid", "rewarded", "closed"], "seed \(seed): \(names)")
        #expect(!names.contains("expired"), "seed \(seed): \(names)")
      } else if withdrawnAt < .seconds(200) {
        #expect(names.suffix(2) == ["diagnostic", "expired"], "seed \(seed): \(names)")
      }
      try harness.recorder.verifyContract(requireFinished: false)
    }
    // Every branch is exercised.
    #expect(outcomes["shown", default: 0] > 20, "\(outcomes)")
    #expect(outcomes["expired", default: 0] > 20, "\(outcomes)")
    #expect(outcomes["not_ready", default: 0] > 0, "\(outcomes)")
  }
}
