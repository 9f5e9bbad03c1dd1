/// Which arm of an A/B test a user is in: a pure function of the user id, the experiment id and
/// the arms' weights.
///
/// - **Stable**: the same inputs give the same arm in every process, launch and platform. The
///   user id and experiment id are mixed with ``SeededRandom``'s byte hashing (FNV-1a over the
///   UTF-8 bytes, then SplitMix64 rounds), never with Swift's `Hasher`, which is seeded per
///   process.
/// - **Independent between experiments**: the experiment id keys the mix, so a user's arm in one
///   experiment says nothing about their arm in another.
/// - **Proportional**: the mixed value picks a point in `0..<total weight` and the arm owning it
///   wins, so an arm's share of users is its weight's share of the total (integer arithmetic, no
///   rounding differences between platforms).
/// - **Overridable**: a user listed in `overrides` gets that arm, whatever the split (QA devices).
///
/// This is a bucketing function, not a security boundary: anyone who knows a user id can compute
/// its arm, and a user who can choose their id can choose their arm. It must not gate anything
/// that matters beyond the experiment.
package enum ArmAssignment {
  /// One arm as the assignment sees it.
  package struct Arm: Sendable, Equatable {
    package var id: String
    /// A positive weight; arms with weight 0 are never picked.
    package var weight: UInt64

    package init(id: String, weight: UInt64) {
      self.id = id
      self.weight = weight
    }
  }

  /// A fixed key for the assignment's mixing, so its values are unrelated to any other use of
  /// ``SeededRandom`` with the same labels. Changing it reassigns every user.
  static let namespace: UInt64 = 0x6D65_6469_6174_696F  // "mediatio"

  /// The arm `userID` is in.
  ///
  /// - Parameters:
  ///   - userID: The app's user id.
  ///   - experimentID: The experiment's id; it salts the assignment.
  ///   - arms: The arms in configuration order (the order is part of the assignment: reordering
  ///     arms moves users).
  ///   - overrides: User ids put in a named arm whatever the split; an override naming no arm of
  ///     `arms` is ignored.
  /// - Returns: The arm's id; `nil` when no arm has a positive weight.
  package static func arm(
    forUser userID: String, experiment experimentID: String, arms: [Arm], overrides: [String: String] = [:]
  ) -> String? {
    if let forced = overrides[userID], arms.contains(where: { $0.id == forced }) { return forced }
    let total = arms.reduce(UInt64(0)) { $0 + $1.weight }
    guard total > 0 else { return nil }
    let point = bucket(forUser: userID, experiment: experimentID, total: total)
    var upper: UInt64 = 0
    for arm in arms {
      upper += arm.weight
      if point < upper { return arm.id }
    }
    preconditionFailure("point \(point) < total \(total) lies in some arm")
  }

  /// A point in `0..<total`, uniform over user ids (within `total / 2^64`) and stable.
  package static func bucket(forUser userID: String, experiment experimentID: String, total: UInt64) -> UInt64
  {
    // Two keyed rounds: the experiment id keys a generator, the user id derives from it, each
    // step an FNV-1a byte hash followed by SplitMix64 mixing.
    let experimentKey = SeededRandom(seed: namespace).keyBase(experimentID)
    var generator = SeededRandom(seed: experimentKey).derived(userID)
    // The high word of value × total: a multiply-shift range reduction, without the modulo bias
    // of `value % total` beyond the 2^-64 granularity.
    return generator.next().multipliedFullWidth(by: total).high
  }
}

extension ZoneConfig.Experiment {
  /// The arm `userID` is in: the configured override if any, otherwise the weighted,
  /// deterministic split of ``ArmAssignment``; `nil` when no arm has a positive weight (which
  /// validation rejects).
  package func arm(forUser userID: String) -> Arm? {
    let weighted = arms.map { ArmAssignment.Arm(id: $0.id, weight: UInt64(max($0.weight, 0))) }
    let id = ArmAssignment.arm(forUser: userID, experiment: self.id, arms: weighted, overrides: overrides)
    return arms.first { $0.id == id }
  }
}

extension ZoneConfig {
  /// The zone as `userID` sees it: each experiment's arm for the user applied in turn, and the
  /// arms chosen (experiment id → arm id) for events to report.
  ///
  /// Validation guarantees two experiments never override the same setting, so the order they are
  /// applied in does not matter.
  package func variant(forUser userID: String) -> (zone: ZoneConfig, arms: [String: String]) {
    var zone = self
    var chosen: [String: String] = [:]
    for experiment in experiments {
      guard let arm = experiment.arm(forUser: userID) else { continue }
      chosen[experiment.id] = arm.id
      zone.apply(arm)
    }
    return (zone, chosen)
  }

  /// Replaces the settings `arm` overrides.
  package mutating func apply(_ arm: Experiment.Arm) {
    if let lineItems = arm.lineItems { self.lineItems = lineItems }
    if let strategy = arm.strategy { use(strategy) }
    if let auctionTimeoutSeconds = arm.auctionTimeoutSeconds {
      self.auctionTimeoutSeconds = auctionTimeoutSeconds
    }
  }
}
