import Foundation
import MediationKit
import MediationKitSimulation
import MediationKitTesting
import S2SDelivery

/// `mediate [run]`: one mediated rewarded-ad cycle on virtual time — load, show as soon as ready,
/// and print the waterfall and the event timeline.
///
/// When the zone's line items have server callbacks, the simulated networks' servers send them
/// for real (HTTP GET, 5 s per attempt, up to two retries) and the run waits for them — at most
/// ``RetryPolicy/longestDelivery`` and a second — before exiting, reporting each delivery on
/// standard error (with `--json`, as JSON lines on standard output after the timeline). The
/// simulator (`--requests N`) sends none.
struct RunCommand {
  let context: CommandContext

  init(_ context: CommandContext) { self.context = context }

  /// The cycle's settings, checked before anything runs.
  struct Settings {
    var zone: ZoneConfig
    var networks: [NetworkID]
    var seed: UInt64
    var source: String
    /// With `--requests`: how many sessions to simulate.
    var requests: Int?
    /// The privacy signals the networks receive.
    var privacy = PrivacySettings()
    /// With `--ledger`: the reward ledger file.
    var ledgerPath: String?
    /// With `--pause-before-ack`: wait for a line on standard input before acknowledging.
    var pauseBeforeAck = false
    /// `--user-id`: the app's user id, for server callbacks.
    var userID: String?
    /// With `--requests`: `--report FILE`, the HTML report to write.
    var reportPath: String?
    /// With `--requests`: `--market FILE`, what the simulated networks pay.
    var market: MarketPrices?
    /// With `--requests`: `--market FILE` (a market file), what the simulated networks do.
    var calibrated: CalibratedMarket?
    /// With `--requests`: `--events FILE`, where to write the event log.
    var eventsPath: String?
    /// With `--requests`: `--export-report max|admob FILE`, the vendor reports to write.
    var exports: [(format: ReportExport.Format, path: String)] = []
    /// With `--requests`: the queue model's depth (`--queue-depth N`, or the zone's `queueDepth`
    /// above 1); `nil` for the load-per-session model.
    var queueDepth: Int?
    /// `--fault NAME`: the test kit's fault every network of the cycle is wrapped in.
    var fault: Fault?
    /// `--record FILE`: where the flight recording goes, written once the run is over.
    var recordPath: String?
  }

  func validate() throws(CLIError) -> Settings {
    try context.noPositional(.run)
    let (config, source) = try context.loadConfig()
    let seed = try seed()
    let networks = try context.networks()
    let zoneID = context.arguments.value(.zone) ?? config.zones[0].id
    var zone: ZoneConfig
    do {
      zone = try config.zone(zoneID)
    } catch {
      throw .usage(error.message)
    }
    // The configuration's depth, read before the cycle's zone stops reloading.
    let configuredDepth = zone.queueDepth
    zone.autoReload = false  // one cycle (or one session): the next ad is not part of it
    zone = try context.applyingStrategy(to: zone)
    let requests = try context.requests()
    let privacy = context.privacy
    var userID: String?
    if let text = context.arguments.value(.userID) {
      guard !text.isEmpty else { throw .usage("invalid value '' for --user-id: expected a non-empty id") }
      guard text.utf16.count <= Mediator.maxUserIDLength else {
        throw .usage(
          "invalid value for --user-id: \(text.utf16.count) UTF-16 code units long; at most "
            + "\(Mediator.maxUserIDLength) are allowed")
      }
      userID = text
    }
    let ledgerPath = context.ledgerPath
    if ledgerPath != nil && requests != nil {
      throw .usage("--ledger records the rewards of one cycle; it cannot be combined with --requests")
    }
    if ledgerPath == nil && context.arguments.has(.pauseBeforeAck) {
      throw .usage("--pause-before-ack needs --ledger FILE")
    }
    let reportPath = try context.reportPath()
    if reportPath != nil && requests == nil {
      throw .usage("--report describes a simulation: it needs --requests N")
    }
    let market = try market(for: zone, simulating: requests != nil)
    let (eventsPath, exports) = try recordingOptions(simulating: requests != nil, zone: zone)
    return Settings(
      zone: zone, networks: networks, seed: seed, source: source, requests: requests, privacy: privacy,
      ledgerPath: ledgerPath, pauseBeforeAck: context.arguments.has(.pauseBeforeAck), userID: userID,
      reportPath: reportPath, market: market?.prices, calibrated: market?.calibrated, eventsPath: eventsPath,
      exports: exports, queueDepth: try queueDepth(configured: configuredDepth, simulating: requests != nil),
      fault: try fault(zone: zone, simulating: requests != nil),
      recordPath: try recordPath(zone: zone, simulating: requests != nil))
  }

