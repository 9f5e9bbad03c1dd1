/// An event a zone published, as a recording keeps it to compare a replay with: the event's name,
/// its network, and the detail that tells two events of one name apart (a price, a reward, an
/// error code, a diagnostic's kind). Times come from the input that published it. A reward's
/// transaction id is left out: it is drawn anew on every run.
public struct RecordedEvent: Codable, Sendable, Equatable, CustomStringConvertible {
  /// The event's wire name (``RewardedAdEvent/name``).
  public var event: String
  public var network: String?
  /// What the event carried, in a few words (`ecpm 12.5`, `100 coins`, `no_fill`,
  /// `late_reward`); `nil` for events that carry nothing.
  public var detail: String?

  public init(event: String, network: String?, detail: String?) {
    self.event = event
    self.network = network
    self.detail = detail
  }

  public var description: String {
    [event, network, detail].compactMap { $0 }.joined(separator: " ")
  }
}

extension RecordedEvent {
  /// The events `effects` publish, in order.
  static func published(by effects: [ZoneEffect]) -> [RecordedEvent] {
    effects.compactMap { effect in
      switch effect {
      case .publish(let event, let network, _):
        return RecordedEvent(event: event.name, network: network?.rawValue, detail: detail(of: event))
      case .publishShow(let event, let ready, _):
        let (name, detail) = Self.describe(event)
        return RecordedEvent(event: name, network: ready.info.network.rawValue, detail: detail)
      case .recordReward(_, let ready, let zone):
        return RecordedEvent(
          event: "rewarded", network: ready.info.network.rawValue,
          detail: "\(zone.reward.amount) \(zone.reward.type)")
      case .failRemoved:
        return RecordedEvent(event: "failed", network: nil, detail: MediationError.Code.unknownZone.rawValue)
      default:
        return nil
      }
    }
  }

  private static func detail(of event: RewardedAdEvent) -> String? {
    switch event {
    case .ready(let info), .shown(let info): "ecpm \(info.ecpm)"
    case .failed(let error), .showFailed(let error): error.code.rawValue
    case .diagnostic(let note): note.kind.rawValue
    default: nil
    }
  }

  private static func describe(_ event: ShowStateMachine.Event) -> (String, String?) {
    switch event {
    case .shown: ("shown", nil)
    case .clicked: ("clicked", nil)
    case .revenuePaid(let revenue): ("revenue_paid", "\(revenue.usd) \(revenue.precision.rawValue)")
    case .rewarded: ("rewarded", nil)
    case .closed: ("closed", nil)
    case .skipped: ("skipped", nil)
    case .showFailed(let error): ("show_failed", error.code.rawValue)
    case .diagnostic(let note): ("diagnostic", note.kind.rawValue)
    }
  }

  /// Why a session with this event is worth keeping after it leaves the recorder's ring, if it is:
  /// a show that ended without a reward, a reward past the grace window, a show that failed, a
  /// load every network timed out on.
  static func anomaly(in effect: ZoneEffect) -> String? {
    switch effect {
    case .publishShow(.skipped, _, _): "a show ended without a reward"
    case .publishShow(.showFailed(let error), _, _): "a show failed (\(error.code.rawValue))"
    case .publishShow(.diagnostic(let note), _, _) where note.kind == .lateReward:
      "a reward came after the grace window"
    case .publish(.failed(let error), _, _) where timedOutEverywhere(error.waterfall):
      "a load timed out on every network"
    default: nil
    }
  }

  /// Whether every network a load asked timed out (those skipped or never reached aside).
  private static func timedOutEverywhere(_ responses: [AdInfo.NetworkResponse]) -> Bool {
    let asked = responses.filter { [.loaded, .failed, .timedOut, .noBid, .bid].contains($0.state) }
    return !asked.isEmpty && asked.allSatisfy { $0.state == .timedOut }
  }
}
