import MediationKit
import MediationKitSimulation

/// A simulated network whose line items in a ``CalibratedMarket`` fill, price and answer as the
/// market says; its other line items behave as the network's built-in simulation.
///
/// It drives two instances of the network's simulated SDK. Line items the market does not list go
/// to `builtIn`, the adapter the registry made — the same draws as without a market. Line items it
/// lists go to `host`, the same SDK with a profile that takes every market draw from the request
/// (``BuiltInNetworks/marketHost(for:)``: it always fills, at once, at exactly the request's eCPM):
/// this adapter draws the request's fate from the market, waits its drawn latency on the
/// scheduler, then either answers "no fill" itself or asks `host` to load (or bid) at the
/// reference price 1 and scales every amount the host reports by the drawn price
/// (``MarketPrice``) — an SDK may keep a placement's first eCPM, as Empower's dashboard does. So
/// the ad that fills is a real simulated ad — its show, reward, revenue and callbacks come from the
/// SDK, privacy factors included — while fill, price and latency come from the market.
///
/// The draws for a request come from a stream keyed by the adapter's seed, the placement and the
/// auction id, in a fixed order, so ``quote(_:)`` predicts a load exactly, as the oracle needs. A
/// load of a won bid goes straight to the instance that bid.
final class CalibratedNetwork: SimulatedNetwork {
  private let builtIn: any SimulatedNetwork
  private let host: any SimulatedNetwork
  private let market: CalibratedMarket
  private let segmentSeed: UInt64
  private let scheduler: any Scheduler
  private let random: SeededRandom

  init(
    builtIn: any SimulatedNetwork, host: any SimulatedNetwork, market: CalibratedMarket, segmentSeed: UInt64,
    environment: AdapterEnvironment
  ) {
    self.builtIn = builtIn
    self.host = host
    self.market = market
    self.segmentSeed = segmentSeed
    self.scheduler = environment.scheduler
    self.random = environment.random.derived("calibrated-market")
  }

  var info: AdapterInfo { builtIn.info }

  /// One request's fate in the market.
  struct Draw: Equatable {
    var answers: Bool
    var answersBid: Bool
    var fills: Bool
    var price: Double
    var loadLatency: Duration
    var bidLatency: Duration
  }

  /// The behaviour of `request`'s line item in its auction's segment; `nil` when the market does
  /// not list it.
  func behaviour(for request: AdapterLoadRequest) -> LineItemBehaviour? {
    guard
      let segments = market.behaviours[
        CalibratedMarket.Key(network: info.id, placementID: request.placementID)]
    else { return nil }
    return segments[market.segment(ofAuction: request.auctionID, seed: segmentSeed)]
  }

  /// The draws for `request`: always the same six, in the same order.
  func draw(_ request: AdapterLoadRequest, _ behaviour: LineItemBehaviour) -> Draw {
    var stream = SeededRandom.keyed(base: random.keyBase(request.placementID), index: request.auctionID)
    let answers = !stream.chance(behaviour.noAnswer)
    let fills = stream.chance(behaviour.fill)
    let price = stream.logNormal(median: behaviour.price.median, sigma: behaviour.price.sigma)
    let load = stream.logNormal(median: behaviour.loadLatency.median, sigma: behaviour.loadLatency.sigma)
    let bid = stream.logNormal(median: behaviour.bidLatency.median, sigma: behaviour.bidLatency.sigma)
    let answersBid = !stream.chance(behaviour.bidNoAnswer)
    return Draw(
      answers: answers, answersBid: answersBid, fills: fills, price: price,
      loadLatency: .milliseconds(roundingSeconds: load),
      bidLatency: .milliseconds(roundingSeconds: bid))
  }

  func start(
    _ request: AdapterStartRequest, completion: @escaping @Sendable (Result<Void, AdapterError>) -> Void
  ) {
    // Both instances start; the network is started when both are.
    let host = self.host
    builtIn.start(request) { result in
      host.start(request) { _ in completion(result) }
    }
  }

  func load(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void
  ) -> Cancellable {
    guard let behaviour = behaviour(for: request) else {
      return builtIn.load(request, completion: completion)
    }
    if let bid = request.bid {
      // A won bid: the host bid at the reference price; its token carries the drawn price.
      guard let (price, token) = MarketPrice.unwrap(bid.token) else {
        return host.load(request, completion: completion)
      }
      var redeemed = MarketPrice.reference(request, price: price)
      redeemed.bid = AdapterBid(price: bid.price / price, token: token)
      return host.load(redeemed) { completion(MarketPrice.scaled($0, by: price)) }
    }
    let draw = draw(request, behaviour)
    let priced = MarketPrice.reference(request, price: draw.price)
    let host = self.host
    return answer(draw.answers ? draw.loadLatency : nil) { pending in
      guard draw.fills else { return completion(.failure(Self.noFill)) }
      pending.started(host.load(priced) { completion(MarketPrice.scaled($0, by: draw.price)) })
    }
  }

  func bid(
    _ request: AdapterLoadRequest, completion: @escaping @Sendable (Result<AdapterBid, AdapterError>) -> Void
  ) -> Cancellable {
    guard let behaviour = behaviour(for: request) else { return builtIn.bid(request, completion: completion) }
    let draw = draw(request, behaviour)
    let priced = MarketPrice.reference(request, price: draw.price)
    let host = self.host
    return answer(draw.answersBid ? draw.bidLatency : nil) { pending in
      guard draw.fills else { return completion(.failure(Self.noFill)) }
      pending.started(
        host.bid(priced) { result in
          completion(
            result.map {
              AdapterBid(price: $0.price * draw.price, token: MarketPrice.wrap($0.token, price: draw.price))
            })
        })
    }
  }

