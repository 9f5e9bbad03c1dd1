import MediationKit

/// `mediate config`: the configuration in use — `--config FILE` or the built-in default — as a
/// configuration file, every setting spelled out, to edit and pass back with `--config`.
struct ConfigCommand {
  let context: CommandContext

  init(_ context: CommandContext) { self.context = context }

  func run() throws(CLIError) -> Int32 {
    try context.noPositional(.config)
    var (config, _) = try context.loadConfig()
    if let zoneID = context.arguments.value(.zoneFilter) {
      do {
        config.zones = [try config.zone(zoneID)]  // keeps the version and the switched-off networks
      } catch {
        throw .usage(error.message, .config)
      }
    }
    context.output.out(ConfigFileWriter.json(config))
    return ExitCode.success
  }
}
