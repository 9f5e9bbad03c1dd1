import MediationKit
import MediationKitSimulation

/// What the simulated networks pay, when it is not what the configuration says (`--market FILE`).
///
/// The simulated networks price a line item's ads around the eCPM the line item is configured
/// with: a configuration's eCPMs are right by construction. To see how the engine does when they
/// are wrong — a waterfall ordered by stale eCPMs, or learning them (`"autoECPM": true`) — the
/// networks can be made to price each line item, by network and placement id, at another eCPM:
/// every request an adapter receives (and every oracle quote) carries the market's eCPM instead
/// of the configured one. Line items the market does not list keep their own.
struct MarketPrices: Sendable, Equatable {
  struct Key: Hashable, Sendable {
    var network: NetworkID
    var placementID: String
  }

  var ecpms: [Key: Double]

  /// The eCPMs of `zone`'s line items.
  init(zone: ZoneConfig) {
    var ecpms: [Key: Double] = [:]
    for item in zone.lineItems {
      ecpms[Key(network: item.network, placementID: item.placementId)] = item.ecpm
    }
    self.ecpms = ecpms
  }

  /// `registry` with every simulated network's adapter wrapped to price at the market's eCPMs;
  /// adapters that are not simulated networks are left alone.
  func wrapping(_ registry: AdapterRegistry) -> AdapterRegistry {
    let market = self
    return registry.wrappingAdapters { adapter, _ in
      guard let simulated = adapter as? any SimulatedNetwork else { return adapter }
      return RepricedNetwork(simulated, market: market)
    }
  }

  /// `request` at the market's eCPM for `network`'s placement.
  func repriced(_ request: AdapterLoadRequest, network: NetworkID) -> AdapterLoadRequest {
    guard let ecpm = ecpms[Key(network: network, placementID: request.placementID)] else { return request }
    var request = request
    request.ecpm = ecpm
    return request
  }
}

/// A simulated network whose requests carry the market's eCPMs (``MarketPrices``).
private final class RepricedNetwork: SimulatedNetwork {
  private let network: any SimulatedNetwork
  private let market: MarketPrices

  init(_ network: any SimulatedNetwork, market: MarketPrices) {
    self.network = network
    self.market = market
  }

  var info: AdapterInfo { network.info }

  func start(
    _ request: AdapterStartRequest, completion: @escaping @Sendable (Result<Void, AdapterError>) -> Void
  ) {
    network.start(request, completion: completion)
  }

  func load(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void
  ) -> Cancellable {
    network.load(market.repriced(request, network: info.id), completion: completion)
  }

  func bid(
    _ request: AdapterLoadRequest, completion: @escaping @Sendable (Result<AdapterBid, AdapterError>) -> Void
  ) -> Cancellable {
    network.bid(market.repriced(request, network: info.id), completion: completion)
  }

  func privacyDidChange(_ privacy: PrivacySettings) { network.privacyDidChange(privacy) }

  func quote(_ request: AdapterLoadRequest) -> SimulatedQuote {
    network.quote(market.repriced(request, network: info.id))
  }
}
