/// The commands `mediate` has.
enum Command: String, CaseIterable, Equatable {
  case run, networks, zones, validate, bench, rewards, config, compare, optimize, calibrate, replay, inspect
  case verifyCallback = "verify-callback"
  case verifierKeys = "verifier-keys"
  case benchCallbacks = "bench-callbacks"
  case benchApply = "bench-apply"
  case benchApp = "bench-app"

  var summary: String {
    switch self {
    case .run: "Run one mediated rewarded-ad cycle and print the auction and the event timeline (default)."
    case .networks: "List the registered network adapters with their versions."
    case .zones: "List the zones of the configuration in use."
    case .validate: "Check a configuration file and report every problem."
    case .config: "Print the configuration in use (the built-in one by default) as a configuration file."
    case .compare:
      "Compare a zone of two configurations on the simulator, on paired seeds, with 95% confidence intervals."
    case .optimize:
      "Propose a better configuration for a zone from simulated traffic, measured on held-out seeds."
    case .calibrate:
      "Estimate a zone's market (fill, prices, latency per line item) from MAX and AdMob reports and MediationKit's event log."
    case .bench:
      "Measure MediationKit's overhead: the Empower SDK driven directly, through its adapter alone, and through mediation."
    case .rewards: "List the rewards pending in a reward ledger (oldest first), or acknowledge one."
    case .replay:
      "Replay a flight recording (mediate --record) on this engine: its timeline, whether it is identical, the reward contract."
    case .inspect:
      "Print what a flight recording holds: engine, networks, privacy flags, sessions and their inputs."
    case .benchApply:
      "Measure Mediator.apply on a running mediator: 100 zones of 20 line items, each zone holding a ready ad."
    case .benchApp:
      "Measure what the engine costs an app: whole rewarded cycles on DispatchScheduler and real threads."
    case .benchCallbacks:
      "Measure reward callbacks verified and claimed per second (Google, MAX) with each replay guard."
    case .verifyCallback:
      "Verify a server-to-server reward callback URL (MAX event token or Google SSV signature)."
    case .verifierKeys:
      "Print the simulated Google server's SSV verifier keys (Google's JSON) for a seed."
    }
  }

  var usage: String {
    switch self {
    case .run:
      "mediate [run] [--zone ZONE] [--networks LIST] [--strategy S] [--requests N] [--seed N] [--config FILE] "
        + "[--user-id ID] [--no-consent] [--do-not-sell] [--child-directed] [--ledger FILE [--pause-before-ack]] "
        + "[--report FILE.html] [--market FILE [--segment S | --country CC]] [--events FILE] "
        + "[--export-report max|admob FILE] [--queue-depth N] [--fault NAME] [--record FILE] [--json] "
        + "[--config-url URL [--config-cache DIR]]"
    case .networks:
      "mediate networks [--seed N] [--config FILE] [--start-on-first-use LIST] [--never-start LIST] [--json]"
    case .zones: "mediate zones [--config FILE] [--config-url URL [--config-cache DIR]] [--json]"
    case .validate: "mediate validate FILE [--json]"
    case .config: "mediate config [--config FILE] [--zone ZONE]"
    case .compare:
      "mediate compare A.json B.json [--zone ZONE] [--requests N] [--replications K] [--networks LIST] "
        + "[--strategy S] [--seed N] [--no-consent] [--do-not-sell] [--child-directed] [--report FILE.html] "
        + "[--market FILE [--segment S | --country CC] [--calibration-resamples K]] [--json]"
    case .optimize:
      "mediate optimize [--config FILE] [--zone ZONE] --out FILE [--requests N] [--strategy S] [--networks LIST] "
        + "[--seed N] [--no-consent] [--do-not-sell] [--child-directed] [--report FILE.html] "
        + "[--market FILE [--segment S | --country CC | --segments] [--calibration-resamples K]] [--json]"
    case .calibrate:
      "mediate calibrate [--config FILE] [--zone ZONE] --out FILE [--max-report FILE]… [--admob-report FILE]… "
        + "[--events FILE]… [--segment-by DIM|none] [--app ID]… [--json]"
    case .bench: "mediate bench [--cycles N] [--seed N] [--json]"
    case .rewards: "mediate rewards --ledger FILE [--all] [--ack ID] [--json]"
    case .replay: "mediate replay FILE [--json]"
    case .inspect: "mediate inspect FILE [--report FILE.html] [--json]"
    case .benchApply: "mediate bench-apply [--cycles N] [--experiments] [--json]"
    case .benchApp: "mediate bench-app [--cycles N] [--flight-recorder] [--json]"
    case .benchCallbacks:
      "mediate bench-callbacks [--callbacks N] [--concurrency N] [--postgres URL] [--json]"
    case .verifyCallback:
      "mediate verify-callback --network max --key KEY [--template T] [--seen FILE|URL] [--seen-timeout MS] [--json] URL\n"
        + "       mediate verify-callback --network google --keys FILE [--seen FILE|URL] [--seen-timeout MS] [--json] URL"
    case .verifierKeys: "mediate verifier-keys --network google [--seed N]"
    }
  }
}

