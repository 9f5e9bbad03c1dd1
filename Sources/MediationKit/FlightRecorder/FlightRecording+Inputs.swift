extension FlightRecording {
  /// One recorded input with its plain fields, for a tool that draws a session rather than
  /// prints it (`mediate inspect --report`): which request an answer is to, what it answered,
  /// which signal or timer it was. ``timeline`` gives the same inputs in words.
  package struct InputRecord: Sendable, Equatable {
    package var zoneID: String
    package var session: Int
    package var time: Duration
    /// The input's kind (`load`, `sent`, `loaded`, `signal`, `timer_fired`, …).
    package var kind: String
    /// `load`: whether the app asked for it (else the zone reloads on its own).
    package var requested: Bool?
    /// The load the input belongs to; a signal's and a show's: the load that made the ad.
    package var load: Int?
    /// The network, placement and kind (`bid` or `load`) of the request the input is about.
    package var network: String?
    package var placementID: String?
    package var requestKind: String?
    /// A bid's price, or a loaded ad's eCPM when the network gave one.
    package var price: Double?
    /// The error's kind of a failed answer, a refused bid or a failed show (`no_fill`, …).
    package var errorKind: String?
    /// Why a request was not sent: its network did not start.
    package var reason: String?
    /// `signal`: which one (`displayed`, `clicked`, `revenue_paid`, `rewarded`, `dismissed`,
    /// `show_failed`).
    package var signal: String?
    /// `timer_armed`, `timer_fired`: which timer (`load`, `auction`, `display`, `grace`, …).
    package var timer: String?
    /// `withdrawn`: why the network withdrew its ad.
    package var withdrawal: String?
    package var published: [RecordedEvent]
  }

  /// Every input of the recording, zone by zone and session by session, in order.
  package var inputRecords: [InputRecord] {
    zones.flatMap { zone in
      zone.sessions.flatMap { session in
        session.steps.map { step in
          let input = step.input
          return InputRecord(
            zoneID: zone.id, session: session.number, time: step.time, kind: input.type.rawValue,
            requested: input.requested, load: input.load, network: input.network,
            placementID: input.placementID, requestKind: input.requestKind,
            price: input.bid?.price ?? input.ad?.ecpm,
            errorKind: (input.error ?? input.signal?.error)?.kind.rawValue, reason: input.reason,
            signal: input.signal?.type.rawValue, timer: input.timer?.kind,
            withdrawal: input.withdrawal?.kind.rawValue, published: step.published)
        }
      }
    }
  }
}
