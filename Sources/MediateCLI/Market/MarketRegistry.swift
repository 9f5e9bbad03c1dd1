import EmpowerSim
import GoogleSim
import MaxSim
import MediationKit
import MediationKitSimulation

extension AdapterRegistry {
  /// This registry with each adapter it makes passed through `wrap` with its environment; the
  /// networks, their order and their random streams are this registry's.
  func wrappingAdapters(
    _ wrap: @escaping @Sendable (any RewardedAdapter, AdapterEnvironment) -> any RewardedAdapter
  ) -> AdapterRegistry {
    let wrapped = AdapterRegistry()
    for registration in all {
      let made = AdapterRegistry.Registration(info: registration.info) { environment in
        wrap(registration.makeAdapter(environment), environment)
      }
      do {
        try wrapped.register(made)
      } catch {
        // This registry accepted the same info under distinct ids, so the copy does too.
        preconditionFailure("a registration the source registry accepted was refused: \(error)")
      }
    }
    return wrapped
  }
}

extension BuiltInNetworks {
  /// The simulated SDK of `network` set to take every market draw from the request, for
  /// ``CalibratedNetwork``: every load and bid fills, at once, at exactly the request's eCPM (its
  /// privacy factors still apply); a won bid still loads in the SDK's bid-load time, and shows,
  /// rewards and revenue keep the SDK's behaviour. `nil` for a network `mediate` does not simulate.
  static func marketHost(for network: NetworkID) -> AdapterRegistry.Registration? {
    switch network {
    case EmpowerNetwork.id:
      var profile = EmpowerBehaviorProfile.default
      profile.fillRate = 1
      profile.networkErrorRate = 0
      profile.priceSigma = 0
      profile.loadLatencyMedian = .zero
      profile.bidLatencyMedian = .zero
      return EmpowerNetwork.registration(profile: profile)
    case MaxNetwork.id:
      var profile = MaxBehaviorProfile.default
      profile.fillRate = 1
      profile.priceSigma = 0
      profile.loadLatencyMedian = .zero
      profile.bidLatencyMedian = .zero
      return MaxNetwork.registration(profile: profile)
    case GoogleNetwork.id:
      var profile = GoogleBehaviorProfile.default
      profile.fillRate = 1
      profile.timeoutRate = 0
      profile.networkErrorRate = 0
      profile.priceSigma = 0
      profile.loadLatencyMedian = .zero
      profile.bidLatencyMedian = .zero
      return GoogleNetwork.registration(profile: profile)
    default:
      return nil
    }
  }
}

extension CalibratedMarket {
  /// The networks this market lists line items of that `mediate` cannot simulate from a market.
  var unsupportedNetworks: [NetworkID] {
    Set(behaviours.keys.map(\.network)).filter { BuiltInNetworks.marketHost(for: $0) == nil }.sorted()
  }

  /// `registry` with each simulated network whose line items the market lists made a
  /// ``CalibratedNetwork``; `segmentSeed` keys the auctions' segments (the shard's seed).
  func wrapping(_ registry: AdapterRegistry, segmentSeed: UInt64) -> AdapterRegistry {
    let networks = Set(behaviours.keys.map(\.network))
    let market = self
    return registry.wrappingAdapters { adapter, environment in
      guard networks.contains(adapter.info.id), let simulated = adapter as? any SimulatedNetwork,
        let hostRegistration = BuiltInNetworks.marketHost(for: adapter.info.id),
        let host = hostRegistration.makeAdapter(
          AdapterEnvironment(
            scheduler: environment.scheduler, random: environment.random.derived("market-host"))
        ) as? any SimulatedNetwork
      else { return adapter }
      return CalibratedNetwork(
        builtIn: simulated, host: host, market: market, segmentSeed: segmentSeed, environment: environment)
    }
  }
}

extension BuiltInNetworks {
  /// What `network`'s simulated SDK does by default, as a market line item priced around `ecpm`:
  /// the figure `calibrate` uses where no source tells it.
  static func builtInEstimate(for network: NetworkID, ecpm: Double) -> MarketFile.Estimate {
    func latency(_ median: Duration, _ sigma: Double) -> MarketFile.Latency {
      MarketFile.Latency(medianMs: median.seconds * 1000, sigma: sigma, observations: nil, source: "default")
    }
    func estimate(
      fill: Double, noAnswer: Double, sigma: Double, load: MarketFile.Latency, bid: MarketFile.Latency
    )
      -> MarketFile.Estimate
    {
      MarketFile.Estimate(
        fill: MarketFile.Proportion(value: fill, successes: nil, trials: nil, source: "default"),
        noAnswer: MarketFile.Proportion(value: noAnswer, successes: nil, trials: nil, source: "default"),
        // The simulated networks answer every bid request, within their bid latency.
        bidNoAnswer: MarketFile.Proportion(value: 0, successes: nil, trials: nil, source: "default"),
        price: MarketFile.Price(
          median: ecpm, sigma: sigma, observations: nil, sigmaFromData: false, source: "default"),
        loadLatency: load, bidLatency: bid)
    }
    switch network {
    case EmpowerNetwork.id:
      let profile = EmpowerBehaviorProfile.default
      return estimate(
        fill: (1 - profile.networkErrorRate) * profile.fillRate, noAnswer: 0, sigma: profile.priceSigma,
        load: latency(profile.loadLatencyMedian, profile.loadLatencySigma),
        bid: latency(profile.bidLatencyMedian, profile.bidLatencySigma))
    case MaxNetwork.id:
      let profile = MaxBehaviorProfile.default
      return estimate(
        fill: profile.fillRate, noAnswer: 0, sigma: profile.priceSigma,
        load: latency(profile.loadLatencyMedian, profile.loadLatencySigma),
        bid: latency(profile.bidLatencyMedian, profile.bidLatencySigma))
    case GoogleNetwork.id:
      let profile = GoogleBehaviorProfile.default
      // A timeout answers after 10 s, past every line item's timeout: a request never answered.
      let answered = 1 - profile.timeoutRate
      return estimate(
        fill: (1 - profile.timeoutRate - profile.networkErrorRate) * profile.fillRate / answered,
        noAnswer: profile.timeoutRate, sigma: profile.priceSigma,
        load: latency(profile.loadLatencyMedian, profile.loadLatencySigma),
        bid: latency(profile.bidLatencyMedian, profile.bidLatencySigma))
    default:
      return estimate(
        fill: 0.8, noAnswer: 0, sigma: 0.25, load: latency(.seconds(1), 0.5),
        bid: latency(.milliseconds(300), 0.4))
    }
  }
}
