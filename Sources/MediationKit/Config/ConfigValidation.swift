import Foundation

extension MediationConfig {
  /// One problem in a configuration, with where it is.
  public struct Issue: Sendable, Equatable, CustomStringConvertible {
    /// Where, e.g. `zones[1].lineItems[0].ecpm`.
    public var path: String
    /// What is wrong and what is expected, e.g. "must be ≥ 0, found -3".
    public var message: String

    public init(path: String, message: String) {
      self.path = path
      self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
  }
}

extension MediationConfig {
  /// Every problem in the configuration, in file order; empty when it is valid.
  ///
  /// - Parameter knownNetworks: The network ids line items may use; `nil` skips that check.
  public func validate(knownNetworks: [NetworkID]? = nil) -> [MediationConfig.Issue] {
    var issues: [Issue] = []
    if let version,
      version.trimmingCharacters(in: .whitespaces).isEmpty || version.count > Limits.maxVersionLength
    {
      issues.append(
        Issue(
          path: "version",
          message:
            "must be a non-empty string of at most \(Limits.maxVersionLength) characters, found "
            + (version.count > Limits.maxVersionLength
              ? "\(version.count) characters" : "\"\(version)\"")))
    }
    var seenDisabled: [NetworkID: Int] = [:]
    for (index, network) in disabledNetworks.enumerated() {
      let path = "disabledNetworks[\(index)]"
      if let issue = ZoneConfig.unknownNetworkIssue(path, network, knownNetworks: knownNetworks) {
        issues.append(issue)
      }
      if let first = seenDisabled[network] {
        issues.append(
          Issue(
            path: path, message: "duplicate network '\(network)', first at disabledNetworks[\(first)]"))
      } else {
        seenDisabled[network] = index
      }
    }
    issues += flightRecorder?.issues(at: "flightRecorder") ?? []
    if zones.isEmpty {
      issues.append(Issue(path: "zones", message: "must list at least one zone, found none"))
    }
    var seenZones: [String: Int] = [:]
    for (index, zone) in zones.enumerated() {
      let path = "zones[\(index)]"
      if zone.id.trimmingCharacters(in: .whitespaces).isEmpty {
        issues.append(
          Issue(path: "\(path).id", message: "must be a non-empty string, found \"\(zone.id)\""))
      } else if let first = seenZones[zone.id] {
        issues.append(
          Issue(
            path: "\(path).id", message: "duplicate zone id '\(zone.id)', first used by zones[\(first)]"))
      } else {
        seenZones[zone.id] = index
      }
      issues += zone.validate(path: path, knownNetworks: knownNetworks)
    }
    return issues
  }
}

extension ZoneConfig {
  fileprivate func validate(path: String, knownNetworks: [NetworkID]?) -> [Issue] {
    var issues: [Issue] = []
    if reward.type.trimmingCharacters(in: .whitespaces).isEmpty {
      issues.append(
        Issue(path: "\(path).reward.type", message: "must be a non-empty string, found \"\""))
    }
    if let issue = Self.integerIssue(
      "\(path).reward.amount", reward.amount, 1...MediationConfig.Limits.maxRewardAmount)
    {
      issues.append(issue)
    }
    issues += [
      Self.rangeIssue(
        "\(path).loadTimeoutSeconds", loadTimeoutSeconds, 0...Limits.maxLoadTimeout, lowerOpen: true),
      Self.rangeIssue(
        "\(path).adExpirySeconds", adExpirySeconds, 0...Limits.maxAdExpiry, lowerOpen: true),
      Self.rangeIssue("\(path).rewardGraceSeconds", rewardGraceSeconds, 0...Limits.maxRewardGrace),
    ].compactMap { $0 }
    // Checked for every strategy: a waterfall zone keeps the value (and may be run with another
    // strategy), so it must be usable too.
    if let issue = Self.rangeIssue(
      "\(path).auctionTimeoutSeconds", auctionTimeoutSeconds, 0...Limits.maxAuctionTimeout,
      lowerOpen: true)
    {
      issues.append(issue)
    }
    if let caps {
      for (field, value) in [("maxPerHour", caps.maxPerHour), ("maxPerDay", caps.maxPerDay)] {
        if let value,
          let issue = Self.integerIssue(
            "\(path).caps.\(field)", value, 1...MediationConfig.Limits.maxShowsPerCap)
        {
          issues.append(issue)
        }
      }
      if let interval = caps.minIntervalSeconds,
        let issue = Self.rangeIssue("\(path).caps.minIntervalSeconds", interval, 0...Limits.maxAdExpiry)
      {
        issues.append(issue)
      }
    }
    if let issue = Self.integerIssue(
      "\(path).queueDepth", queueDepth, 1...MediationConfig.Limits.maxQueueDepth)
    {
      issues.append(issue)
    }
    if autoECPM, strategy == .bidding {
      issues.append(
        Issue(
          path: "\(path).autoECPM",
          message:
            "learned eCPMs order a waterfall, and strategy 'bidding' has none: expected false (or left out), or strategy 'waterfall' or 'hybrid'"
        ))
    }
    issues += experimentIssues(path: path, knownNetworks: knownNetworks)
    issues += Self.lineItemIssues(
      lineItems, path: "\(path).lineItems", strategy: strategy, knownNetworks: knownNetworks)
    return issues
  }

