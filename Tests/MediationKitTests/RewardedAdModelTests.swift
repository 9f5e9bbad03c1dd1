import MediationKit
import Testing

@MainActor
@Suite("RewardedAdModel")
struct RewardedAdModelTests {
  static let info = AdInfo(
    zoneID: "z", network: "a", placementID: "p", ecpm: 3, responses: [], latency: .seconds(1))

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

  @Test func expiryClearsReadiness() {
    let model = RewardedAdModel()
    model.apply(.ready(Self.info))
    model.apply(.expired)
    #expect(!model.isReady && model.adInfo == nil)
  }
}
