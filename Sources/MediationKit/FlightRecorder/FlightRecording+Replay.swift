extension FlightRecording {
  /// What replaying a recording on the current engine gave: the events it published, the ones the
  /// recording says were published, and where they first differ.
  package struct Replay: Sendable {
    /// One published event of one session of one zone.
    package struct Event: Sendable, Equatable {
      package var zoneID: String
      package var session: Int
      package var time: Duration
      package var event: RecordedEvent
    }

    package var recorded: [Event] = []
    package var replayed: [Event] = []
    /// Where the replay went its own way: answers the recording lacks, answers nobody asked for.
    package var notes: [String] = []
    /// Every input fed to the replayed zones and what it published, for the timeline.
    package var timeline: [TimelineEntry] = []

    /// Whether the replay published the recorded events, in order, at the recorded times.
    package var isIdentical: Bool { firstDifference == nil }

    /// The first event that differs, as `event 17: recorded rewarded, replayed skipped`; `nil`
    /// when the two are identical.
    package var firstDifference: String? {
      for index in 0..<max(recorded.count, replayed.count) {
        let number = index + 1
        guard index < recorded.count else {
          return "event \(number): recorded nothing more, replayed \(replayed[index].event)"
        }
        guard index < replayed.count else {
          return "event \(number): recorded \(recorded[index].event), replayed nothing more"
        }
        let (was, now) = (recorded[index], replayed[index])
        if was.event != now.event || was.zoneID != now.zoneID {
          return "event \(number): recorded \(was.event), replayed \(now.event)"
        }
        if was.time != now.time {
          return "event \(number) (\(was.event)): recorded at \(was.time), replayed at \(now.time)"
        }
      }
      return nil
    }
  }

  /// Replays every session of every zone on the current engine, each from its own checkpoint
  /// (``SessionReplay``).
  package func replay() -> Replay {
    var replay = Replay()
    for zone in zones {
      for session in zone.sessions {
        for step in session.steps {
          for event in step.published {
            replay.recorded.append(
              Replay.Event(zoneID: zone.id, session: session.number, time: step.time, event: event))
          }
        }
        var run = SessionReplay(session: session, header: header)
        run.run()
        for step in run.replayed {
          replay.timeline.append(
            TimelineEntry(
              zoneID: zone.id, session: session.number, time: step.time, input: step.input.type.rawValue,
              summary: step.input.summary, published: step.published))
          for event in step.published {
            replay.replayed.append(
              Replay.Event(zoneID: zone.id, session: session.number, time: step.time, event: event))
          }
        }
        replay.notes += run.notes.map { "zone '\(zone.id)' session \(session.number): \($0)" }
      }
    }
    return replay
  }
}

extension FlightRecording {
  /// One input of a timeline, in words, with the events it published.
  package struct TimelineEntry: Sendable, Equatable {
    package var zoneID: String
    package var session: Int
    package var time: Duration
    /// The input's kind (`loaded`, `signal`, `timer_fired`, …).
    package var input: String
    /// The input in a few words (`max/b3f1 loaded at eCPM 9.1`).
    package var summary: String
    package var published: [RecordedEvent]
  }

  /// One session, in a few numbers.
  package struct SessionSummary: Sendable, Equatable {
    package var zoneID: String
    package var number: Int
    package var keptForAnomaly: Bool
    package var anomalies: [String]
    package var inputs: Int
    package var start: Duration?
    package var end: Duration?
    /// The zone's queue when the session began: each ready ad's network, placement and eCPM.
    package var queuedAtStart: [String]
    package var configurationVersion: String?
    package var experimentArms: [String: String]
  }

  /// What the recording holds, input by input.
  package var timeline: [TimelineEntry] {
    zones.flatMap { zone in
      zone.sessions.flatMap { session in
        session.steps.map {
          TimelineEntry(
            zoneID: zone.id, session: session.number, time: $0.time, input: $0.input.type.rawValue,
            summary: $0.input.summary, published: $0.published)
        }
      }
    }
  }

  package var sessionSummaries: [SessionSummary] {
    zones.flatMap { zone in
      zone.sessions.map { session in
        SessionSummary(
          zoneID: zone.id, number: session.number, keptForAnomaly: session.keptForAnomaly,
          anomalies: session.anomalies, inputs: session.steps.count, start: session.steps.first?.time,
          end: session.steps.last?.time,
          queuedAtStart: session.checkpoint.queue.map {
            "\($0.info.network)/\($0.info.placementID) eCPM \($0.info.ecpm)"
          },
          configurationVersion: session.checkpoint.setup.configurationVersion,
          experimentArms: session.checkpoint.setup.experimentArms)
      }
    }
  }

  /// The engine that wrote the recording.
  package var engine: String { header.engine }

  /// The networks registered at export: id, adapter version, SDK version, capabilities.
  package var networks: [(id: String, adapterVersion: String, sdkVersion: String, capabilities: [String])] {
    header.networks.map { ($0.id, $0.adapterVersion, $0.sdkVersion, $0.capabilities.map(\.rawValue)) }
  }

  /// The privacy flags at export, by name (`nil` values left out).
  package var privacyFlags: [String: String] {
    let privacy = header.privacy
    var flags: [String: String] = ["is_child_directed": "\(privacy.isChildDirected)"]
    flags["has_user_consent"] = privacy.hasUserConsent.map { "\($0)" }
    flags["do_not_sell"] = privacy.doNotSell.map { "\($0)" }
    flags["gdpr_applies"] = privacy.gdprApplies.map { "\($0)" }
    flags["tc_string"] = privacy.tcStringPresent ? "present" : "absent"
    flags["gpp_string"] = privacy.gppStringPresent ? "present" : "absent"
    flags["us_privacy_string"] = privacy.usPrivacyStringPresent ? "present" : "absent"
    return flags
  }
}