extension Command {
  /// What a command's help says after its options, when its options are not the whole story.
  var helpNotes: [String]? {
    guard self == .calibrate else { return nil }
    return ["WHAT EACH SOURCE TELLS (the richest wins, per figure and line item):"]
      + MediateCLI.helpRow(
        "event log",
        "fill of answered requests, requests never answered, prices (every bid, and waterfall impressions' "
          + "revenue_paid), load and bid latencies")
      + MediateCLI.helpRow(
        "MAX / AdMob", "fill per attempt (timeouts included) and the mean eCPM; no spread, no latency")
      + MediateCLI.helpRow(
        "otherwise", "the simulated network's default; every default is written with its reason")
      + [
        "Rows are matched to line items by network and placement id; unmatched rows are listed, rows given",
        "twice are counted once. Exit 64 bad usage, 65 bad data (file, row, column, found, expected),",
        "66 a missing file, 74 an --out that cannot be written. The DocC article \"Calibrating the",
        "simulator to your market\" documents the market file, the event log and the report shapes.",
      ]
  }
}

/// An option a command accepts.
struct OptionSpec {
  let name: String
  let valueName: String?
  let help: String
  /// How many values the option takes (`--export-report max FILE` takes two).
  var arity = 1
  /// Whether the option may be given more than once; ``Arguments/values(_:)`` has every value.
  var repeatable = false

