import Foundation
import MediationKit
import MediationKitTesting

/// `mediate networks`: the registered adapters, their versions and compatibility, and how they
/// started.
struct NetworksCommand {
  let context: CommandContext

  init(_ context: CommandContext) { self.context = context }

  func run() throws(CLIError) -> Int32 {
    try context.noPositional(.networks)
    let infos = context.registry.all.map(\.info)
    let statuses = try startStatuses()
    if context.json {
      let objects: [[String: Any]] = infos.map { info in
        var object: [String: Any] = [
          "id": info.id.rawValue, "name": info.displayName, "adapter_version": info.adapterVersion,
          "sdk_version": info.sdkVersion, "capabilities": info.capabilities.map(\.rawValue).sorted(),
          "adapter_api_version": info.adapterAPIVersion.description,
          "supported_sdk_versions": [
            "min": info.supportedSDKVersions.lowerBound.description,
            "below": info.supportedSDKVersions.upperBound.description,
          ],
        ]
        if let status = statuses[info.id] {
          object["status"] = status.state.rawValue
          object["status_description"] = status.description
          object["start_latency_ms"] = status.latency.map { $0.milliseconds as Any } ?? NSNull()
          object["starts"] = status.start.rawValue
        }
        return object
      }
      context.output.out(
        JSONLine.encode([
          "adapter_api_version": AdapterCompatibility.coreAPIVersion.description, "networks": objects,
        ]))
    } else {
      context.output.out(
        "id        name               adapter   sdk          supports SDK     api     status       start     starts        capabilities"
      )
      for info in infos {
        let status = statuses[info.id]
        let range = info.supportedSDKVersions
        context.output.out(
          [
            info.id.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0),
            info.displayName.padding(toLength: 18, withPad: " ", startingAt: 0),
            info.adapterVersion.padding(toLength: 9, withPad: " ", startingAt: 0),
            info.sdkVersion.padding(toLength: 12, withPad: " ", startingAt: 0),
            "\(range.lowerBound.numbers)..<\(range.upperBound.numbers)".padding(
              toLength: 16, withPad: " ", startingAt: 0),
            info.adapterAPIVersion.description.padding(toLength: 7, withPad: " ", startingAt: 0),
            (status?.state.rawValue ?? "-").padding(toLength: 12, withPad: " ", startingAt: 0),
            (status?.latency.map { "\($0.milliseconds) ms" } ?? "-").padding(
              toLength: 9, withPad: " ", startingAt: 0),
            (status?.start.rawValue ?? "-").padding(toLength: 13, withPad: " ", startingAt: 0),
            info.capabilities.map(\.rawValue).sorted().joined(separator: ", "),
          ].joined(separator: " "))
      }
      context.output.out("")
      context.output.out(
        "Compatibility: this MediationKit provides adapter API \(AdapterCompatibility.coreAPIVersion). Each adapter above was "
          + "checked at registration: built for API \(AdapterCompatibility.coreAPIVersion.major).x up to \(AdapterCompatibility.coreAPIVersion.major)."
          + "\(AdapterCompatibility.coreAPIVersion.minor) (api), linked with an SDK in its range (supports SDK); one that does not fit "
          + "is refused then, with what to upgrade.")
      context.output.out(
        "Start-up: every adapter starting at launch starts in parallel, each within \(MediatorOptions().startTimeout.seconds.formatted()) s (virtual time, seed \(try RunCommand(context).seed())); "
          + "one started on first use starts with the first load that needs it, which waits for it; one never "
          + "started is skipped, not_started. No load reaches an adapter before its start completed."
      )
    }
    return ExitCode.success
  }

  /// `--start-on-first-use` and `--never-start`, as ``MediatorOptions/networkStarts``.
  private func networkStarts() throws(CLIError) -> [NetworkID: MediatorOptions.NetworkStart] {
    var starts: [NetworkID: MediatorOptions.NetworkStart] = [:]
    for (option, start) in [
      (OptionSpec.startOnFirstUse, MediatorOptions.NetworkStart.onFirstUse), (.neverStart, .never),
    ]
    where context.arguments.value(option) != nil {
      for id in try context.networks(option) {
        if let other = starts[id], other != start {
          throw .usage(
            "'\(id)' is in both --start-on-first-use and --never-start; name it in one",
            context.arguments.command)
        }
        starts[id] = start
      }
    }
    return starts
  }

  /// Starts every registered adapter on virtual time, as a mediator does, and reports the outcome.
  private func startStatuses() throws(CLIError) -> [NetworkID: Mediator.AdapterStatus] {
    let (config, _) = try context.loadConfig()
    let scheduler = VirtualScheduler()
    let options = MediatorOptions(seed: try RunCommand(context).seed(), networkStarts: try networkStarts())
    let mediator: Mediator
    do {
      mediator = try Mediator(
        config: config, registry: context.registry, scheduler: scheduler, options: options)
    } catch {
      throw .data(error.message)
    }
    scheduler.advance(by: options.startTimeout + .seconds(1))
    return Dictionary(uniqueKeysWithValues: mediator.adapterStatuses.map { ($0.network, $0) })
  }
}