  func privacyDidChange(_ privacy: PrivacySettings) {
    builtIn.privacyDidChange(privacy)
    host.privacyDidChange(privacy)
  }

  /// What a load of `request` would do: no fill when the market's draw says no answer or no fill,
  /// else what `host` would do at the drawn price (its privacy factors applied).
  func quote(_ request: AdapterLoadRequest) -> SimulatedQuote {
    guard let behaviour = behaviour(for: request) else { return builtIn.quote(request) }
    let draw = draw(request, behaviour)
    guard draw.answers && draw.fills else { return SimulatedQuote(fills: false, ecpm: 0) }
    var quote = host.quote(MarketPrice.reference(request, price: draw.price))
    quote.ecpm *= draw.price
    return quote
  }

  static let noFill = AdapterError(.noFill, message: "no fill (calibrated market)")

  /// After `latency` runs `body` on the scheduler (nothing ever, for `nil`: a request the network
  /// never answers); the handle cancels the wait, or what `body` started.
  private func answer(_ latency: Duration?, _ body: @escaping @Sendable (PendingRequest) -> Void)
    -> Cancellable
  {
    guard let latency else { return .none }
    let pending = PendingRequest()
    pending.waiting(
      scheduler.schedule(after: latency) {
        if !pending.isCancelled { body(pending) }
      })
    return Cancellable { pending.cancel() }
  }
}

/// A request waiting for its drawn latency, then for the host SDK: cancelling it cancels whichever
/// is under way.
private final class PendingRequest: Sendable {
  private struct State {
    var timer: Cancellable?
    var inner: Cancellable?
    var cancelled = false
  }

  private let state = Locked(State())

  var isCancelled: Bool { state.withLock { $0.cancelled } }

  func waiting(_ timer: Cancellable) {
    let cancelled = state.withLock { state -> Bool in
      state.timer = timer
      return state.cancelled
    }
    if cancelled { timer.cancel() }
  }

  func started(_ inner: Cancellable) {
    let cancelled = state.withLock { state -> Bool in
      state.inner = inner
      return state.cancelled
    }
    if cancelled { inner.cancel() }
  }

  func cancel() {
    let (timer, inner) = state.withLock { state -> (Cancellable?, Cancellable?) in
      state.cancelled = true
      defer {
        state.timer = nil
        state.inner = nil
      }
      return (state.timer, state.inner)
    }
    timer?.cancel()
    inner?.cancel()
  }
}

/// How a ``CalibratedNetwork`` prices the host SDK's ads: the host is asked at the reference
/// price 1 (USD per thousand), and every amount it reports — a loaded ad's eCPM, a bid, an
/// impression's revenue — is multiplied by the market's drawn price. A bid's token carries its
/// drawn price, so the load of the won bid is scaled alike without the adapter keeping anything.
enum MarketPrice {
  static let tokenPrefix = "market:"

  /// `request` at the reference price, its ad's signals scaled by `price`.
  static func reference(_ request: AdapterLoadRequest, price: Double) -> AdapterLoadRequest {
    var request = request
    request.ecpm = 1
    request.sink = scaled(request.sink, by: price)
    return request
  }

  /// A load's result with its ad's eCPM and its show's revenue scaled by `price`.
  static func scaled(_ result: Result<AdapterLoadedAd, AdapterError>, by price: Double)
    -> Result<AdapterLoadedAd, AdapterError>
  {
    result.map { loaded in
      AdapterLoadedAd(
        ad: ScaledAd(loaded.ad, price: price), ecpm: loaded.ecpm.map { $0 * price }, lifetime: loaded.lifetime
      )
    }
  }

  /// `sink` with every `revenuePaid` multiplied by `factor`.
  static func scaled(_ sink: AdapterSignal.Sink, by factor: Double) -> AdapterSignal.Sink {
    AdapterSignal.Sink(
      show: sink.show,
      signals: { signal in
        if case .revenuePaid(var revenue) = signal {
          revenue.usd *= factor
          sink.send(.revenuePaid(revenue))
        } else {
          sink.send(signal)
        }
      },
      withdrawals: { sink.withdraw($0) })
  }

  /// The host's bid token with the drawn price in front: `market:<price bits in hex>:<token>`.
  static func wrap(_ token: String, price: Double) -> String {
    tokenPrefix + String(price.bitPattern, radix: 16) + ":" + token
  }

  /// The drawn price and the host's token of a token ``wrap(_:price:)`` made; `nil` for another.
  static func unwrap(_ token: String) -> (price: Double, token: String)? {
    guard token.hasPrefix(tokenPrefix) else { return nil }
    let rest = token.dropFirst(tokenPrefix.count)
    guard let colon = rest.firstIndex(of: ":"), let bits = UInt64(rest[..<colon], radix: 16) else {
      return nil
    }
    let price = Double(bitPattern: bits)
    guard price.isFinite, price > 0 else { return nil }
    return (price, String(rest[rest.index(after: colon)...]))
  }
}

/// A host SDK's ad whose show reports its revenue scaled by the market's price.
private final class ScaledAd: AdapterAd {
  private let ad: any AdapterAd
  private let price: Double

  init(_ ad: any AdapterAd, price: Double) {
    self.ad = ad
    self.price = price
  }

  func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {
    ad.show(request, from: presenter, signals: MarketPrice.scaled(signals, by: price))
  }

  func discard() { ad.discard() }
}
