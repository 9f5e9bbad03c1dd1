import MediationKit

/// The public API 2.0 deprecates because no app or adapter needs it, used as code written
/// against 1.x used it.
enum AdapterAPI2Narrowed {
  /// The mediator's auction id, adapter and scheduler.
  static func mediator(_ mediator: Mediator) -> (UInt64, (any RewardedAdapter)?, Duration) {
    (mediator.lastAuctionID, mediator.adapter(for: "acme"), mediator.scheduler.now)
  }

  /// The initializers of what the mediator reports.
  static func outputs() -> (AdInfo.NetworkResponse, Mediator.AdapterStatus) {
    (
      AdInfo.NetworkResponse(network: "acme", placementID: "p", priority: 0, ecpm: 1, state: .loaded),
      Mediator.AdapterStatus(network: "acme", state: .ready, description: "ready")
    )
  }

  /// The compatibility check's texts.
  static func compatibility(_ info: AdapterInfo) -> (String?, String) {
    (
      AdapterCompatibility.check(info).problem(for: info),
      AdapterCompatibility.describe(SemanticVersion(1, 0)..<SemanticVersion(2, 0))
    )
  }
}
