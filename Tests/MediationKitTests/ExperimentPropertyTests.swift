import MediationKit
import MediationKitTesting
import Testing

/// Random sequences of user id changes, applies, loads and shows on a zone with an A/B test, on
/// virtual time: the reward contract holds, every accepted show is rewarded once and recorded
/// once, every ad was loaded from its reported arm's line items (the configured zone's when it
/// reports none), and every reward and ledger entry carries the arms of the ad shown.
@Suite("Property tests: experiment arms")
struct ExperimentPropertyTests {
  static let runs: UInt64 = 100
  static let users = ["u1", "u2", "u3", "u4", "u5", "u6", nil]

  /// The experiment zone with random prices (an apply changes them, not the arms' line items).
  static func config(_ random: inout SeededRandom, version: Int) -> MediationConfig {
    var zone = experimentZone()
    zone.lineItems[0].ecpm = Double(1 + random.next() % 20)
    zone.experiments[0].arms[1].lineItems?[0].ecpm = Double(1 + random.next() % 20)
    return liveConfig(zone, version: "v\(version)")
  }

  static func violation(seed: UInt64) throws -> String? {
    var random = SeededRandom(seed: seed)
    let ledger = InMemoryRewardLedger()
    var version = 1
    let harness = try LiveHarness(config(&random, version: version), ledger: ledger) { s in
      ["a", "b"].map { id in
        let loads: [ScriptedAdapter.LoadScript] = (0..<4).map { _ in
          random.chance(0.8)
            ? .fill(after: .milliseconds(Int64(random.next() % 3000)))
            : .fail(after: .milliseconds(Int64(random.next() % 1000)), noFill)
        }
        return ScriptedAdapter(id: NetworkID(id), scheduler: s, loads: ["\(id)1": loads])
      }
    }
    let ad = try harness.mediator.rewardedAd(zone: "z")
    var accepted = 0
    var log: [String] = []
    for _ in 0..<40 {
      switch random.next() % 8 {
      case 0, 1:
        let user = users[Int(random.next() % UInt64(users.count))]
        try harness.mediator.setUserID(user)
        log.append("user \(user ?? "nil")")
      case 2:
        version += 1
        try harness.mediator.apply(config(&random, version: version))
        log.append("apply v\(version)")
      case 3, 4, 5:
        ad.load()
        log.append("load")
      default:
        do {
          try ad.show(from: HeadlessPresenter())
          accepted += 1
          log.append("show: accepted")
        } catch {
          log.append("show: \(error.code)")
        }
      }
      harness.scheduler.advance(by: .milliseconds(Int64(random.next() % 6000)))
    }
    harness.settle(.seconds(120))
    do {
      try harness.recorder.verifyContract()
    } catch {
      return "\(error); \(log)"
    }
    let events = harness.recorder.events(zone: "z")
    for case .ready(let info) in events {
      let expected: String
      switch info.experimentArms {
      case [:]: expected = "a1"
      case ["e": "control"]: expected = "a1"
      case ["e": "treatment"]: expected = "b1"
      default: return "unexpected arms \(info.experimentArms); \(log)"
      }
      if info.placementID != expected {
        return "\(info.placementID) loaded under arms \(info.experimentArms); \(log)"
      }
    }
    let shown = events.compactMap { if case .shown(let info) = $0 { info.experimentArms } else { nil } }
    let rewards = harness.rewards()
    if rewards.count != accepted { return "\(accepted) shows accepted, \(rewards.count) rewards; \(log)" }
    if rewards.map(\.experimentArms) != Array(shown.prefix(rewards.count)) {
      return "rewards' arms \(rewards.map(\.experimentArms)) differ from the shown ads' \(shown); \(log)"
    }
    let recorded = try ledger.pending()
    // The ledger orders by recording time, then transaction id.
    if recorded.map(\.reward).sorted(by: { $0.transactionID < $1.transactionID })
      != rewards.sorted(by: { $0.transactionID < $1.transactionID })
    {
      return "ledger \(recorded.map(\.reward)) differs from the rewards delivered \(rewards); \(log)"
    }
    return nil
  }

  @Test func randomUserChangesNeverBreakTheContractOrMisattributeAnArm() throws {
    // The users cover both arms, so the runs switch between them.
    let arms = Set(Self.users.compactMap { $0 }.map { experimentZone().experiments[0].arm(forUser: $0)?.id })
    #expect(arms == ["control", "treatment"])
    var failures: [String] = []
    for seed in 1...Self.runs {
      if let violation = try Self.violation(seed: seed) { failures.append("seed \(seed): \(violation)") }
    }
    #expect(failures.isEmpty, "\(failures.count) runs failed; first: \(failures.first ?? "")")
  }
}