  static let zone = OptionSpec(
    name: "--zone", valueName: "ZONE", help: "The zone to load and show (default: the config's first zone).")
  static let zoneFilter = OptionSpec(
    name: "--zone", valueName: "ZONE", help: "Only this zone (default: every zone).")
  static let compareZone = OptionSpec(
    name: "--zone", valueName: "ZONE",
    help: "The zone to compare; both files must have it (default: A's first).")
  static let compareRequests = OptionSpec(
    name: "--requests", valueName: "N", help: "Simulated sessions per replication and side (default: 100000)."
  )
  static let replications = OptionSpec(
    name: "--replications", valueName: "K",
    help: "Replications, 1 to 1000 (default: 10); 2 or more give confidence intervals.")
  static let compareSeed = OptionSpec(
    name: "--seed", valueName: "N", help: "Replication r of A and of B both run with seed N + r (default: 1)."
  )
  static let report = OptionSpec(
    name: "--report", valueName: "FILE",
    help: "With --requests: also write a self-contained HTML report with charts (no script) to FILE.")
  static let compareReport = OptionSpec(
    name: "--report", valueName: "FILE",
    help: "Also write a self-contained HTML report with charts and the CIs (no script) to FILE.")
  static let optimizeZone = OptionSpec(
    name: "--zone", valueName: "ZONE", help: "The zone to optimize (default: the config's first).")
  static let out = OptionSpec(
    name: "--out", valueName: "FILE", help: "Where to write the optimized configuration (every zone).")
  static let optimizeRequests = OptionSpec(
    name: "--requests", valueName: "N",
    help: "Simulated sessions per seed, training and held out (default: 20000).")
  static let optimizeStrategy = OptionSpec(
    name: "--strategy", valueName: "S",
    help: "waterfall, bidding or hybrid: propose only this strategy (default: the one that earns most).")
  static let optimizeSeed = OptionSpec(
    name: "--seed", valueName: "N",
    help: "Trains on seeds N and N + 1, measures on held-out seeds N + 1000000… (default: 1).")
  static let optimizeReport = OptionSpec(
    name: "--report", valueName: "FILE",
    help: "Also write a self-contained HTML report of the held-out comparison to FILE.")
  static let networks = OptionSpec(
    name: "--networks", valueName: "LIST",
    help: "Comma-separated network ids taking part (default: all registered).")
  static let seed = OptionSpec(
    name: "--seed", valueName: "N", help: "Seed of every random draw; same seed, same output (default: 1).")
  static let startOnFirstUse = OptionSpec(
    name: "--start-on-first-use", valueName: "LIST",
    help: "Comma-separated network ids started by their first load, not at launch.")
  static let neverStart = OptionSpec(
    name: "--never-start", valueName: "LIST",
    help: "Comma-separated network ids never started: their line items are skipped, not_started.")
  static let config = OptionSpec(
    name: "--config", valueName: "FILE", help: "A JSON zone configuration (default: the built-in one).")
  static let configURL = OptionSpec(
    name: "--config-url", valueName: "URL",
    help:
      "Fetch the configuration from URL; if it fails or is invalid, use the cached copy, then the bundled one "
      + "(--config FILE or the built-in default). Says which on stderr.")
  static let configCache = OptionSpec(
    name: "--config-cache", valueName: "DIR",
    help: "With --config-url: keep the last good remote configuration in DIR for the next run.")
  static let strategy = OptionSpec(
    name: "--strategy", valueName: "S",
    help: "waterfall, bidding or hybrid: overrides the zone's strategy (default: the zone's).")
  static let requests = OptionSpec(
    name: "--requests", valueName: "N",
    help:
      "Simulate N sessions on virtual time and print fill, revenue, latency and wins "
      + "(server callbacks are not sent).")
  static let queueDepth = OptionSpec(
    name: "--queue-depth", valueName: "N",
    help:
      "With --requests: the zone keeps up to N (1-5) ads ready, reloading on its own, and each session "
      + "shows from that queue (default: the zone's queueDepth; at 1, each session loads then shows).")
  static let market = OptionSpec(
    name: "--market", valueName: "FILE",
    help:
      "With --requests: what the simulated networks do. A market file (mediate calibrate): each line item it "
      + "lists fills, prices and answers as it says. A configuration file: each line item is priced at its eCPM "
      + "in FILE's zone of the same id, not at --config's (to try wrong or learned eCPMs).")
  static let compareMarket = OptionSpec(
    name: "--market", valueName: "FILE",
    help:
      "Both sides run on this market (a market file from mediate calibrate, or a configuration file's "
      + "eCPMs) instead of the simulated networks' own behaviour.")
  static let segment = OptionSpec(
    name: "--segment", valueName: "S",
    help:
      "With a segmented --market: all traffic is in segment S (a country, or the market's other dimension).")
  static let country = OptionSpec(
    name: "--country", valueName: "CC",
    help: "With a --market segmented by country: all traffic is from country CC (US, GB, …).")
  static let calibrationResamples = OptionSpec(
    name: "--calibration-resamples", valueName: "K",
    help:
      "With a market file that counts its data: also run on K markets drawn from the calibration's uncertainty "
      + "and say how much of the CI it makes, 0 to 200 (default: 10; 0 skips it).")
  static let segments = OptionSpec(
    name: "--segments", valueName: nil,
    help:
      "With a segmented --market: also optimize each segment and propose its own configuration where it earns "
      + "significantly more there than the overall proposal (written next to --out as OUT.SEGMENT.json).")
  static let events = OptionSpec(
    name: "--events", valueName: "FILE",
    help:
      "With --requests: write every zone event to FILE as MediationKit's event log (JSON Lines, version 1).")
  static let exportReport = OptionSpec(
    name: "--export-report", valueName: "max|admob FILE",
    help:
      "With --requests: write what the simulated networks did as a MAX revenue report (CSV) or an AdMob "
      + "mediation report (the API's JSON) to FILE; may be given twice.", arity: 2, repeatable: true)
  static let calibrateZone = OptionSpec(
    name: "--zone", valueName: "ZONE",
    help: "The zone whose line items to calibrate (default: the config's first).")
  static let calibrateOut = OptionSpec(
    name: "--out", valueName: "FILE",
    help: "Where to write the market file (for --market, compare, optimize).")
  static let maxReport = OptionSpec(
    name: "--max-report", valueName: "FILE",
    help: "A MAX Revenue Reporting API report (CSV); may be given more than once.", repeatable: true)
  static let admobReport = OptionSpec(
    name: "--admob-report", valueName: "FILE",
    help: "An AdMob API mediation report (the mediationReport:generate JSON); may be given more than once.",
    repeatable: true)
  static let eventLogs = OptionSpec(
    name: "--events", valueName: "FILE",
    help: "MediationKit's event log (JSON Lines, version 1); may be given more than once.", repeatable: true)
  static let segmentBy = OptionSpec(
    name: "--segment-by", valueName: "DIM",
    help:
      "Split the market by this dimension (country, platform, …) every source has (default: country when "
      + "every source has it); none pools all traffic.")
  static let app = OptionSpec(
    name: "--app", valueName: "ID",
    help:
      "The app whose rows to read when a report covers several (MAX package_name, store_id or application; "
      + "AdMob APP); may be given once per report kind.", repeatable: true)
  static let userID = OptionSpec(
    name: "--user-id", valueName: "ID",
    help:
      "The app's user id, passed to server callbacks (MAX {USER_ID}, Google user_id) and picking the "
      + "zone's A/B test arms (--requests simulates a population of users instead); at most 8192 characters.")
  static let keysNetwork = OptionSpec(
    name: "--network", valueName: "NET", help: "The network whose simulated server's keys to print: google.")
  static let cycles = OptionSpec(
    name: "--cycles", valueName: "N",
    help: "Cycles to time (default: 100000 for bench, 20000 for bench-app, 200 applies for bench-apply).")
  static let noConsent = OptionSpec(
    name: "--no-consent", valueName: nil,
    help: "Privacy: the user declined GDPR consent (non-personalized ads).")
  static let doNotSell = OptionSpec(
    name: "--do-not-sell", valueName: nil, help: "Privacy: the user opted out of sale under CCPA.")
  static let childDirected = OptionSpec(
    name: "--child-directed", valueName: nil,
    help: "Privacy: the user is a child (no bidding, restricted ads).")
  static let experiments = OptionSpec(
    name: "--experiments", valueName: nil,
    help:
      "bench-apply: every zone also runs a two-arm A/B test (one arm with its own line items) and the "
      + "mediator has a user id, so each apply resolves the user's arms; also times user id changes.")
  static let flightRecorder = OptionSpec(
    name: "--flight-recorder", valueName: nil,
    help: "bench-app: the zone records every input (the flight recorder), to time what recording costs.")
  static let json = OptionSpec(
    name: "--json", valueName: nil, help: "Print JSON for machines instead of text.")
  /// `--ledger FILE`: the SQLite reward ledger. Shared by every command that uses a ledger; see
  /// ``CommandContext/openLedger(path:createIfMissing:)``.
  static let ledger = OptionSpec(
    name: "--ledger", valueName: "FILE",
    help: "The SQLite reward ledger file: rewards are recorded there before they are granted.")
  /// `--pause-before-ack`: lets a test kill `mediate` between recording a reward and
  /// acknowledging it.
  static let pauseBeforeAck = OptionSpec(
    name: "--pause-before-ack", valueName: nil,
    help: "With --ledger: before acknowledging the rewards, wait for a line on standard input.")
  static let all = OptionSpec(
    name: "--all", valueName: nil,
    help: "Also list the acknowledged rewards, with when they were acknowledged.")
  static let ack = OptionSpec(
    name: "--ack", valueName: "ID",
    help:
      "Acknowledge the pending reward with this transaction id (exit 65 if unknown or already acknowledged).")
  static let help = OptionSpec(name: "--help", valueName: nil, help: "Show help for the command.")
  static let callbackNetwork = OptionSpec(
    name: "--network", valueName: "NET", help: "The network that sent the callback: max or google.")
  static let eventKey = OptionSpec(
    name: "--key", valueName: "KEY", help: "max: the ad unit's S2S event key (from the MAX dashboard).")
  static let callbackTemplate = OptionSpec(
    name: "--template", valueName: "T",
    help: "max: the ad unit's callback URL template (default: MediationKit's standard template).")
  static let verifierKeys = OptionSpec(
    name: "--keys", valueName: "FILE",
    help: "google: Google's verifier-keys JSON ({\"keys\":[{\"keyId\",…}]}).")

