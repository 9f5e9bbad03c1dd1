import Dispatch
import MediationKit

/// The simulated Unity Ads SDK's vendor-style entry point: class methods on the process-wide
/// ``UnityAdsSDK/shared`` instance, as in the Unity Ads iOS guide, with ``AdPresenting`` in place
/// of `UIViewController`.
///
/// ```swift
/// UnityAds.initialize("1234567", testMode: true, initializationDelegate: self)
/// UnityAds.load("Rewarded_iOS", loadDelegate: self)
/// // in unityAdsAdLoaded(_:)
/// UnityAds.show(self, placementId: "Rewarded_iOS", showDelegate: self)
/// // in unityAdsShowComplete(_:withFinish:)
/// if state == .showCompletionStateCompleted { /* reward the user */ }
/// ```
///
/// Mediation adapters do not use these: they drive their own ``UnityAdsSDK`` instance.
public enum UnityAds {
  /// Initializes the shared SDK with a game id from the Unity dashboard.
  public static func initialize(
    _ gameId: String, testMode: Bool = false, initializationDelegate: UnityAdsInitializationDelegate? = nil
  ) {
    UnityAdsSDK.shared.initialize(gameId, testMode: testMode, initializationDelegate: initializationDelegate)
  }

  /// Whether the shared SDK finished initializing.
  public static func isInitialized() -> Bool { UnityAdsSDK.shared.isInitialized() }

  /// Loads an ad for `placementId`; `loadDelegate` hears back once.
  public static func load(_ placementId: String, loadDelegate: UnityAdsLoadDelegate? = nil) {
    UnityAdsSDK.shared.load(placementId, loadDelegate: loadDelegate)
  }

  /// Shows the ad loaded for `placementId`; `showDelegate` hears what happens.
  public static func show(
    _ viewController: AdPresenting, placementId: String, showDelegate: UnityAdsShowDelegate? = nil
  ) {
    UnityAdsSDK.shared.show(viewController, placementId: placementId, showDelegate: showDelegate)
  }

  /// The SDK's version.
  public static func getVersion() -> String { UnityAdsSDK.sdkVersion }
}

/// Privacy and other settings passed to the SDK as key-value metadata, as in the vendor guide:
/// `gdpr.consent` (GDPR), `privacy.consent` (CCPA) and `user.nonbehavioral` (COPPA).
///
/// ```swift
/// let gdpr = UADSMetaData()
/// gdpr.set("gdpr.consent", value: true)
/// gdpr.commit()
/// ```
public final class UADSMetaData {
  private var entries: [String: Bool] = [:]

  public init() {}

  /// Sets `key` to `value` (committed by ``commit()``).
  public func set(_ key: String, value: Bool) { entries[key] = value }

  /// Hands the entries to the shared SDK.
  public func commit() { commit(to: .shared) }

  /// Simulation wiring: hands the entries to `sdk` instead of the shared one.
  public func commit(to sdk: UnityAdsSDK) { sdk.apply(metaData: entries) }
}
