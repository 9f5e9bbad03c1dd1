import MediationKit

/// What one line item's response in an auction (``AdInfo/NetworkResponse``) says about its
/// network: one rule, used both to write the vendors' reports from a simulation and to calibrate
/// from MediationKit's event log, so the two count alike.
///
/// - A request answered with an ad or a bid is a **fill**: `loaded`; `bid`, `outbid` and
///   `below_floor` (a bid, whatever the auction made of it); and `failed` or `timed_out` of a load
///   that carried a won bid (the network did bid).
/// - A request answered without one is **no fill**: `failed` (a waterfall load), `no_bid`.
/// - A request not answered in time is **no answer**: `timed_out` without a bid.
/// - Anything else was **not asked**: `skipped`, `not_started`, `disabled`, `not_attempted`.
///
/// An attempt (MAX's `attempts`, AdMob's `AD_REQUESTS`) is any of the first three; a response
/// (`responses`, `MATCHED_REQUESTS`) is a fill.
enum AttemptOutcome: Equatable {
  case fill, noFill, noAnswer, notAsked

  init(_ state: AdInfo.NetworkResponse.State, bid: Double?) {
    switch state {
    case .loaded, .bid, .outbid, .belowFloor: self = .fill
    case .failed: self = bid == nil ? .noFill : .fill
    case .timedOut: self = bid == nil ? .noAnswer : .fill
    case .noBid: self = .noFill
    case .skipped, .notStarted, .disabled, .notAttempted: self = .notAsked
    }
  }

  var isAttempt: Bool { self != .notAsked }

  /// Which request a response's latency timed, if it timed one the network answered: a waterfall
  /// load (`loaded` or `failed` without a bid) or a bid request (`bid`, `outbid`, `no_bid`). A won
  /// bid's load times the ad's delivery, not the network's answer, and a `below_floor` bid
  /// carries no latency.
  enum Timed: Equatable { case load, bid }

  /// Which request a response answered, if the line item was asked: a bid request when it
  /// carries a bid, is a bid's state, or timed out waiting for a bid (the engine's message says
  /// "no bid within the auction timeout"); otherwise a waterfall load.
  static func request(_ state: AdInfo.NetworkResponse.State, bid: Double?, error: String?) -> Timed? {
    guard AttemptOutcome(state, bid: bid).isAttempt else { return nil }
    switch state {
    case .bid, .outbid, .belowFloor, .noBid: return .bid
    case .timedOut where bid == nil: return error?.hasPrefix("no bid") == true ? .bid : .load
    default: return bid == nil ? .load : .bid
    }
  }

  static func timed(_ state: AdInfo.NetworkResponse.State, bid: Double?) -> Timed? {
    switch state {
    case .loaded, .failed: bid == nil ? .load : nil
    case .bid, .outbid, .noBid: .bid
    default: nil
    }
  }
}
