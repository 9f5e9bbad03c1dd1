import MediationKit
import MediationKitTesting
import Testing

/// `RewardedAdModel` needs Observation (iOS 17, macOS 14): each test says so.
@MainActor
@Suite("RewardedAdModel")
struct RewardedAdModelTests {
  static let info = AdInfo(
    zoneID: "z", network: "a", placementID: "p", ecpm: 3, responses: [], latency: .seconds(1))

  @available(iOS 17, macOS 14, tvOS 17, visionOS 1, *)
  @Test func followsTheEventFlow() {
    let model = RewardedAdModel()
    var granted: [Int] = []
    model.onRewardEarned = { granted.append($0.amount) }
    model.apply(.loading)
    #expect(model.isLoading && !model.isReady)
    model.apply(.ready(Self.info))
    #expect(model.isReady && !model.isLoading && model.adInfo == Self.info)
    model.apply(.shown(Self.info))
    #expect(model.isShowing && !model.isReady)
    model.apply(.rewarded(Reward(type: "coins", amount: 100, transactionID: "t", network: "a")))
    model.apply(.closed)
    #expect(!model.isShowing)
    #expect(granted == [100])
    model.apply(.failed(MediationError(.noFill, "none")))
    #expect(model.lastError?.code == .noFill && !model.isLoading)
  }

  @available(iOS 17, macOS 14, tvOS 17, visionOS 1, *)
  @Test func expiryClearsReadiness() {
    let model = RewardedAdModel()
    model.apply(.ready(Self.info))
    model.apply(.expired)
    #expect(!model.isReady && model.adInfo == nil)
  }

  @available(iOS 17, macOS 14, tvOS 17, visionOS 1, *)
  @Test func withAQueueReadinessStaysWhileAnotherQueuedAdIsReady() throws {
    var queue = zone([item("a", "a1", ecpm: 10), item("a", "a2", priority: 1, ecpm: 5)], autoReload: true)
    queue.queueDepth = 2
    let harness = try Harness(
      zones: [queue], scripts: ["a": ["a1": [.fill(after: .zero)], "a2": [.fill(after: .zero)]]])
    let ad = try harness.mediator.rewardedAd(zone: "z")
    let model = RewardedAdModel(ad: ad)
    harness.settle(.seconds(1))
    #expect(ad.isReady)
    // The zone still holds its two ads: a show's end, an expiry or a failed refill reported for
    // one of them leaves the model ready.
    model.apply(.shown(Self.info))
    #expect(!model.isReady)
    model.apply(.closed)
    #expect(model.isReady)
    model.apply(.expired)
    #expect(model.isReady && model.adInfo == Self.info)
    model.apply(.failed(MediationError(.noFill, "none")))
    #expect(model.isReady && model.lastError?.code == .noFill)
  }

  @available(iOS 17, macOS 14, tvOS 17, visionOS 1, *)
  @Test func acknowledgesThroughItsAd() async throws {
    let ledger = InMemoryRewardLedger()
    let first = Reward(type: "coins", amount: 1, transactionID: "t1", network: "a")
    let second = Reward(type: "coins", amount: 1, transactionID: "t2", network: "a")
    for reward in [first, second] {
      try ledger.record(LedgerEntry(reward: reward, zoneID: "z", recordedAtMilliseconds: 1))
    }
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 10)])], scripts: ["a": ["a1": [.fill(after: .milliseconds(200))]]],
      options: MediatorOptions(seed: 1), ledger: ledger)
    let model = RewardedAdModel(ad: try harness.mediator.rewardedAd(zone: "z"))

    Self.acknowledgeSynchronously(first, with: model)  // virtual time: written before it returns
    #expect(try ledger.pending().map(\.reward) == [second])
    #expect(try await model.acknowledge(second))
    #expect(try ledger.pending().isEmpty)
    #expect(try await !RewardedAdModel().acknowledge(second))
  }

  /// The synchronous form, as an `onRewardEarned` callback calls it.
  @available(iOS 17, macOS 14, tvOS 17, visionOS 1, *)
  static func acknowledgeSynchronously(_ reward: Reward, with model: RewardedAdModel) {
    model.acknowledge(reward)
  }

  /// A model following a scripted zone on virtual time (driven from the main actor).
  @available(iOS 17, macOS 14, tvOS 17, visionOS 1, *)
  static func following() throws -> (Harness, RewardedAdModel) {
    let harness = try Harness(
      zones: [zone([item("a", "a1", ecpm: 10)])], scripts: ["a": ["a1": [.fill(after: .milliseconds(200))]]])
    return (harness, RewardedAdModel(ad: try harness.mediator.rewardedAd(zone: "z")))
  }

  @available(iOS 17, macOS 14, tvOS 17, visionOS 1, *)
  @Test func anAcceptedShowIsShowingUntilItEnds() async throws {
    let (harness, model) = try Self.following()
    harness.settle()
    #expect(await eventually { model.isReady })
    #expect(model.show(from: HeadlessPresenter()))
    #expect(model.isShowing, "showing from the accepted call, before any event")
    harness.settle()
    #expect(await eventually { !model.isShowing })
    #expect(model.rewards.map(\.amount) == [100])
  }

  @available(iOS 17, macOS 14, tvOS 17, visionOS 1, *)
  @Test func aRefusedShowLandsInLastError() throws {
    let (_, model) = try Self.following()
    #expect(!model.show(from: HeadlessPresenter()))
    #expect(model.lastError?.code == .notReady && !model.isShowing)
  }
}