  /// `--events FILE` and `--export-report max|admob FILE` (each written file checked now, so a
  /// long run does not end in a path it cannot write); only for a simulation.
  func recordingOptions(simulating: Bool, zone: ZoneConfig) throws(CLIError)
    -> (events: String?, exports: [(format: ReportExport.Format, path: String)])
  {
    let events = context.arguments.value(.events)
    let pairs = context.arguments.values(.exportReport)
    guard events != nil || !pairs.isEmpty else { return (nil, []) }
    guard simulating else {
      throw .usage("--events and --export-report record a simulation: they need --requests N")
    }
    guard zone.experiments.isEmpty else {
      throw .usage(
        "--events and --export-report record one configuration; zone '\(zone.id)' runs experiments")
    }
    var exports: [(format: ReportExport.Format, path: String)] = []
    for index in stride(from: 0, to: pairs.count - 1, by: 2) {
      guard let format = ReportExport.Format(rawValue: pairs[index].lowercased()) else {
        throw .usage(
          "invalid value '\(pairs[index])' for --export-report: expected max or admob, then a file")
      }
      exports.append((format, pairs[index + 1]))
    }
    for path in [events].compactMap({ $0 }) + exports.map(\.path) {
      if let directory = OutputFile.missingDirectory(of: path) {
        throw CLIError(kind: .io, message: "\(path): cannot write it: no directory \(directory)")
      }
      try OutputFile.check(path, what: "output")
    }
    return (events, exports)
  }

  /// `--queue-depth N` (1–5), else the zone's `queueDepth` when above 1; only for a simulation.
  func queueDepth(configured: Int, simulating: Bool) throws(CLIError) -> Int? {
    guard let text = context.arguments.value(.queueDepth) else { return configured > 1 ? configured : nil }
    guard simulating else { throw .usage("--queue-depth shapes a simulation: it needs --requests N") }
    guard let depth = Int(text), (1...MediationConfig.Limits.maxQueueDepth).contains(depth) else {
      throw .usage(
        "invalid value '\(text)' for --queue-depth: expected a whole number from 1 to \(MediationConfig.Limits.maxQueueDepth)"
      )
    }
    return depth
  }

  /// `--market FILE` for `zone` (``CommandContext/loadMarket(for:)``); only for a simulation.
  func market(for zone: ZoneConfig, simulating: Bool) throws(CLIError) -> LoadedMarket? {
    if context.arguments.value(.market) != nil, !simulating {
      throw .usage("--market prices a simulation: it needs --requests N")
    }
    return try context.loadMarket(for: zone)
  }

  /// `--seed N`, 1 when left out.
  func seed() throws(CLIError) -> UInt64 {
    guard let text = context.arguments.value(.seed) else { return 1 }
    guard let value = UInt64(text) else {
      throw .usage(
        "invalid value '\(text)' for --seed: expected a non-negative integer", context.arguments.command)
    }
    return value
  }

  func run() throws(CLIError) -> Int32 {
    let settings = try validate()
    if let requests = settings.requests {
      let code = try simulate(settings, requests: requests)
      context.remoteConfig.confirm(output: context.output)
      return code
    }
    let ledger = try settings.ledgerPath.map { path throws(CLIError) in
      try context.openLedger(path: path, createIfMissing: true)
    }
    let dispatcher =
      ServerCallbackChecks.hasCallbacks(settings.zone)
      ? ServerCallbackDispatcher(client: URLSessionHTTPGetClient()) : nil
    let (events, recording) = Self.recordedCycle(
      settings, registry: context.networks(dispatcher), ledger: ledger)
    if context.json {
      for event in events { context.output.out(TimelineFormatter.jsonLine(event)) }
    } else {
      context.output.out(TimelineFormatter.text(events, settings: settings))
    }
    if let dispatcher { report(dispatcher) }
    if let ledger { try acknowledgeRewards(in: events, ledger: ledger, pause: settings.pauseBeforeAck) }
    // The whole cycle ran on the configuration, through its acknowledgements: a fetched candidate
    // is now known good. A run killed before this leaves it a candidate, which the next run skips.
    context.remoteConfig.confirm(output: context.output)
    if let path = settings.recordPath, let recording { try write(recording, to: path) }
    return ExitCode.success
  }

