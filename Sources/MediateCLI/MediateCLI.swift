import Foundation
import MediationKit
import MediationKitSimulation

/// Where the CLI writes: standard output, standard error, and whether they are terminals.
public struct CLIOutput: Sendable {
  /// Writes a line to standard output.
  public var out: @Sendable (String) -> Void
  /// Writes a line to standard error.
  public var err: @Sendable (String) -> Void
  /// Whether standard error is a terminal (progress is shown only then).
  public var stderrIsTerminal: Bool

  public init(
    out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void,
    stderrIsTerminal: Bool
  ) {
    self.out = out
    self.err = err
    self.stderrIsTerminal = stderrIsTerminal
  }

  /// The process's real standard output and error.
  public static var standard: CLIOutput {
    CLIOutput(
      out: { line in FileHandle.standardOutput.write(Data((line + "\n").utf8)) },
      err: { line in FileHandle.standardError.write(Data((line + "\n").utf8)) },
      stderrIsTerminal: isatty(STDERR_FILENO) != 0)
  }
}

/// The `mediate` command line, as a library so it can be tested in-process.
public enum MediateCLI {
  /// The version `mediate --version` prints.
  public static let version = "0.1.0"

  /// Runs `mediate` with `arguments` (without the program name) over the adapters in `registry`
  /// and returns the exit code. Simulated servers made by `registry` send their server-to-server
  /// callbacks where its registrations say (nowhere, by default); for `mediate run` to send them,
  /// pass a registry factory with ``run(_:networks:output:programName:)``.
  ///
  /// - Parameters:
  ///   - arguments: The command-line arguments.
  ///   - registry: The adapters available.
  ///   - output: Where to write.
  ///   - programName: The name usage lines and `--version` print (for tools built on this one).
  public static func run(
    _ arguments: [String], registry: AdapterRegistry, output: CLIOutput, programName: String = "mediate"
  ) -> Int32 {
    run(arguments, networks: { _ in registry }, output: output, programName: programName)
  }

  /// Runs `mediate` with `arguments` (without the program name) and returns the exit code.
  ///
  /// - Parameters:
  ///   - arguments: The command-line arguments.
  ///   - networks: Makes the adapters available, their simulated servers sending server-to-server
  ///     callbacks to the given sender (``BuiltInNetworks/registry(serverCallbacks:)`` in the real
  ///     tool). `mediate run` passes its HTTP dispatcher when the zone has callbacks; everything
  ///     else passes `nil`.
  ///   - output: Where to write.
  ///   - programName: The name usage lines and `--version` print (for tools built on this one).
  public static func run(
    _ arguments: [String],
    networks: @escaping (_ serverCallbacks: (any ServerCallbackSender)?) -> AdapterRegistry,
    output: CLIOutput, programName: String = "mediate"
  ) -> Int32 {
    // Whatever a configuration or a server put in a line reaches the terminal escaped.
    let output = output.escapingControlCharacters
    func named(_ text: String) -> String {
      programName == "mediate" ? text : text.replacingOccurrences(of: "mediate", with: programName)
    }
    do {
      let parsed = try Arguments.parse(arguments)
      if parsed.has(.help) {
        output.out(
          named(help(for: parsed.command, explicitCommand: arguments.first == parsed.command.rawValue)))
        return ExitCode.success
      }
      if parsed.flags.contains("--version") {
        output.out(named("mediate \(version)"))
        return ExitCode.success
      }
      let context = CommandContext(arguments: parsed, networks: networks, output: output)
      // A command that ended without confirming a fetched candidate neither judges nor keeps it.
      defer { context.remoteConfig.withdraw(output: output) }
      switch parsed.command {
      case .run: return try RunCommand(context).run()
      case .networks: return try NetworksCommand(context).run()
      case .zones: return try ZonesCommand(context).run()
      case .validate: return try ValidateCommand(context).run()
      case .config: return try ConfigCommand(context).run()
      case .compare: return try CompareCommand(context).run()
      case .optimize: return try OptimizeCommand(context).run()
      case .calibrate: return try CalibrateCommand(context).run()
      case .bench: return try BenchCommand(context).run()
      case .rewards: return try RewardsCommand(context).run()
      case .replay: return try ReplayCommand(context).run()
      case .inspect: return try InspectCommand(context).run()
      case .benchCallbacks: return try BenchCallbacksCommand(context).run()
      case .benchApply: return try BenchApplyCommand(context).run()
      case .benchApp: return try BenchAppCommand(context).run()
      case .verifyCallback: return try VerifyCallbackCommand(context).run()
      case .verifierKeys: return try VerifierKeysCommand(context).run()
      }
    } catch {
      output.err("Error: \(error.message)")
      if case .usage(let command) = error.kind {
        output.err(named("Usage: \(command.usage)"))
        let helpCommand = command == .run ? "mediate --help" : "mediate \(command.rawValue) --help"
        output.err(named("See '\(helpCommand)'."))
      }
      return error.exitCode
    }
  }

