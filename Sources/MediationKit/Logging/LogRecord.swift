extension Mediator {
  /// One logged event (``MediatorOptions/Logging``): its level, its `os.Logger` category and a
  /// one-line message, with the event itself for a handler that wants the structured form.
  public struct LogRecord: Sendable, Equatable {
    /// The `os.Logger` subsystem every record is logged under.
    public static let subsystem = "com.mediationkit"

    /// How much a record matters, from ``debug`` (the most frequent) to ``error``.
    public enum Level: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
      /// Frequent lifecycle steps: a load starting, a click, an impression's revenue.
      case debug
      /// The lifecycle an app follows: an ad ready, a load failed, a show and how it ended, an
      /// ad expired or withdrawn, a configuration applied.
      case info
      /// A network misbehaving, corrected by the core: a duplicate or late reward, a signal after
      /// the show ended, a load after its timeout, a show the core had to end, malformed consent.
      case notice
      /// A show that failed, or a reward ledger that could not read or write.
      case error

      public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

      /// `debug`, `info`, `notice` or `error`.
      public var description: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .notice: "notice"
        case .error: "error"
        }
      }
    }

    /// How much it matters.
    public var level: Level
    /// `zone.<zone id>` for a zone's lifecycle, or `network.<network id>` for a network's
    /// misbehaviour (its diagnostics and failed shows); the message names both.
    public var category: String
    /// One line: the zone, the event, the network and the details (the auction's line items,
    /// the error, the diagnostic's message).
    public var message: String
    /// The event logged, with its zone, network and time.
    public var event: Mediator.ZoneEvent

    /// Creates the record of `event`, with the level, category and message the mediator gives it.
    public init(_ event: Mediator.ZoneEvent) {
      self.level = Self.level(of: event.event)
      self.category = Self.category(of: event)
      self.message = InspectionText.line(event)
      self.event = event
    }

    /// The level of `event`.
    static func level(of event: RewardedAdEvent) -> Level {
      switch event {
      case .loading, .clicked, .revenuePaid: return .debug
      case .ready, .failed, .shown, .rewarded, .closed, .skipped, .expired: return .info
      case .showFailed: return .error
      case .diagnostic(let note):
        switch note.kind {
        case .ledgerWriteFailed, .ledgerReadFailed: return .error
        case .adWithdrawn, .configurationApplied: return .info
        case .duplicateReward, .lateReward, .signalAfterTerminal, .impliedDisplay, .duplicateSignal,
          .outOfOrderSignal, .endedByCore, .lateLoad, .missingRevenue, .malformedConsent:
          return .notice
        }
      }
    }

    /// `network.<id>` for what a network did (a failed show, a diagnostic about its callbacks or
    /// its ad), `zone.<id>` for the rest.
    static func category(of event: Mediator.ZoneEvent) -> String {
      guard let network = event.network, isAboutTheNetwork(event.event) else { return "zone.\(event.zoneID)" }
      return "network.\(network)"
    }

    private static func isAboutTheNetwork(_ event: RewardedAdEvent) -> Bool {
      switch event {
      case .showFailed: return true
      case .diagnostic(let note):
        switch note.kind {
        case .ledgerWriteFailed, .ledgerReadFailed, .configurationApplied, .malformedConsent: return false
        default: return true
        }
      default: return false
      }
    }
  }
}