  /// The problems of a list of line items at `path` (a zone's or an arm's), used with `strategy`.
  fileprivate static func lineItemIssues(
    _ lineItems: [ZoneConfig.LineItem], path: String, strategy: ZoneConfig.AuctionStrategy,
    knownNetworks: [NetworkID]?
  ) -> [Issue] {
    var issues: [Issue] = []
    if lineItems.isEmpty {
      issues.append(Issue(path: path, message: "must list at least one line item, found none"))
    } else if let issue = bidderIssue(path, strategy: strategy, lineItems: lineItems) {
      issues.append(issue)
    }
    var seen: [String: Int] = [:]
    for (index, item) in lineItems.enumerated() {
      let itemPath = "\(path)[\(index)]"
      if let issue = unknownNetworkIssue("\(itemPath).network", item.network, knownNetworks: knownNetworks) {
        issues.append(issue)
      }
      // Trimmed only when it starts with whitespace: `trimmingCharacters` is slow, and a
      // configuration is validated on every `Mediator.apply`.
      if item.placementId.first.map({
        $0.isWhitespace && item.placementId.trimmingCharacters(in: .whitespaces).isEmpty
      })
        ?? true
      {
        issues.append(
          Issue(path: "\(itemPath).placementId", message: "must be a non-empty string, found \"\""))
      }
      let key = "\(item.network)/\(item.placementId)"
      if let first = seen[key] {
        issues.append(
          Issue(
            path: itemPath,
            message: "duplicate line item \(item.network) '\(item.placementId)', first at lineItems[\(first)]"
          ))
      } else {
        seen[key] = index
      }
      if let issue = Self.integerIssue(
        "\(itemPath).priority", item.priority, 0...MediationConfig.Limits.maxPriority)
      {
        issues.append(issue)
      }
      issues += [
        Self.rangeIssue("\(itemPath).ecpm", item.ecpm, 0...Limits.maxECPM),
        Self.rangeIssue("\(itemPath).bidFloor", item.bidFloor, 0...Limits.maxECPM),
        Self.rangeIssue(
          "\(itemPath).timeoutSeconds", item.timeoutSeconds, 0...Limits.maxLineItemTimeout,
          lowerOpen: true),
      ].compactMap { $0 }
      if let callback = item.serverCallback {
        issues += callback.validate(path: "\(itemPath).serverCallback", network: item.network)
      }
    }
    return issues
  }

