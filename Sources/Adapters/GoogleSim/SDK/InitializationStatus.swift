import Foundation

/// Whether a mediation adapter (or the Google SDK itself) is ready to serve ad requests.
public enum AdapterInitializationState: Int, Sendable {
  /// The adapter is not ready to serve ad requests.
  case notReady = 0
  /// The adapter is ready to serve ad requests.
  case ready = 1
}

/// An adapter's initialization status.
public final class AdapterStatus: Sendable, CustomStringConvertible {
  /// The adapter's initialization state.
  public let state: AdapterInitializationState
  /// Why the adapter is (or is not) ready, in words.
  public let description: String
  /// Time the adapter took to initialize, in seconds.
  public let latency: TimeInterval

  init(state: AdapterInitializationState, description: String, latency: TimeInterval) {
    self.state = state
    self.description = description
    self.latency = latency
  }
}

/// The initialization status of the Google Mobile Ads SDK and its mediation adapters.
public final class InitializationStatus: Sendable {
  /// Every adapter's status, keyed by the adapter's class name.
  public let adapterStatusesByClassName: [String: AdapterStatus]

  init(adapterStatusesByClassName: [String: AdapterStatus]) {
    self.adapterStatusesByClassName = adapterStatusesByClassName
  }
}

/// The handler `MobileAds.start(completionHandler:)` calls once initialization completes or
/// times out.
public typealias GADInitializationCompletionHandler = (InitializationStatus) -> Void
