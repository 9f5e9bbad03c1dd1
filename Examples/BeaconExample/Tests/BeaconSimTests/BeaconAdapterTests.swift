import BeaconSim
import MediationKit
import MediationKitSimulation
import MediationKitTesting
import Testing

/// The adapter through a real mediator on virtual time: what the router buys.
@Suite("Beacon adapter")
struct BeaconAdapterTests {
  struct Setup {
    let scheduler = VirtualScheduler()
    let mediator: Mediator
    let recorder: EventRecorder
    let sdk: BeaconAds

    init(zones: [String] = ["z"], profile: BeaconProfile, appKey: String = "beacon-app") throws {
      let configs = zones.map { id in
        ZoneConfig(
          id: id, reward: ZoneConfig.RewardConfig(type: "coins", amount: 10),
          lineItems: [
            ZoneConfig.LineItem(network: BeaconNetwork.id, placementId: "rewarded", priority: 0, ecpm: 10)
          ],
          rewardGraceSeconds: 5, autoReload: false)
      }
      let made = MadeAdapters()
      mediator = try Mediator(
        config: MediationConfig(zones: configs),
        registry: made.recording(
          AdapterRegistry([BeaconNetwork.registration(appKey: appKey, profile: profile)])),
        scheduler: scheduler, options: MediatorOptions(seed: 3))
      recorder = EventRecorder(mediator)
      sdk = try #require((made[BeaconNetwork.id] as? BeaconAdapter)?.sdk)
    }
  }

  /// Always fills, never skips, rewards 20 s after the close: beyond the 5 s grace window.
  let lateRewards = BeaconProfile(
    fillRate: 1, skipRate: 0, rewardAfterCloseRate: 1, rewardAfterCloseDelay: .seconds(20)...(.seconds(20)))

  @Test func aLateRewardReachesItsOwnShowNotTheNextOne() throws {
    let setup = try Setup(profile: lateRewards)
    let ad = try setup.mediator.rewardedAd(zone: "z")
    ad.load()
    setup.scheduler.advance(by: .seconds(5))
    try ad.show(from: HeadlessPresenter())
    // Opened at 5.3 s, closed at 35.3 s, skipped after the grace window; its reward comes at 55.3 s.
    setup.scheduler.advance(by: .seconds(36))
    ad.load()
    setup.scheduler.advance(by: .seconds(4))
    try ad.show(from: HeadlessPresenter())
    setup.scheduler.advance(by: .seconds(60))
    let names = setup.recorder.names(zone: "z")
    let shows = names.split(separator: "shown", omittingEmptySubsequences: false).map(Array.init)
    #expect(shows.count == 3)
    // Show 2 is on screen from 45.3 s when show 1's reward arrives (55.3 s): it must reach show 1,
    // as a late_reward diagnostic, and not make show 2 rewarded. Show 2's own reward is late too.
    #expect(!names.contains("rewarded"))
    #expect(names.filter { $0 == "skipped" }.count == 2)
    let notes = setup.recorder.events(zone: "z").compactMap { event -> RewardedAdEvent.Diagnostic.Kind? in
      if case .diagnostic(let note) = event { note.kind } else { nil }
    }
    #expect(notes.filter { $0 == .lateReward }.count == 2)
    try setup.recorder.verifyContract()
  }

  @Test func theSDKExpiringItsAdWithdrawsIt() throws {
    var profile = lateRewards
    profile.adLifetime = .seconds(60)
    let setup = try Setup(profile: profile)
    let ad = try setup.mediator.rewardedAd(zone: "z")
    ad.load()
    setup.scheduler.advance(by: .seconds(5))
    #expect(ad.isReady)
    setup.scheduler.advance(by: .seconds(60))
    #expect(!ad.isReady)
    #expect(setup.recorder.names(zone: "z") == ["loading", "ready", "diagnostic", "expired"])
  }

  @Test func twoZonesOnOnePlacementShareTheSDKsOneAdAndNeverDoubleGrant() throws {
    let setup = try Setup(zones: ["a", "b"], profile: lateRewards)
    let first = try setup.mediator.rewardedAd(zone: "a")
    let second = try setup.mediator.rewardedAd(zone: "b")
    first.load()
    second.load()
    setup.scheduler.advance(by: .seconds(5))
    #expect(first.isReady && second.isReady)
    try first.show(from: HeadlessPresenter())
    // Showing the SDK's one ad turns its availability false: zone b's object is withdrawn.
    #expect(!second.isReady)
    setup.scheduler.advance(by: .seconds(60))
    #expect(setup.recorder.names(zone: "b") == ["loading", "ready", "diagnostic", "expired"])
    #expect(setup.recorder.names(zone: "a").filter { $0 == "rewarded" || $0 == "skipped" }.count == 1)
    try setup.recorder.verifyContract()
  }

  @Test func loadsDuringStartWaitForItAndABadAppKeyFailsThem() throws {
    let setup = try Setup(profile: lateRewards)
    let ad = try setup.mediator.rewardedAd(zone: "z")
    ad.load()  // the SDK starts in 0.4 s
    setup.scheduler.advance(by: .seconds(5))
    #expect(ad.isReady)

    let failing = try Setup(profile: lateRewards, appKey: "")
    let other = try failing.mediator.rewardedAd(zone: "z")
    other.load()
    failing.scheduler.advance(by: .seconds(30))
    #expect(failing.recorder.names(zone: "z") == ["loading", "failed"])
    let status = try #require(failing.mediator.adapterStatuses.first)
    #expect(status.description.contains("501"))
  }
}
