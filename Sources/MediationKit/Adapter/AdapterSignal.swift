/// What an adapter reports while its ad is on screen: the whole vocabulary between an adapter
/// and the core.
///
/// Adapters translate their SDK's callbacks into these signals and send them as they happen,
/// duplicates and odd orders included; the core's show state machine turns them into app
/// events and enforces the reward contract. An adapter never filters or reorders.
public enum AdapterSignal: Sendable, Equatable {
  /// The ad is on screen (an impression).
  case displayed
  /// The user tapped the ad.
  case clicked
  /// The network reported what this impression earned. The first figure before the impression's
  /// revenue is published replaces the core's estimate (see
  /// ``AdapterInfo/Capability/impressionRevenue``); later ones are diagnostics.
  case revenuePaid(AdapterSignal.ImpressionRevenue)
  /// The network says the user earned the reward, with the network's own payload if it has one.
  case rewarded(AdapterSignal.NetworkReward?)
  /// The ad left the screen.
  case dismissed
  /// The ad could not be shown.
  case showFailed(AdapterError)
}

extension AdapterSignal {
  /// The reward payload as a network reports it (Empower's type/amount, MAX's `MAReward`,
  /// AdMob's `GADAdReward`).
  public struct NetworkReward: Sendable, Equatable, Codable {
    /// The reward's currency or item name, e.g. "coins".
    public var type: String
    /// How many units.
    public var amount: Double

    /// Creates a reward of `amount` units of `type`.
    public init(type: String, amount: Double) {
      self.type = type
      self.amount = amount
    }
  }
}

extension AdapterSignal {
  /// Revenue for one impression, as the network reported it.
  public struct ImpressionRevenue: Sendable, Equatable {
    /// Revenue in US dollars.
    public var usd: Double
    /// How exact the figure is.
    public var precision: AdapterSignal.RevenuePrecision

    /// Creates a revenue figure of `usd` US dollars, as exact as `precision` says.
    public init(usd: Double, precision: AdapterSignal.RevenuePrecision) {
      self.usd = usd
      self.precision = precision
    }
  }
}

extension AdapterSignal {
  /// How exact an impression's revenue is (like MAX's `revenuePrecision` and AdMob's
  /// `GADAdValuePrecision`).
  public enum RevenuePrecision: String, Sendable, Equatable, Codable {
    /// The exact amount paid, e.g. a bid price.
    case exact
    /// An estimate from historical eCPM.
    case estimated
    /// Set by the publisher (a line item's configured eCPM).
    case publisherDefined = "publisher_defined"
  }
}

extension AdapterSignal {
  /// Where a loaded ad tells the core what happens to it: one sink per loaded ad, the only one an
  /// adapter needs. The load request carries it (``AdapterLoadRequest/sink``) and the ad's show is
  /// given the same one (``AdapterAd/show(_:from:signals:)``), so an adapter may keep either.
  /// Safe to call from any thread, any number of times.
  ///
  /// - **Before the show**, ``withdraw(_:)`` says the SDK no longer has the ad (availability lost,
  ///   expired or invalidated on the SDK's side): the core stops reporting it ready at once,
  ///   publishes `expired` (after an `ad_withdrawn` diagnostic with the reason), discards it and,
  ///   in a zone with auto-reload, loads again. Signals sent before the show are ignored.
  /// - **From the show on**, ``send(_:)`` reports the show's ``AdapterSignal``s. They belong to this
  ///   ad's show and no other, even after the show ended (the core turns late signals into
  ///   diagnostics for a while, and ignores them after). A withdrawal after the show started
  ///   changes nothing about the show: it is reported as a diagnostic.
  ///
  /// An adapter whose SDK has one process-wide listener keeps the sinks of its recent ads and
  /// sends each callback to the ad it belongs to (``GlobalListenerRouter``), never to "the latest
  /// show".
  public struct Sink: Sendable {
    private let deliver: @Sendable (AdapterSignal) -> Void
    private let withdrawal: (@Sendable (AdapterWithdrawal) -> Void)?
    /// The ad this sink belongs to, and so its show (an ad is shown at most once).
    public let show: AdapterSignal.Sink.ShowID

    /// Creates a sink that hands each signal to `deliver` and ignores withdrawals, for an ad with
    /// no identity of its own (a test's, or a sink an adapter makes).
    public init(_ deliver: @escaping @Sendable (AdapterSignal) -> Void) {
      self.init(show: AdapterSignal.Sink.ShowID(zoneID: "", number: 0), deliver)
    }

    /// Creates the sink of ad `show`, which hands each signal to `deliver` and ignores
    /// withdrawals.
    public init(show: AdapterSignal.Sink.ShowID, _ deliver: @escaping @Sendable (AdapterSignal) -> Void) {
      self.show = show
      self.deliver = deliver
      self.withdrawal = nil
    }

    /// Creates the sink of ad `show`, which hands each signal to `signals` and each withdrawal to
    /// `withdrawals`.
    public init(
      show: AdapterSignal.Sink.ShowID, signals: @escaping @Sendable (AdapterSignal) -> Void,
      withdrawals: @escaping @Sendable (AdapterWithdrawal) -> Void
    ) {
      self.show = show
      self.deliver = signals
      self.withdrawal = withdrawals
    }

    /// A sink that ignores everything: the default of a request built outside the core (a bid
    /// request, a test).
    public static var ignored: AdapterSignal.Sink { AdapterSignal.Sink { _ in } }

    /// Reports `signal` of the ad's show to the core.
    public func send(_ signal: AdapterSignal) { deliver(signal) }

    /// Tells the core that the SDK no longer has the ad, and why.
    public func withdraw(_ reason: AdapterWithdrawal) { withdrawal?(reason) }

    /// This sink with its withdrawals handed to `withdrawals` instead.
    package func replacingWithdrawals(_ withdrawals: @escaping @Sendable (AdapterWithdrawal) -> Void) -> Self
    {
      AdapterSignal.Sink(show: show, signals: deliver, withdrawals: withdrawals)
    }
  }
}

extension AdapterSignal.Sink {
  /// Which ad a sink belongs to, and so which show: the zone and the ad's number in it (the load
  /// that made it: 1, 2, … in the order the zone's loads started). Unique within one ``Mediator``;
  /// for logs, and for adapters that route SDK callbacks to ads.
  public struct ShowID: Hashable, Sendable, CustomStringConvertible {
    /// The MediationKit zone shown.
    public var zoneID: String
    /// The zone's ad number, counting from 1 (0: a sink made outside the core).
    public var number: Int

    /// Names show `number` of zone `zoneID`.
    public init(zoneID: String, number: Int) {
      self.zoneID = zoneID
      self.number = number
    }

    public var description: String { "\(zoneID)#\(number)" }
  }
}
