import EmpowerSim
import MediationKit
import MediationKitTesting
import Testing

@Suite struct DeterminismTests {
  /// Runs `cycles` load → show cycles on two zones with the default profile and returns the
  /// timeline of every status, stamped with virtual time.
  static func timeline(seed: UInt64, cycles: Int = 40) -> [String] {
    let (manager, scheduler) = makeManager(seed: seed, profile: .default)
    let presenter = HeadlessPresenter()
    let recorders = ["a", "b"].map { zone in
      manager.configureZone(EmpowerZoneSettings(zoneId: zone, baseECPM: zone == "a" ? 8 : 15))
      return (zone, StatusRecorder(scheduler: scheduler))
    }
    for _ in 0..<cycles {
      for (zone, recorder) in recorders {
        manager.loadRewardedAd(zoneId: zone, delegate: recorder)
        scheduler.run()
        manager.showRewarded(zoneId: zone, from: presenter)
        scheduler.run()
      }
    }
    return recorders.flatMap { zone, recorder in recorder.timeline.map { "\(zone) \($0)" } }
  }

  @Test func sameSeedGivesTheSameStatusesAndTimings() {
    let first = Self.timeline(seed: 7)
    let second = Self.timeline(seed: 7)
    #expect(first == second)
    #expect(first.count > 200)
  }

  @Test func differentSeedsDiffer() {
    #expect(Self.timeline(seed: 7) != Self.timeline(seed: 8))
  }

  @Test func theDefaultProfileProducesEveryOutcome() {
    let timeline = Self.timeline(seed: 3, cycles: 100)
    for outcome in [
      "ready", "failed(no_fill)", "shown", "rewarded(coins, 100)", "closed", "skipped", "clicked",
    ] {
      #expect(timeline.contains { $0.contains(" " + outcome) }, "no \(outcome) in 200 cycles")
    }
  }

  @Test func pricesAndLoadLatenciesFollowTheProfile() {
    let profile = EmpowerBehaviorProfile(fillRate: 1, networkErrorRate: 0)
    let (manager, scheduler) = makeManager(seed: 11, profile: profile)
    manager.configureZone(EmpowerZoneSettings(zoneId: "z", baseECPM: 10))
    var prices: [Double] = []
    var latencies: [Int64] = []
    for _ in 0..<400 {
      let start = scheduler.now
      manager.loadRewardedAd(zoneId: "z")
      scheduler.run()
      latencies.append((scheduler.now - start).milliseconds)
      prices.append(manager.rewardedECPM(zoneId: "z") ?? 0)
      manager.destroyRewardedZone(zoneId: "z")
    }
    let medianPrice = prices.sorted()[prices.count / 2]
    let medianLatency = latencies.sorted()[latencies.count / 2]
    #expect((9...11).contains(medianPrice))
    #expect((500...720).contains(medianLatency))
    #expect(Set(prices).count > 100, "prices vary from ad to ad")
  }

  @Test func onesZoneDrawsDoNotShiftAnothers() {
    func readyTimes(extraZoneLoads: Int) -> [Int64] {
      let (manager, scheduler) = makeManager(seed: 5, profile: .default)
      manager.configureZone(EmpowerZoneSettings(zoneId: "main"))
      manager.configureZone(EmpowerZoneSettings(zoneId: "other"))
      for _ in 0..<extraZoneLoads {
        manager.loadRewardedAd(zoneId: "other")
        scheduler.run()
        manager.destroyRewardedZone(zoneId: "other")
      }
      let recorder = StatusRecorder(scheduler: scheduler)
      var durations: [Int64] = []
      for _ in 0..<10 {
        let start = scheduler.now
        manager.loadRewardedAd(zoneId: "main", delegate: recorder)
        scheduler.run()
        durations.append((scheduler.now - start).milliseconds)
        manager.destroyRewardedZone(zoneId: "main")
      }
      return durations
    }
    #expect(readyTimes(extraZoneLoads: 0) == readyTimes(extraZoneLoads: 5))
  }
}