/// `mediate zones`: the zones of the configuration in use.
struct ZonesCommand {
  let context: CommandContext

  init(_ context: CommandContext) { self.context = context }

  func run() throws(CLIError) -> Int32 {
    try context.noPositional(.zones)
    let (config, source) = try context.loadConfig()
    if context.json {
      let zones: [[String: Any]] = config.zones.map { zone in
        [
          "id": zone.id, "reward_type": zone.reward.type, "reward_amount": zone.reward.amount,
          "load_timeout_s": zone.loadTimeoutSeconds, "ad_expiry_s": zone.adExpirySeconds,
          "reward_grace_s": zone.rewardGraceSeconds, "auto_reload": zone.autoReload,
          "line_items": WaterfallOrder.sorted(zone.lineItems).map { item in
            [
              "network": item.network.rawValue, "placement": item.placementId, "priority": item.priority,
              "ecpm": item.ecpm, "timeout_s": item.timeoutSeconds,
            ] as [String: Any]
          },
        ]
      }
      context.output.out(JSONLine.encode(["source": source, "zones": zones]))
      return ExitCode.success
    }
    context.output.out("Zones in \(source) (line items in waterfall order):")
    for zone in config.zones {
      context.output.out("")
      context.output.out(
        "\(zone.id) — reward \(zone.reward.amount) \(zone.reward.type); load budget \(Int(zone.loadTimeoutSeconds)) s, "
          + "expiry \(Int(zone.adExpirySeconds)) s, grace \(zone.rewardGraceSeconds) s, auto-reload \(zone.autoReload ? "on" : "off")"
      )
      for item in WaterfallOrder.sorted(zone.lineItems) {
        context.output.out(
          "  prio \(item.priority)  " + String(format: "$%6.2f", item.ecpm) + "  "
            + item.network.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0) + " \(item.placementId)"
            + "  (timeout \(item.timeoutSeconds) s)")
      }
    }
    return ExitCode.success
  }
}

/// `mediate validate FILE`: every problem in a configuration file, or that it is valid.
struct ValidateCommand {
  let context: CommandContext

  init(_ context: CommandContext) { self.context = context }

  func run() throws(CLIError) -> Int32 {
    guard let path = context.arguments.positional.first else {
      throw .usage("missing FILE to validate", .validate)
    }
    if context.arguments.positional.count > 1 {
      throw .usage("unexpected argument '\(context.arguments.positional[1])'", .validate)
    }
    guard let data = FileManager.default.contents(atPath: path) else { throw .noInput(path) }
    do {
      let config = try CommandContext.load(data, source: path, knownNetworks: context.registry.networkIDs)
      let items = config.zones.reduce(0) { $0 + $1.lineItems.count }
      if context.json {
        context.output.out(
          JSONLine.encode(["file": path, "valid": true, "zones": config.zones.count, "line_items": items]))
      } else {
        context.output.out("\(path): valid — \(config.zones.count) zones, \(items) line items")
      }
      return ExitCode.success
    } catch {
      if context.json {
        let issues = error.issues.map { ["path": $0.path, "message": $0.message] }
        context.output.out(JSONLine.encode(["file": path, "valid": false, "issues": issues]))
      } else {
        for issue in error.issues { context.output.err("\(path): \(issue)") }
      }
      return ExitCode.dataError
    }
  }
}
