import MediationKit
import MediationKitTesting

/// Every 1.x name MediationKit keeps as a deprecated alias, spelled as 1.x code spelled it.
struct AdapterAPI1Names {
  var registration: AdapterRegistration
  var capability: AdapterCapability = .rewarded
  var sink: AdapterSignalSink
  var show: AdapterShowID = AdapterShowID(zoneID: "z", number: 1)
  var reward: NetworkReward = NetworkReward(type: "coins", amount: 1)
  var revenue: ImpressionRevenue = ImpressionRevenue(usd: 0.01, precision: .exact)
  var precision: RevenuePrecision = .estimated
  var withdrawals: AdapterWithdrawalSink
  var strategy: AuctionStrategy = .waterfall
  var caps: FrequencyCaps?
  var rewardConfig: RewardConfig = RewardConfig(type: "coins", amount: 1)
  var lineItem: LineItem = LineItem(network: "acme", placementId: "p", priority: 0, ecpm: 1)
  var serverCallback: ServerCallbackConfig?
  var issue: ConfigIssue?
  var maxQueueDepth = ConfigLimits.maxQueueDepth
  var configError: ConfigError?
  var loader: ConfigLoader.Type = ConfigLoader.self
  var outcome: ShowOutcome?
  var delegate: (any RewardedAdDelegate)?
  var response: NetworkResponse?
  var adRevenue: AdRevenue?
  var diagnostic: Diagnostic?
  var consentReader: IABConsentReader?
  var ledgerQueue: LedgerQueue = .automatic
  var networkStart: NetworkStart = .atLaunch
  var transactionIDs: TransactionIDSource = .systemRandom
  var status: AdapterStatus?
  var zoneEvent: ZoneEvent?
  var apiVersion = AdapterAPI.version

  /// The 1.x conformance entry point.
  func conforms() throws -> AdapterConformance.Report {
    try AdapterConformance.run(registration, placementID: "p", seeds: 1...1)
  }

  /// The 1.x conformance error.
  func failureSeed(_ error: any Error) -> UInt64? { (error as? AdapterConformance.Failure)?.seed }
}