  /// `--seen FILE|URL`: the replay guard of `verify-callback` — a SQLite file, or a PostgreSQL
  /// database a fleet of servers shares; see ``CommandContext/openReplayGuard()``.
  static let seen = OptionSpec(
    name: "--seen", valueName: "FILE|URL",
    help:
      "The callback ids already accepted: a SQLite file (created if missing), or a postgres:// URL "
      + "that several servers share; a replay is refused across runs, not only within this one.")

  /// `--seen-timeout MS`: how long the replay guard may wait before a claim is a storage failure.
  static let seenTimeout = OptionSpec(
    name: "--seen-timeout", valueName: "MS",
    help:
      "How long the --seen guard may wait for a lock or a query before the callback is refused as a "
      + "storage failure, exit 74 (default: 5000).")

  static let callbacks = OptionSpec(
    name: "--callbacks", valueName: "N", help: "Callbacks to verify per network and guard (default: 20000).")
  static let concurrency = OptionSpec(
    name: "--concurrency", valueName: "N", help: "Callbacks verified at once, one thread each (default: 2).")
  static let postgres = OptionSpec(
    name: "--postgres", valueName: "URL",
    help: "A PostgreSQL database for the PostgresReplayGuard scenarios (a scratch table, dropped after).")

  static func options(for command: Command) -> [OptionSpec] {
    switch command {
    case .run:
      [
        .zone, .networks, .strategy, .requests, .seed, .config, .userID, .noConsent, .doNotSell,
        .childDirected, .ledger, .pauseBeforeAck, .report, .market, .segment, .country, .events,
        .exportReport, .queueDepth, .fault, .record, .json, .help, .configURL, .configCache,
      ]
    case .networks: [.seed, .config, .startOnFirstUse, .neverStart, .json, .help]
    case .zones: [.config, .json, .help, .configURL, .configCache]
    case .validate: [.json, .help]
    case .config: [.config, .zoneFilter, .help]
    case .compare:
      [
        .compareZone, .compareRequests, .replications, .networks, .strategy, .compareSeed, .noConsent,
        .doNotSell,
        .childDirected, .compareReport, .compareMarket, .segment, .country, .calibrationResamples, .json,
        .help,
      ]
    case .optimize:
      [
        .config, .optimizeZone, .out, .optimizeRequests, .optimizeStrategy, .networks, .optimizeSeed,
        .noConsent,
        .doNotSell, .childDirected, .optimizeReport, .compareMarket, .segment, .country, .segments,
        .calibrationResamples, .json, .help,
      ]
    case .calibrate:
      [
        .config, .calibrateZone, .calibrateOut, .maxReport, .admobReport, .eventLogs, .segmentBy, .app, .json,
        .help,
      ]
    case .bench: [.cycles, .seed, .json, .help]
    case .rewards: [.ledger, .all, .ack, .json, .help]
    case .replay: [.json, .help]
    case .inspect: [.inspectReport, .json, .help]
    case .benchCallbacks: [.callbacks, .concurrency, .postgres, .json, .help]
    case .benchApply: [.cycles, .experiments, .json, .help]
    case .benchApp: [.cycles, .flightRecorder, .json, .help]
    case .verifyCallback:
      [.callbackNetwork, .eventKey, .callbackTemplate, .verifierKeys, .seen, .seenTimeout, .json, .help]
    case .verifierKeys: [.keysNetwork, .seed, .help]
    }
  }
}