  /// The CLI credits a reward by printing it; once printed, every reward of the run (new and
  /// redelivered) is acknowledged, so it is never delivered again. Killed before this, the next
  /// run delivers them again, marked as redeliveries.
  private func acknowledgeRewards(in events: [Mediator.ZoneEvent], ledger: any RewardLedger, pause: Bool)
    throws(CLIError)
  {
    let ids = events.compactMap { event -> String? in
      if case .rewarded(let reward) = event.event { reward.transactionID } else { nil }
    }
    guard !ids.isEmpty else { return }
    if pause {
      context.output.err(
        "recorded \(ids.joined(separator: ", ")); pausing before acknowledging: press Enter to go on")
      _ = readLine()
    }
    for id in ids {
      do {
        try ledger.acknowledge(transactionID: id)
      } catch {
        throw .ledger(error)
      }
    }
  }

  /// Waits (bounded) for the server callbacks in flight, then reports every delivery.
  private func report(_ dispatcher: ServerCallbackDispatcher) {
    let wait = dispatcher.policy.longestDelivery + .seconds(1)
    let idle = dispatcher.waitUntilIdleBlocking(timeout: wait)
    let deliveries = dispatcher.deliveries
    for delivery in deliveries {
      if context.json {
        context.output.out(DeliveryReport.jsonLine(delivery))
      } else {
        context.output.err(DeliveryReport.text(delivery))
      }
    }
    if !idle {
      context.output.err(DeliveryReport.stillInFlight(dispatcher.inFlightCount, after: wait))
    } else if deliveries.isEmpty && !context.json {
      context.output.err("server callback: none sent (no rewarded impression from a line item with one)")
    }
  }

  /// Runs the cycle on a fresh virtual clock and returns every event.
  ///
  /// - Parameters:
  ///   - registry: The adapters, their simulated servers sending callbacks where their
  ///     registrations say.
  ///   - ledger: Where rewards are recorded; `nil` for none.
  ///   A ledger that cannot be read shows as a `ledger_read_failed` diagnostic in the events.
  static func cycle(
    _ settings: Settings, registry: AdapterRegistry, ledger: (any RewardLedger)? = nil
  ) -> [Mediator.ZoneEvent] {
    recordedCycle(settings, registry: registry, ledger: ledger).events
  }

  /// Runs the cycle as ``cycle(_:registry:ledger:)`` does, its networks wrapped in
  /// ``Settings/fault``; with ``Settings/recordPath``, the flight recorder on, and returns what it
  /// kept with the events.
  static func recordedCycle(
    _ settings: Settings, registry: AdapterRegistry, ledger: (any RewardLedger)? = nil
  ) -> (events: [Mediator.ZoneEvent], recording: FlightRecording?) {
    let scheduler = VirtualScheduler()
    let mediator: Mediator
    let ad: RewardedAd
    do {
      let networks = try registry.subset(settings.networks)
      mediator = try Mediator(
        config: MediationConfig(zones: [settings.zone]),
        registry: try settings.fault.map { fault throws(MediationError) in
          try FaultOption.wrapping(networks, in: fault)
        } ?? networks,
        scheduler: scheduler,
        // Seeded ids keep the output reproducible; with a ledger, ids must be unique across runs.
        options: MediatorOptions(
          seed: settings.seed, transactionIDs: ledger == nil ? .seeded : .systemRandom,
          flightRecorder: MediatorOptions.FlightRecorder(isEnabled: settings.recordPath != nil)),
        ledger: ledger)
      ad = try mediator.rewardedAd(zone: settings.zone.id)
      try mediator.setUserID(settings.userID)
    } catch {
      preconditionFailure("settings were validated: \(error)")
    }
    mediator.privacy = settings.privacy
    let recorded = Locked<[Mediator.ZoneEvent]>([])
    let presenter = HeadlessPresenter()
    mediator.observeEvents { event in
      recorded.withLock { $0.append(event) }
      if case .ready = event.event {
        scheduler.execute {
          do throws(MediationError) {
            try ad.show(from: presenter)
          } catch {
            recorded.withLock {
              $0.append(
                Mediator.ZoneEvent(
                  time: scheduler.now, zoneID: event.zoneID, network: event.network, event: .showFailed(error)
                ))
            }
          }
        }
      }
    }
    ad.load()
    scheduler.run(until: .seconds(3600))
    return (recorded.withLock { $0 }, settings.recordPath.map { _ in mediator.exportRecording() })
  }
}
