extension GlobalListenerRouter {
  /// What the SDK's availability flag covers, and what its turning false means.
  public struct Availability: Sendable, Equatable {
    /// What one availability callback covers.
    public enum Scope: Sendable, Equatable {
      /// One flag per placement: a callback covers the placement it names.
      case perPlacement
      /// One flag for the app, whatever placement a callback names (ironSource/LevelPlay's
      /// classic rewarded video): `true` fills the loads waiting for any placement.
      case appWide
    }

    /// What the flag turning false does to ad objects already handed to the core.
    public enum Unavailable: Sendable, Equatable {
      /// Withdraw them (``AdapterWithdrawal/Kind/availabilityLost``): the flag's false means the
      /// SDK has no ad to show for them, as when one of several objects standing for one SDK ad
      /// was shown. Their zones reload and wait for the flag to turn true again.
      case withdraw
      /// Keep them ready: for an SDK whose false does not mean its ad is gone (it turns false
      /// while it fetches the next ad and shows the one it holds meanwhile). An SDK that fails
      /// the show when its flag is false must not use this: an ad left ready would fail at show
      /// time, which the reward contract forbids and `AdapterConformance`'s "ad withdrawn before
      /// show" scenario reports.
      case keep
    }

    /// What one availability callback covers.
    public var scope: Scope
    /// What the flag turning false does to ad objects already handed to the core.
    public var whenUnavailable: Unavailable

    /// - Parameters:
    ///   - scope: What one availability callback covers (default: its placement).
    ///   - whenUnavailable: What the flag turning false does to loaded ad objects (default: they
    ///     are withdrawn).
    public init(scope: Scope = .perPlacement, whenUnavailable: Unavailable = .withdraw) {
      self.scope = scope
      self.whenUnavailable = whenUnavailable
    }
  }
}
