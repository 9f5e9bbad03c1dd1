/// Learned eCPMs (``ZoneConfig/autoECPM``): the zone's ``LearnedECPMs`` orders each load's
/// waterfall and learns from every load's outcome and every impression's paid revenue. Its own
/// lock, taken last (never while waiting for the zone's): it is a leaf.
extension ZoneController {
  /// The estimator of a zone whose waterfall learns its eCPMs; `nil` for the others (bidding has
  /// no waterfall to order). Its exploration draws from the engine's seed, keyed by the zone.
  static func learnedECPMs(zone: ZoneConfig, plan: LoadPlan, seed: UInt64) -> Locked<LearnedECPMs>? {
    guard zone.autoECPM, zone.strategy != .bidding else { return nil }
    let random = SeededRandom(seed: seed).derived("autoECPM").derived(zone.id)
    return Locked(LearnedECPMs(plan: plan, random: random))
  }

  /// The plan of the load starting now on `setup`: its plan, in the learned order when it learns.
  func planForNextLoad(_ setup: ZoneSetup) -> LoadPlan {
    guard let learned = setup.learned else { return setup.plan }
    return learned.withLock { $0.nextLoad(in: setup.plan) }
  }

  /// Learns from a finished load, made on `setup`.
  func learn(from outcome: LoadOutcome, in setup: ZoneSetup) {
    guard let learned = setup.learned else { return }
    switch outcome {
    case .filled(_, _, _, let precision, let responses):
      learned.withLock { $0.record(responses, fillPrecision: precision) }
    case .failed(_, let responses):
      learned.withLock { $0.record(responses, fillPrecision: nil) }
    }
  }

  /// Learns an impression's paid revenue.
  func learn(paid revenue: ImpressionRevenue, of ready: ReadyAd, in setup: ZoneSetup) {
    setup.learned?.withLock {
      $0.paid(network: ready.info.network, placementID: ready.info.placementID, revenue: revenue)
    }
  }
}