/// Parsed command-line arguments.
struct Arguments: Equatable {
  var command: Command = .run
  var options: [String: String] = [:]
  /// Every value of each option given, in order (an option of arity 2 adds two per use).
  var repeated: [String: [String]] = [:]
  var flags: Set<String> = []
  var positional: [String] = []

  func value(_ option: OptionSpec) -> String? { options[option.name] }
  /// Every value of `option`, in the order given; empty when it was left out.
  func values(_ option: OptionSpec) -> [String] { repeated[option.name] ?? [] }
  func has(_ flag: OptionSpec) -> Bool { flags.contains(flag.name) }

  /// Parses `arguments` (without the program name).
  static func parse(_ arguments: [String]) throws(CLIError) -> Arguments {
    var parsed = Arguments()
    var rest = arguments[...]
    if let first = rest.first, !first.hasPrefix("-") {
      guard let command = Command(rawValue: first) else {
        let known = Command.allCases.map(\.rawValue).joined(separator: ", ")
        throw .usage("unknown command '\(first)'; commands: \(known)")
      }
      parsed.command = command
      rest = rest.dropFirst()
    }
    let specs = OptionSpec.options(for: parsed.command)
    while let token = rest.popFirst() {
      if token == "-h" {
        parsed.flags.insert(OptionSpec.help.name)
        continue
      }
      guard token.hasPrefix("--") else {
        parsed.positional.append(token)
        continue
      }
      let parts = token.split(separator: "=", maxSplits: 1).map(String.init)
      let name = parts[0]
      guard let spec = specs.first(where: { $0.name == name }) else {
        if name == "--version" {
          parsed.flags.insert(name)
          continue
        }
        throw .usage("unknown option '\(name)' for '\(parsed.command.rawValue)'", parsed.command)
      }
      if spec.valueName == nil {
        if parts.count > 1 { throw .usage("option '\(name)' takes no value", parsed.command) }
        parsed.flags.insert(name)
      } else {
        var values: [String] = parts.count > 1 ? [parts[1]] : []
        while values.count < spec.arity, let next = rest.first, !next.hasPrefix("--") {
          values.append(next)
          rest = rest.dropFirst()
        }
        guard values.count == spec.arity, let value = values.first else {
          throw .usage("option '\(name)' needs a value (\(spec.valueName ?? "VALUE"))", parsed.command)
        }
        if parsed.options[name] != nil && !spec.repeatable {
          throw .usage("option '\(name)' given twice", parsed.command)
        }
        if parsed.options[name] == nil { parsed.options[name] = value }
        parsed.repeated[name, default: []] += values
      }
    }
    return parsed
  }
}
