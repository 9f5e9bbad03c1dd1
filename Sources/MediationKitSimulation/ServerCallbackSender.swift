import MediationKit

/// A server-to-server callback a simulated network's server makes: an HTTP GET of `url`.
public struct ServerCallbackRequest: Sendable, Equatable {
  /// The network whose server makes the call, e.g. `"max"`.
  public var network: NetworkID
  /// The full URL to GET, query included (a MAX template expanded, a Google SSV URL signed).
  public var url: String

  /// Creates a callback request.
  public init(network: NetworkID, url: String) {
    self.network = network
    self.url = url
  }
}

/// Where simulated networks' servers send their server-to-server reward callbacks.
///
/// A real network's server calls the publisher's endpoint itself; a simulated one hands each
/// callback it builds to the sender its registration was made with (`MaxNetwork.registration` and
/// `GoogleNetwork.registration` take one). `S2SDelivery`'s `ServerCallbackDispatcher` delivers
/// them over HTTP with the networks' timeout and retry policy.
public protocol ServerCallbackSender: Sendable {
  /// Starts delivering `callback` and returns at once; callable from any thread.
  func send(_ callback: ServerCallbackRequest)
}
