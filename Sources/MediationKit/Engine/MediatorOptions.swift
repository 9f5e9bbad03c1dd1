/// Engine settings that are not per zone.
public struct MediatorOptions: Sendable {
  /// How long the network has to put the ad on screen after `show`, before the show fails.
  public var displayTimeout: Duration
  /// The seed of every random draw the mediator and its adapters make.
  public var seed: UInt64
  /// How long each adapter has to start before it is marked timed out and skipped.
  public var startTimeout: Duration

  public init(
    displayTimeout: Duration = .seconds(10), seed: UInt64 = 0, startTimeout: Duration = .seconds(10)
  ) {
    self.displayTimeout = displayTimeout
    self.seed = seed
    self.startTimeout = startTimeout
  }
}