  /// The problems of the zone's experiments: ids, weights, overrides, each arm's settings (valid
  /// on their own and with the zone's), and two experiments overriding the same setting.
  private func experimentIssues(path zonePath: String, knownNetworks: [NetworkID]?) -> [Issue] {
    var issues: [Issue] = []
    var seenExperiments: [String: Int] = [:]
    // Which experiment first overrides each setting, so a second one is reported.
    var overriddenBy: [String: Int] = [:]
    if experiments.count > Limits.maxExperimentsPerZone {
      issues.append(
        Issue(
          path: "\(zonePath).experiments",
          message:
            "must list at most \(Limits.maxExperimentsPerZone) experiments, found \(experiments.count)"
        ))
    }
    for (experimentIndex, experiment) in experiments.enumerated() {
      let path = "\(zonePath).experiments[\(experimentIndex)]"
      if let issue = Self.idIssue(
        "\(path).id", experiment.id, seen: &seenExperiments, index: experimentIndex, list: "experiments")
      {
        issues.append(issue)
      }
      if !(2...Limits.maxArmsPerExperiment).contains(experiment.arms.count) {
        issues.append(
          Issue(
            path: "\(path).arms",
            message:
              "must list 2 to \(Limits.maxArmsPerExperiment) arms, found \(experiment.arms.count)"))
      }
      var seenArms: [String: Int] = [:]
      var settingsHere: Set<String> = []
      var armIDsValid = true
      for (armIndex, arm) in experiment.arms.enumerated() {
        let armPath = "\(path).arms[\(armIndex)]"
        if let issue = Self.idIssue("\(armPath).id", arm.id, seen: &seenArms, index: armIndex, list: "arms") {
          issues.append(issue)
          armIDsValid = false
        }
        if let issue = Self.integerIssue(
          "\(armPath).weight", arm.weight, 1...MediationConfig.Limits.maxArmWeight)
        {
          issues.append(issue)
        }
        if let timeout = arm.auctionTimeoutSeconds,
          let issue = Self.rangeIssue(
            "\(armPath).auctionTimeoutSeconds", timeout, 0...Limits.maxAuctionTimeout, lowerOpen: true)
        {
          issues.append(issue)
        }
        let strategy = arm.strategy ?? self.strategy
        if let lineItems = arm.lineItems {
          issues += Self.lineItemIssues(
            lineItems, path: "\(armPath).lineItems", strategy: strategy, knownNetworks: knownNetworks)
        } else if let issue = Self.bidderIssue(
          "\(armPath).strategy", strategy: strategy, lineItems: lineItems)
        {
          issues.append(issue)
        }
        for (setting, overrides) in [
          ("lineItems", arm.lineItems != nil), ("strategy", arm.strategy != nil),
          ("auctionTimeoutSeconds", arm.auctionTimeoutSeconds != nil),
        ] where overrides {
          if let first = overriddenBy[setting], first != experimentIndex, !settingsHere.contains(setting) {
            issues.append(
              Issue(
                path: "\(armPath).\(setting)",
                message:
                  "also overridden by experiments[\(first)]; two experiments of a zone may not override the "
                  + "same setting (a user is in one arm of each)"))
          }
          settingsHere.insert(setting)
          overriddenBy[setting] = overriddenBy[setting] ?? experimentIndex
        }
      }
      // An override naming an arm whose id is itself reported (blank, repeated, too long, with
      // control characters) is that issue's consequence: the one issue points at the arm's id, the
      // field to fix. Otherwise either the override or an arm's id may be the mistake, so the issue
      // is at the override and names each arm's id by its path.
      for (user, armID) in experiment.overrides.sorted(by: { $0.key < $1.key })
      where armIDsValid && !experiment.arms.contains(where: { $0.id == armID }) {
        let arms = experiment.arms.indices.map { "arms[\($0)].id \(Self.quoted(experiment.arms[$0].id))" }
        issues.append(
          Issue(
            path: "\(path).overrides" + MediationConfig.pathComponent(member: user),
            message:
              "unknown arm \(Self.quoted(armID)); arms: \(arms.joined(separator: ", ")) (fix the override, "
              + "or the arm id it was meant to name)"))
      }
    }
    if experiments.count <= Limits.maxExperimentsPerZone {  // the check is quadratic in them
      issues += crossExperimentBidderIssues(path: zonePath)
    }
    return issues
  }

  /// A user is in one arm of every experiment, so a strategy set by one experiment meets the line
  /// items set by another: every such pair must have a bidder when the strategy needs one.
  private func crossExperimentBidderIssues(path zonePath: String) -> [Issue] {
    var issues: [Issue] = []
    // Per experiment, its first arm whose strategy needs a bidder: one is enough to report.
    let needingBidder = experiments.map { experiment in
      experiment.arms.indices.first { experiment.arms[$0].strategy.map { $0 != .waterfall } ?? false }
        .map { (index: $0, strategy: experiment.arms[$0].strategy) }
    }
    for (itemsIndex, itemsExperiment) in experiments.enumerated() {
      for (armIndex, arm) in itemsExperiment.arms.enumerated() {
        guard let lineItems = arm.lineItems, !lineItems.contains(where: \.bidding) else { continue }
        for (strategyIndex, other) in needingBidder.enumerated() where strategyIndex != itemsIndex {
          guard let other, let strategy = other.strategy,
            let issue = Self.bidderIssue(
              "\(zonePath).experiments[\(itemsIndex)].arms[\(armIndex)].lineItems", strategy: strategy,
              lineItems: lineItems)
          else { continue }
          issues.append(
            Issue(
              path: issue.path,
              message: issue.message
                + " (with experiments[\(strategyIndex)].arms[\(other.index)].strategy '\(strategy.rawValue)')"
            ))
          break
        }
      }
    }
    return issues
  }

  /// An issue when `strategy` needs a bidder and `lineItems` has none.
  private static func bidderIssue(
    _ path: String, strategy: ZoneConfig.AuctionStrategy, lineItems: [ZoneConfig.LineItem]
  )
    -> Issue?
  {
    guard strategy != .waterfall, !lineItems.contains(where: \.bidding) else { return nil }
    return Issue(
      path: path,
      message:
        "strategy '\(strategy.rawValue)' needs at least one line item with \"bidding\": true, found none")
  }

  /// An issue when `network` is not one of `knownNetworks` (never when that is `nil`).
  fileprivate static func unknownNetworkIssue(
    _ path: @autoclosure () -> String, _ network: NetworkID, knownNetworks: [NetworkID]?
  )
    -> Issue?
  {
    guard let knownNetworks, !knownNetworks.contains(network) else { return nil }
    let list = knownNetworks.map(\.rawValue).joined(separator: ", ")
    return Issue(path: path(), message: "unknown network '\(network)'; known: \(list)")
  }
}

/// The configuration's issues and limits by their short names, for the checks in this file.
private typealias Issue = MediationConfig.Issue
private typealias Limits = MediationConfig.Limits
