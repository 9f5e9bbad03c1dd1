import MediationKit

/// What a simulation records besides its figures (`mediate --requests N --events FILE`,
/// `--export-report max|admob FILE`).
struct SimulationRecording: Sendable, Equatable {
  /// Every zone event, as MediationKit's event log (``ZoneEventLog``).
  var eventLog = false
  /// The counts of the vendors' reports (``ReportAggregates``).
  var reports = false

  var isOn: Bool { eventLog || reports }
}

/// The calendar of a simulation's virtual time: day 0 is ``start``, a day is 24 virtual hours of
/// a shard's clock, so every shard's first sessions fall on the first day.
enum SimulatedCalendar {
  static let start = (year: 2025, month: 1, day: 1)

  static func day(of time: Duration) -> Int { Int(max(0, time.milliseconds) / 86_400_000) }

  static func date(ofDay day: Int) -> String { ReportDay.adding(day, to: start) }
}

/// Records one shard's event log lines and report counts as its events arrive. Runs on the
/// shard's scheduler only.
///
/// Each event is attributed to its auction's segment (a market's country, say): `ready` and
/// `shown` carry their auction id; `loading` and `failed` belong to the auction the mediator last
/// started; the events of a show (`revenue_paid`, `rewarded`, `closed`, …) to the last `shown`.
final class ShardRecorder: Sendable {
  private struct State {
    var log = ""
    var reports = ReportAggregates()
    var loadAuction: UInt64 = 0
    var shownAuction: UInt64 = 0
  }

  private let recording: SimulationRecording
  private let market: CalibratedMarket?
  private let segmentSeed: UInt64
  private let latestAuctionID: @Sendable () -> UInt64
  private let state = Locked(State())

  init(
    _ recording: SimulationRecording, market: CalibratedMarket?, segmentSeed: UInt64,
    latestAuctionID: @escaping @Sendable () -> UInt64
  ) {
    self.recording = recording
    self.market = market
    self.segmentSeed = segmentSeed
    self.latestAuctionID = latestAuctionID
  }

  /// The event log's text and the report counts so far.
  var output: (log: String?, reports: ReportAggregates) {
    state.withLock { (recording.eventLog ? $0.log : nil, $0.reports) }
  }

  func record(_ event: Mediator.ZoneEvent) {
    let latest = latestAuctionID()
    state.withLock { state in
      let auction: UInt64
      switch event.event {
      case .loading:
        state.loadAuction = latest
        auction = latest
      case .ready(let info):
        auction = info.auctionID
      case .shown(let info):
        state.shownAuction = info.auctionID
        auction = info.auctionID
      case .failed:
        auction = state.loadAuction
      default:
        auction = state.shownAuction
      }
      let segment = market?.segmentName(ofAuction: auction, seed: segmentSeed)
      let day = SimulatedCalendar.day(of: event.time)
      if recording.eventLog {
        let dimensions = segment.map { [market?.dimension ?? "segment": $0] } ?? [:]
        state.log += ZoneEventLog.line(
          event, date: SimulatedCalendar.date(ofDay: day), dimensions: dimensions)
        state.log += "\n"
      }
      guard recording.reports else { return }
      switch event.event {
      case .ready(let info): state.reports.record(info.responses, day: day, segment: segment)
      case .failed(let error): state.reports.record(error.waterfall, day: day, segment: segment)
      case .revenuePaid(let revenue):
        state.reports.recordImpression(
          network: revenue.network, placementID: revenue.placementID, usd: revenue.usd, day: day,
          segment: segment)
      default: break
      }
    }
  }
}
