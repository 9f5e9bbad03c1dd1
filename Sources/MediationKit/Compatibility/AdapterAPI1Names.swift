// The public names of MediationKit 1.x (adapter API 1.x) that 2.0 renamed or nested under their
// owners. Each stays for one major version as a deprecated alias, so code written against 1.x
// compiles with a warning and a fix-it naming the new spelling. The "Migrating to adapter API 2.0"
// article lists these and every removal with its fix.

/// The MediationKit adapter API this core provides.
@available(*, deprecated, message: "use AdapterCompatibility.coreAPIVersion")
public enum AdapterAPI {
  /// The adapter API version this core provides.
  @available(*, deprecated, renamed: "AdapterCompatibility.coreAPIVersion")
  public static var version: SemanticVersion { AdapterCompatibility.coreAPIVersion }
}

/// ``AdapterRegistry/Registration`` by its 1.x name.
@available(*, deprecated, renamed: "AdapterRegistry.Registration")
public typealias AdapterRegistration = AdapterRegistry.Registration

/// ``AdapterInfo/Capability`` by its 1.x name.
@available(*, deprecated, renamed: "AdapterInfo.Capability")
public typealias AdapterCapability = AdapterInfo.Capability

/// ``AdapterSignal/Sink`` by its 1.x name.
@available(*, deprecated, renamed: "AdapterSignal.Sink")
public typealias AdapterSignalSink = AdapterSignal.Sink

/// ``AdapterSignal/Sink/ShowID`` by its 1.x name.
@available(*, deprecated, renamed: "AdapterSignal.Sink.ShowID")
public typealias AdapterShowID = AdapterSignal.Sink.ShowID

/// ``AdapterSignal/NetworkReward`` by its 1.x name.
@available(*, deprecated, renamed: "AdapterSignal.NetworkReward")
public typealias NetworkReward = AdapterSignal.NetworkReward

/// ``AdapterSignal/ImpressionRevenue`` by its 1.x name.
@available(*, deprecated, renamed: "AdapterSignal.ImpressionRevenue")
public typealias ImpressionRevenue = AdapterSignal.ImpressionRevenue

/// ``AdapterSignal/RevenuePrecision`` by its 1.x name.
@available(*, deprecated, renamed: "AdapterSignal.RevenuePrecision")
public typealias RevenuePrecision = AdapterSignal.RevenuePrecision

/// ``AdapterWithdrawal/Sink`` by its 1.x name.
@available(*, deprecated, message: "call withdraw(_:) on the ad's one sink, AdapterLoadRequest.sink")
public typealias AdapterWithdrawalSink = AdapterWithdrawal.Sink

/// ``ZoneConfig/AuctionStrategy`` by its 1.x name.
@available(*, deprecated, renamed: "ZoneConfig.AuctionStrategy")
public typealias AuctionStrategy = ZoneConfig.AuctionStrategy

/// ``ZoneConfig/FrequencyCaps`` by its 1.x name.
@available(*, deprecated, renamed: "ZoneConfig.FrequencyCaps")
public typealias FrequencyCaps = ZoneConfig.FrequencyCaps

/// ``ZoneConfig/RewardConfig`` by its 1.x name.
@available(*, deprecated, renamed: "ZoneConfig.RewardConfig")
public typealias RewardConfig = ZoneConfig.RewardConfig

/// ``ZoneConfig/LineItem`` by its 1.x name.
@available(*, deprecated, renamed: "ZoneConfig.LineItem")
public typealias LineItem = ZoneConfig.LineItem

/// ``ZoneConfig/ServerCallbackConfig`` by its 1.x name.
@available(*, deprecated, renamed: "ZoneConfig.ServerCallbackConfig")
public typealias ServerCallbackConfig = ZoneConfig.ServerCallbackConfig

/// ``MediationConfig/Issue`` by its 1.x name.
@available(*, deprecated, renamed: "MediationConfig.Issue")
public typealias ConfigIssue = MediationConfig.Issue

/// ``MediationConfig/Limits`` by its 1.x name.
@available(*, deprecated, renamed: "MediationConfig.Limits")
public typealias ConfigLimits = MediationConfig.Limits

/// ``MediationConfig/LoadError`` by its 1.x name.
@available(*, deprecated, renamed: "MediationConfig.LoadError")
public typealias ConfigError = MediationConfig.LoadError

/// ``MediationConfig``, whose static methods load configurations, by its 1.x name.
@available(*, deprecated, renamed: "MediationConfig")
public typealias ConfigLoader = MediationConfig

/// ``RewardedAd/ShowOutcome`` by its 1.x name.
@available(*, deprecated, renamed: "RewardedAd.ShowOutcome")
public typealias ShowOutcome = RewardedAd.ShowOutcome

/// ``RewardedAd/Delegate`` by its 1.x name.
@available(*, deprecated, renamed: "RewardedAd.Delegate")
public typealias RewardedAdDelegate = RewardedAd.Delegate

/// ``AdInfo/NetworkResponse`` by its 1.x name.
@available(*, deprecated, renamed: "AdInfo.NetworkResponse")
public typealias NetworkResponse = AdInfo.NetworkResponse

/// ``RewardedAdEvent/Revenue`` by its 1.x name.
@available(*, deprecated, renamed: "RewardedAdEvent.Revenue")
public typealias AdRevenue = RewardedAdEvent.Revenue

/// ``RewardedAdEvent/Diagnostic`` by its 1.x name.
@available(*, deprecated, renamed: "RewardedAdEvent.Diagnostic")
public typealias Diagnostic = RewardedAdEvent.Diagnostic

/// ``IABConsent/Reader`` by its 1.x name.
@available(*, deprecated, renamed: "IABConsent.Reader")
public typealias IABConsentReader = IABConsent.Reader

/// ``MediatorOptions/LedgerQueue`` by its 1.x name.
@available(*, deprecated, renamed: "MediatorOptions.LedgerQueue")
public typealias LedgerQueue = MediatorOptions.LedgerQueue

/// ``MediatorOptions/NetworkStart`` by its 1.x name.
@available(*, deprecated, renamed: "MediatorOptions.NetworkStart")
public typealias NetworkStart = MediatorOptions.NetworkStart

/// ``MediatorOptions/TransactionIDSource`` by its 1.x name.
@available(*, deprecated, renamed: "MediatorOptions.TransactionIDSource")
public typealias TransactionIDSource = MediatorOptions.TransactionIDSource

/// ``Mediator/AdapterStatus`` by its 1.x name.
@available(*, deprecated, renamed: "Mediator.AdapterStatus")
public typealias AdapterStatus = Mediator.AdapterStatus

/// ``Mediator/ZoneEvent`` by its 1.x name.
@available(*, deprecated, renamed: "Mediator.ZoneEvent")
public typealias ZoneEvent = Mediator.ZoneEvent
