/// Receives the outcome of ``UnityAds/initialize(_:testMode:initializationDelegate:)``.
public protocol UnityAdsInitializationDelegate: AnyObject {
  /// The SDK is initialized: loads can start.
  func initializationComplete()
  /// The SDK could not initialize.
  func initializationFailed(_ error: UnityAdsInitializationError, withMessage message: String)
}

/// Receives the outcome of one ``UnityAds/load(_:loadDelegate:)`` call.
public protocol UnityAdsLoadDelegate: AnyObject {
  /// The placement has an ad ready to show.
  func unityAdsAdLoaded(_ placementId: String)
  /// The placement could not load an ad.
  func unityAdsAdFailed(
    toLoad placementId: String, withError error: UnityAdsLoadError, withMessage message: String)
}

/// Receives what happens during one ``UnityAds/show(_:placementId:showDelegate:)`` call.
///
/// There is no reward callback: the ad completes with a ``UnityAdsShowCompletionState``, and a
/// ``UnityAdsShowCompletionState/showCompletionStateCompleted`` ad earns the reward.
public protocol UnityAdsShowDelegate: AnyObject {
  /// The ad started playing (an impression).
  func unityAdsShowStart(_ placementId: String)
  /// The user tapped the ad.
  func unityAdsShowClick(_ placementId: String)
  /// The ad left the screen, watched to the end or skipped.
  func unityAdsShowComplete(_ placementId: String, withFinish state: UnityAdsShowCompletionState)
  /// The ad could not be shown.
  func unityAdsShowFailed(
    _ placementId: String, withError error: UnityAdsShowError, withMessage message: String)
}

/// How a shown ad ended.
public enum UnityAdsShowCompletionState: Int, Sendable, Equatable, CaseIterable {
  /// The user skipped the ad: no reward.
  case showCompletionStateSkipped = 0
  /// The ad played to its end: reward the user.
  case showCompletionStateCompleted = 1

  /// Short for ``showCompletionStateCompleted``.
  public static let completed = UnityAdsShowCompletionState.showCompletionStateCompleted
  /// Short for ``showCompletionStateSkipped``.
  public static let skipped = UnityAdsShowCompletionState.showCompletionStateSkipped
}

/// Why initialization failed.
public enum UnityAdsInitializationError: Int, Sendable, Equatable, CaseIterable {
  case initializationErrorInternalError = 0
  case initializationErrorInvalidArgument = 1
  case initializationErrorAdBlockerDetected = 2
}

/// Why a load failed.
public enum UnityAdsLoadError: Int, Sendable, Equatable, CaseIterable {
  /// The SDK was not initialized, or failed to.
  case initializeFailed = 0
  /// An internal error.
  case `internal` = 1
  /// The placement id is empty or unknown.
  case invalidArgument = 2
  /// No ad to serve.
  case noFill = 3
  /// The ad server did not answer in time.
  case timeout = 4
}

/// Why a show failed.
public enum UnityAdsShowError: Int, Sendable, Equatable, CaseIterable {
  /// The SDK is not initialized.
  case showErrorNotInitialized = 0
  /// The placement has no ad loaded (never loaded, still loading, or already shown).
  case showErrorNotReady = 1
  /// The video player failed.
  case showErrorVideoPlayerError = 2
  /// The placement id is empty.
  case showErrorInvalidArgument = 3
  /// No network connection.
  case showErrorNoConnection = 4
  /// Another ad is already on screen.
  case showErrorAlreadyShowing = 5
  /// An internal error.
  case showErrorInternalError = 6
  /// The ad did not start in time.
  case showErrorTimeout = 7
}
