import Foundation
import MediationKit

/// The run options the single cycle, the simulator and `compare` share: `--networks`,
/// `--strategy`, `--requests` and the privacy flags, each checked the same way for every command.
extension CommandContext {
  /// `--networks LIST` (or another option naming networks); every registered network when left out.
  func networks(_ option: OptionSpec = .networks) throws(CLIError) -> [NetworkID] {
    guard let list = arguments.value(option) else { return registry.networkIDs }
    let networks = list.split(separator: ",", omittingEmptySubsequences: false).map {
      NetworkID($0.trimmingCharacters(in: .whitespaces).lowercased())
    }
    let registered = registry.networkIDs
    for id in networks where !registered.contains(id) {
      throw .usage(
        id.rawValue.isEmpty
          ? "\(option.name) has an empty entry; registered: \(registered.map(\.rawValue).joined(separator: ", "))"
          : MediationError.unknownNetwork(id, known: registered).message, arguments.command)
    }
    return networks
  }

  /// `zone` with `--strategy S` applied, when given.
  func applyingStrategy(to zone: ZoneConfig) throws(CLIError) -> ZoneConfig {
    guard let name = arguments.value(.strategy) else { return zone }
    guard let strategy = ZoneConfig.AuctionStrategy(rawValue: name) else {
      let names = ZoneConfig.AuctionStrategy.allCases.map(\.rawValue).joined(separator: ", ")
      throw .usage("invalid value '\(name)' for --strategy: expected one of \(names)", arguments.command)
    }
    if strategy != .waterfall && !zone.lineItems.contains(where: \.bidding) {
      throw .usage(
        "zone '\(zone.id)' has no bidding line items, so it cannot run --strategy \(name)", arguments.command)
    }
    var zone = zone
    zone.use(strategy)
    return zone
  }

  /// `--requests N`, from 1 to `limit`; `nil` when left out.
  func requests(limit: Int = 100_000_000) throws(CLIError) -> Int? {
    guard let text = arguments.value(.requests) else { return nil }
    guard let value = Int(text), value > 0, value <= limit else {
      throw .usage(
        "invalid value '\(text)' for --requests: expected a whole number from 1 to \(limit)",
        arguments.command)
    }
    return value
  }

  /// The privacy flags: `--no-consent`, `--do-not-sell`, `--child-directed`.
  var privacy: PrivacySettings {
    PrivacySettings(
      hasUserConsent: arguments.has(.noConsent) ? false : nil,
      doNotSell: arguments.has(.doNotSell) ? true : nil,
      isChildDirected: arguments.has(.childDirected))
  }

  /// `--report FILE`, checked before the run: its directory must exist.
  func reportPath() throws(CLIError) -> String? { try outputPath(.report, what: "report") }
}
