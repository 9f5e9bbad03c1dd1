extension Mediator {
  /// Where one adapter's start-up stands, like AdMob's `GADAdapterStatus` and MAX's
  /// `MAMediatedNetworkInfo`.
  public struct AdapterStatus: Sendable, Equatable {
    /// The start-up state.
    public enum State: String, Sendable, Equatable, Codable {
      /// `start` was not called: the network starts on first use, or never
      /// (``Mediator/AdapterStatus/start``).
      case notStarted = "not_started"
      /// `start` was called; no answer yet. Loads and bids for it wait, within their timeouts.
      case initializing
      /// Started; loads and bids go to it (never before).
      case ready
      /// The adapter reported a failure; its line items end `not_started` with the error.
      case failed
      /// No answer within the start timeout; its line items end `not_started` until it answers.
      case timedOut = "timed_out"
    }

    /// The network.
    public var network: NetworkID
    /// The state.
    public var state: State
    /// What the adapter said, or why it is in this state.
    public var description: String
    /// How long start-up took (or has taken, when it timed out); `nil` before it ended.
    public var latency: Duration?
    /// When the mediator starts the network (``MediatorOptions/networkStarts``).
    public var start: MediatorOptions.NetworkStart

    /// Creates the status of `network`'s start-up; the mediator makes these.
    package init(
      of network: NetworkID, state: State, description: String, latency: Duration? = nil,
      start: MediatorOptions.NetworkStart = .atLaunch
    ) {
      self.network = network
      self.state = state
      self.description = description
      self.latency = latency
      self.start = start
    }
  }
}
