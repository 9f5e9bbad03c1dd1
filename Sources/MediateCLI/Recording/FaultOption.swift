import MediationKit
import MediationKitTesting

/// `--fault NAME`: one of the test kit's ten faults (``Fault/catalogue(rewardGrace:)``), by its
/// name in kebab case, injected between the cycle's networks and the engine
/// (``FaultInjection/registration(wrapping:fault:)``) so that a faulty session can be made,
/// recorded and replayed from the command line.
enum FaultOption {
  /// The ten faults' names, in the catalogue's order.
  static let names = Fault.catalogue(rewardGrace: .seconds(5)).map { name(of: $0, rewardGrace: .seconds(5)) }

  /// The fault named `name`, its reward delays measured against the zone's grace window
  /// (`rewardGrace`): half of it for `reward-after-dismissal`, twice it for
  /// `late-reward-after-dismissal`.
  ///
  /// - Throws: A usage error listing every name, for a name that is none of them.
  static func fault(named name: String, rewardGrace: Duration) throws(CLIError) -> Fault {
    let faults = Fault.catalogue(rewardGrace: rewardGrace)
    guard let fault = faults.first(where: { Self.name(of: $0, rewardGrace: rewardGrace) == name }) else {
      throw .usage(
        "invalid value '\(name)' for --fault: expected one of \(names.joined(separator: ", "))", .run)
    }
    return fault
  }

  /// The kebab-case name of `fault`; a reward delayed past `rewardGrace` is the late one.
  static func name(of fault: Fault, rewardGrace: Duration) -> String {
    switch fault {
    case .none: "none"
    case .startNeverAnswers: "start-never-answers"
    case .loadNeverAnswers: "load-never-answers"
    case .loadFails: "load-fails"
    case .duplicateCallbacks: "duplicate-callbacks"
    case .callbacksFromAnotherThread: "callbacks-from-another-thread"
    case .showNeverAnswers: "show-never-answers"
    case .dismissalWithoutDisplay: "dismissal-without-display"
    case .displayFails: "display-fails"
    case .rewardAfterDismissal(let delay):
      delay <= rewardGrace ? "reward-after-dismissal" : "late-reward-after-dismissal"
    }
  }

  /// `registry` with each of `networks` wrapped in `fault`.
  static func wrapping(_ networks: [NetworkID], of registry: AdapterRegistry, in fault: Fault)
    throws(MediationError) -> AdapterRegistry
  {
    var registrations: [AdapterRegistry.Registration] = []
    for id in networks where !registrations.contains(where: { $0.info.id == id }) {
      registrations.append(
        FaultInjection.registration(wrapping: try registry.registration(for: id), fault: fault))
    }
    return try AdapterRegistry(registrations)
  }
}
