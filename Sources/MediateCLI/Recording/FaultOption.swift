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
  /// (`rewardGrace`): half of it for `reward-after-dismissal`; twice it, and at least a second past
  /// it (a zone may have no grace window), for `late-reward-after-dismissal`.
  ///
  /// - Throws: A usage error listing every name, for a name that is none of them.
  static func fault(named name: String, rewardGrace: Duration) throws(CLIError) -> Fault {
    guard let index = names.firstIndex(of: name) else {
      throw .usage(
        "invalid value '\(name)' for --fault: expected one of \(names.joined(separator: ", "))", .run)
    }
    if name == "late-reward-after-dismissal" {
      return .rewardAfterDismissal(delay: max(rewardGrace * 2, rewardGrace + .seconds(1)))
    }
    return Fault.catalogue(rewardGrace: rewardGrace)[index]
  }

  /// The kebab-case name of `fault`; a reward delayed past `rewardGrace` is the late one.
  private static func name(of fault: Fault, rewardGrace: Duration) -> String {
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

  /// `registry` with each of its networks wrapped in `fault`.
  static func wrapping(_ registry: AdapterRegistry, in fault: Fault) throws(MediationError) -> AdapterRegistry
  {
    try AdapterRegistry(registry.all.map { FaultInjection.registration(wrapping: $0, fault: fault) })
  }
}
