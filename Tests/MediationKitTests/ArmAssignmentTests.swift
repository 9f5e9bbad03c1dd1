import Foundation
import MediationKit
import Testing

/// The A/B arm assignment: a pure, stable, weighted and per-experiment independent function of
/// the user id.
@Suite("Arm assignment")
struct ArmAssignmentTests {
  typealias Arm = ArmAssignment.Arm

  static let users = (0..<100_000).map { "user-\($0)" }

  static func counts(_ arms: [Arm], experiment: String) -> [String: Int] {
    var counts: [String: Int] = [:]
    for user in users {
      counts[ArmAssignment.arm(forUser: user, experiment: experiment, arms: arms) ?? "none", default: 0] += 1
    }
    return counts
  }

  /// Pearson's chi-square statistic of observed counts against expected ones.
  static func chiSquare(observed: [Double], expected: [Double]) -> Double {
    zip(observed, expected).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) / $1.1 }
  }

  @Test func sameInputSameArm() {
    let arms = [Arm(id: "a", weight: 1), Arm(id: "b", weight: 1), Arm(id: "c", weight: 1)]
    for user in Self.users.prefix(1_000) {
      let first = ArmAssignment.arm(forUser: user, experiment: "e", arms: arms)
      #expect(ArmAssignment.arm(forUser: user, experiment: "e", arms: arms) == first)
    }
  }

  /// The assignment of fixed user ids, pinned: the same in every process and on every platform
  /// (no per-process `Hasher` seed), and any change to the function, which would move live users
  /// between arms, fails here.
  @Test func pinnedAssignments() {
    let arms = [Arm(id: "control", weight: 50), Arm(id: "test", weight: 30), Arm(id: "other", weight: 20)]
    let users = [
      "", "0", "1", "user-1", "user-2", "user-3", "A1B2C3D4-0000-4000-8000-000000000001", "jörg", "🦊",
      "qa-device-7",
    ]
    let assigned = users.map {
      ArmAssignment.arm(forUser: $0, experiment: "bidding-test", arms: arms) ?? "none"
    }
    #expect(
      assigned == [
        "control", "other", "control", "other", "test", "control", "other", "control", "control", "test",
      ])
    let buckets = users.prefix(4).map { ArmAssignment.bucket(forUser: $0, experiment: "e", total: 1_000_000) }
    #expect(buckets == [142995, 674737, 191454, 634464])
  }

  /// Weights 1 : 2 : 7 over 100,000 user ids. Pearson's chi-square with 2 degrees of freedom
  /// must stay below 13.82, its 99.9th percentile for a fair split; the inputs are fixed, so the
  /// test is deterministic and a biased function (e.g. one ignoring weights) gives thousands.
  @Test func sharesFollowTheWeights() {
    let arms = [Arm(id: "a", weight: 1), Arm(id: "b", weight: 2), Arm(id: "c", weight: 7)]
    let counts = Self.counts(arms, experiment: "weights")
    let observed = arms.map { Double(counts[$0.id] ?? 0) }
    let expected = arms.map { Double(Self.users.count) * Double($0.weight) / 10 }
    #expect(counts.values.reduce(0, +) == Self.users.count)
    let statistic = Self.chiSquare(observed: observed, expected: expected)
    #expect(statistic < 13.82, "chi-square \(statistic): \(counts)")
  }

  /// Two experiments (50/50 and 1:1:2) over the same 100,000 users: the 2×3 table of their arms is
  /// the product of its margins. The chi-square test of independence (2 degrees of freedom) must
  /// stay below 13.82 (p = 0.001); an assignment that ignored the experiment id would put every
  /// user of arm a in arm x and fail by tens of thousands.
  @Test func experimentsAreIndependent() {
    let first = [Arm(id: "a", weight: 1), Arm(id: "b", weight: 1)]
    let second = [Arm(id: "x", weight: 1), Arm(id: "y", weight: 1), Arm(id: "z", weight: 2)]
    var table: [String: Int] = [:]
    for user in Self.users {
      let one = ArmAssignment.arm(forUser: user, experiment: "exp-one", arms: first) ?? "none"
      let two = ArmAssignment.arm(forUser: user, experiment: "exp-two", arms: second) ?? "none"
      table["\(one)\(two)", default: 0] += 1
    }
    let total = Double(Self.users.count)
    var observed: [Double] = []
    var expected: [Double] = []
    for one in first.map(\.id) {
      for two in second.map(\.id) {
        let row = second.reduce(0) { $0 + (table["\(one)\($1.id)"] ?? 0) }
        let column = first.reduce(0) { $0 + (table["\($1.id)\(two)"] ?? 0) }
        observed.append(Double(table["\(one)\(two)"] ?? 0))
        expected.append(Double(row) * Double(column) / total)
      }
    }
    let statistic = Self.chiSquare(observed: observed, expected: expected)
    #expect(statistic < 13.82, "chi-square \(statistic): \(table)")
  }

  @Test func overrideWinsAndAnUnknownArmIsIgnored() {
    let arms = [Arm(id: "a", weight: 1), Arm(id: "b", weight: 1)]
    for user in Self.users.prefix(200) {
      let natural = ArmAssignment.arm(forUser: user, experiment: "e", arms: arms)
      let other = natural == "a" ? "b" : "a"
      #expect(
        ArmAssignment.arm(forUser: user, experiment: "e", arms: arms, overrides: [user: other]) == other)
      #expect(
        ArmAssignment.arm(forUser: user, experiment: "e", arms: arms, overrides: [user: "gone"]) == natural)
    }
  }

  @Test func zeroWeightArmsAreNeverPickedAndNoWeightMeansNoArm() {
    let arms = [Arm(id: "off", weight: 0), Arm(id: "on", weight: 3)]
    #expect(
      Self.users.prefix(2_000).allSatisfy {
        ArmAssignment.arm(forUser: $0, experiment: "e", arms: arms) == "on"
      })
    #expect(ArmAssignment.arm(forUser: "u", experiment: "e", arms: [Arm(id: "a", weight: 0)]) == nil)
  }

  /// The zone a user sees: every experiment's arm applied, the chosen arms reported.
  @Test func variantAppliesTheUsersArms() throws {
    let base = ZoneConfig.LineItem(network: "empower", placementId: "e", priority: 0, ecpm: 3)
    let bidder = ZoneConfig.LineItem(network: "max", placementId: "m", priority: 0, ecpm: 5, bidding: true)
    let zone = ZoneConfig(
      id: "z", reward: ZoneConfig.RewardConfig(type: "coins", amount: 1), lineItems: [base],
      experiments: [
        ZoneConfig.Experiment(
          id: "items",
          arms: [
            .init(id: "control", weight: 1), .init(id: "bidders", weight: 1, lineItems: [base, bidder]),
          ],
          overrides: ["qa": "bidders"]),
        ZoneConfig.Experiment(
          id: "timeout",
          arms: [.init(id: "control", weight: 1), .init(id: "fast", weight: 1, auctionTimeoutSeconds: 1.5)],
          overrides: ["qa": "fast"]),
      ])
    let (seen, arms) = zone.variant(forUser: "qa")
    #expect(arms == ["items": "bidders", "timeout": "fast"])
    #expect(seen.lineItems == [base, bidder])
    #expect(seen.auctionTimeoutSeconds == 1.5)
    #expect(seen.strategy == zone.strategy)
    #expect(seen.experiments == zone.experiments)
    // Users in both control arms see the zone as configured.
    let control = try #require(
      Self.users.prefix(100).first { zone.variant(forUser: $0).arms.values.allSatisfy { $0 == "control" } })
    #expect(zone.variant(forUser: control).zone == zone)
  }
}
