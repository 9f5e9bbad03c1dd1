extension Mediator {
  /// What the flight recorder holds now, for every zone that records
  /// (``MediatorOptions/flightRecorder``): a file to attach to a support ticket or upload, and to
  /// replay with `mediate replay`. Safe from any thread: each zone's recording is taken in one
  /// lock round; the file is encoded when ``FlightRecording/jsonLines`` is first read (do that off
  /// the main thread for a large recording). Without recording, the file holds no zone.
  public func exportRecording() -> FlightRecording {
    FlightRecording(zones: zoneControllers.compactMap(\.recording), context: context)
  }
}

extension Mediator {
  /// Switches every zone's recorder on or off for `config` and the user now set: on when the
  /// options say so or the configuration's ``FlightRecorderRule`` selects the user.
  func updateRecording(for config: MediationConfig, zones: [ZoneController]) {
    let options = context.options.flightRecorder
    let selected =
      options.isEnabled || config.flightRecorder?.selects(context.userID, hash: options.userIDHash) == true
    for zone in zones { zone.record(selected ? options : nil) }
  }
}

extension RewardedAd {
  /// What the flight recorder holds now for this ad's zone; see ``Mediator/exportRecording()``.
  public func exportRecording() -> FlightRecording {
    FlightRecording(zones: controller.recording.map { [$0] } ?? [], context: controller.context)
  }
}

extension FlightRecording {
  /// A recording of `zones`, with the header `context` gives: the engine, its timings and seed,
  /// the networks registered and the privacy flags now.
  init(zones: [FlightRecording.Zone], context: EngineContext) {
    let options = context.options
    self.init(
      header: Header(
        format: FlightRecording.format, version: FlightRecording.version,
        engine: "MediationKit (adapter API \(AdapterCompatibility.coreAPIVersion))",
        displayTimeoutNS: options.displayTimeout.nanoseconds,
        maxShowDurationNS: options.maxShowDuration.nanoseconds,
        lateSignalWindowNS: options.lateSignalWindow.nanoseconds, seed: options.seed,
        networks: context.adapterInfos.values.sorted { $0.id < $1.id }.map(RecordedNetwork.init),
        privacy: RecordedPrivacy(context.privacy, keepingStrings: options.flightRecorder.keepsConsentStrings),
        maxSessions: options.flightRecorder.maxSessions, maxInputs: options.flightRecorder.maxInputs),
      zones: zones)
  }
}