  static func help(for command: Command, explicitCommand: Bool) -> String {
    var lines = ["OVERVIEW: \(command.summary)", "", "USAGE: \(command.usage)", "", "OPTIONS:"]
    for option in OptionSpec.options(for: command) {
      let name = option.valueName.map { "\(option.name) \($0)" } ?? option.name
      lines += helpRow(name, option.help)
    }
    if let notes = command.helpNotes { lines += [""] + notes }
    if command == .run && !explicitCommand {
      lines += helpRow("--version", "Show the version.") + ["", "COMMANDS:"]
      for command in Command.allCases {
        lines += helpRow(command.rawValue, command.summary)
      }
      lines += ["", "See 'mediate COMMAND --help' for a command's options."]
    }
    return lines.joined(separator: "\n")
  }

  /// The width of the help's name column, its two-space indent included.
  static let helpNameColumn = 20

  /// One row of the help: `name` in its column and the description after it, with a space at
  /// least between them; a name too long for the column puts the description on the next line,
  /// under the others.
  static func helpRow(_ name: String, _ description: String) -> [String] {
    let indent = String(repeating: " ", count: helpNameColumn)
    let cell = "  " + name
    guard cell.count < helpNameColumn else { return [cell, indent + description] }
    return [cell.padding(toLength: helpNameColumn, withPad: " ", startingAt: 0) + description]
  }
}

/// What every command gets.
struct CommandContext {
  let arguments: Arguments
  /// The adapters available, their simulated servers sending no callbacks.
  let registry: AdapterRegistry
  /// Makes the adapters available with their simulated servers sending callbacks to a sender.
  let networks: (_ serverCallbacks: (any ServerCallbackSender)?) -> AdapterRegistry
  let output: CLIOutput
  /// With `--config-url`: the source, so the command can confirm it ran on a fetched candidate.
  let remoteConfig = RemoteConfigRun()

  init(
    arguments: Arguments,
    networks: @escaping (_ serverCallbacks: (any ServerCallbackSender)?) -> AdapterRegistry,
    output: CLIOutput
  ) {
    self.arguments = arguments
    self.registry = networks(nil)
    self.networks = networks
    self.output = output
  }

  var json: Bool { arguments.has(.json) }

  /// The configuration in use: `--config FILE` or the built-in default, or with `--config-url` the
  /// server's, its cached copy or that one (``loadRemoteConfig(bundledData:bundledName:)``).
  func loadConfig() throws(CLIError) -> (MediationConfig, source: String) {
    let known = registry.networkIDs
    if arguments.value(.configURL) != nil || arguments.value(.configCache) != nil {
      let path = arguments.value(.config)
      let data: Data
      if let path {
        guard let contents = FileManager.default.contents(atPath: path) else { throw .noInput(path) }
        data = contents
      } else {
        data = Data(DefaultConfig.json.utf8)
      }
      if let remote = try loadRemoteConfig(bundledData: data, bundledName: path ?? "built-in default") {
        return remote
      }
    }
    if let path = arguments.value(.config) {
      return (try Self.loadConfig(path: path, knownNetworks: known), path)
    }
    do {
      let data = Data(DefaultConfig.json.utf8)
      return (try Self.load(data, source: "built-in default", knownNetworks: known), "built-in default")
    } catch {
      throw .data(error.description)
    }
  }

  /// Decodes and validates a configuration: MediationKit's rules, then the built-in networks'
  /// server callback formats (``ServerCallbackChecks``).
  static func load(_ data: Data, source: String, knownNetworks: [NetworkID]) throws(MediationConfig.LoadError)
    -> MediationConfig
  {
    let config = try MediationConfig.load(data, source: source, knownNetworks: knownNetworks)
    let issues = ServerCallbackChecks.issues(config)
    if !issues.isEmpty { throw MediationConfig.LoadError(source: source, issues: issues) }
    return config
  }

  /// Reads and validates the configuration file at `path`.
  static func loadConfig(path: String, knownNetworks: [NetworkID]) throws(CLIError) -> MediationConfig {
    guard let data = FileManager.default.contents(atPath: path) else { throw .noInput(path) }
    do {
      return try load(data, source: path, knownNetworks: knownNetworks)
    } catch {
      throw .data(error.description)
    }
  }

  /// Rejects positional arguments a command does not take.
  func noPositional(_ command: Command) throws(CLIError) {
    if let extra = arguments.positional.first { throw .usage("unexpected argument '\(extra)'", command) }
  }

  /// `option`'s value, a whole number in `range`; `value` when the option is left out.
  func wholeNumber(_ option: OptionSpec, default value: Int, range: ClosedRange<Int>, _ command: Command)
    throws(CLIError) -> Int
  {
    guard let text = arguments.value(option) else { return value }
    guard let number = Int(text), range.contains(number) else {
      throw .usage(
        "invalid value '\(text)' for \(option.name): expected a whole number from \(range.lowerBound) to "
          + "\(range.upperBound)", command)
    }
    return number
  }
}
