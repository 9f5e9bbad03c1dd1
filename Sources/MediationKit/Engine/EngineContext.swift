import Foundation

/// What every zone of one mediator shares: the clock, the adapters and their start-up status,
/// the screen, the event hub, privacy signals and the random stream.
final class EngineContext: Sendable {
  let scheduler: any Scheduler
  let options: MediatorOptions
  /// Where rewards are recorded before the app is told; `nil` for none.
  let ledger: (any RewardLedger)?
  /// Where the ledger is written and read (``MediatorOptions/ledgerQueue``); `nil` without one.
  private let ledgerIO: LedgerIO?
  let hub = EventHub()

  /// What the lock guards: the few values every zone of the mediator reads and writes.
  struct Shared {
    /// Each network's adapter and start-up, and the requests waiting for a start.
    var starts: NetworkStarts
    var random: SeededRandom
    var lastAuctionID: UInt64 = 0
    var privacy = PrivacySettings()
    /// The zones of the configuration in use, for the error a removed zone's load gets.
    var zoneIDs: [String] = []
    var userID: String?
    /// The zone whose ad is on screen: one full-screen ad at a time, across every zone.
    var screenHolder: String?
    /// The zone and network of each reward delivered or listed in this run and not acknowledged
    /// yet, so a failed acknowledgement is reported on the reward's zone.
    var rewardOrigins: [String: (zoneID: String, network: NetworkID)] = [:]
  }

  /// The one lock of what the zones share; touched by this file and EngineContext+NetworkStarts.
  let shared: Locked<Shared>

  /// - Parameter adapters: Each network's adapter with its info, read by the caller outside any lock.
  init(
    scheduler: any Scheduler, options: MediatorOptions,
    adapters: [NetworkID: (adapter: any RewardedAdapter, info: AdapterInfo)],
    ledger: (any RewardLedger)? = nil
  ) {
    self.scheduler = scheduler
    self.ledger = ledger
    self.ledgerIO = ledger.map { _ in LedgerIO(options.ledgerQueue, scheduler: scheduler) }
    self.options = options
    self.shared = Locked(
      Shared(
        starts: NetworkStarts(adapters: adapters, modes: options.networkStarts),
        random: SeededRandom(seed: options.seed).derived("mediator")))
    if let log = EventLog(options.logging) { _ = hub.subscribe(log.log) }  // for the context's life
  }

  /// A new unique reward transaction id, from ``MediatorOptions/transactionIDs``.
  func nextTransactionID() -> String {
    switch options.transactionIDs {
    case .systemRandom: UUID().uuidString
    case .seeded: shared.withLock { $0.random.uuidString() }
    }
  }

  /// A new auction id: 1, 2, 3… in the order loads start, so the same run gives the same ids.
  func nextAuctionID() -> UInt64 {
    shared.withLock { shared in
      shared.lastAuctionID += 1
      return shared.lastAuctionID
    }
  }

  /// The id of the auction started last (0 before the first).
  var lastAuctionID: UInt64 { shared.withLock { $0.lastAuctionID } }

  /// The privacy signals every load starts with.
  var privacy: PrivacySettings { shared.withLock { $0.privacy } }

  /// Applies `change` to the privacy signals, atomically; `change` runs outside the lock (it is
  /// the app's code), and again on the newer value when another thread changed them meanwhile.
  ///
  /// - Returns: Whether the signals changed.
  func updatePrivacy(_ change: (inout PrivacySettings) -> Void) -> Bool {
    while true {
      let current = privacy
      var changed = current
      change(&changed)
      guard changed != current else { return false }
      let swapped = shared.withLock { shared in
        guard shared.privacy == current else { return false }
        shared.privacy = changed
        return true
      }
      if swapped { return true }
    }
  }

  /// The app's id for the user, forwarded with each show (checked by ``Mediator/setUserID(_:)``).
  var userID: String? {
    get { shared.withLock { $0.userID } }
    set { shared.withLock { $0.userID = newValue } }
  }

  /// The zones of the configuration in use, in its order.
  func zoneIDs() -> [String] { shared.withLock { $0.zoneIDs } }

  func setZoneIDs(_ ids: [String]) { shared.withLock { $0.zoneIDs = ids } }

  // MARK: The screen

  /// Takes the screen for `zoneID`'s show, unless another zone's ad is on it.
  func takeScreen(for zoneID: String) -> Screen {
    shared.withLock { shared in
      guard let holder = shared.screenHolder else {
        shared.screenHolder = zoneID
        return .acquired
      }
      return .taken(by: holder)
    }
  }

  /// Hands the screen back, if `zoneID` holds it.
  func releaseScreen(from zoneID: String) {
    shared.withLock { shared in if shared.screenHolder == zoneID { shared.screenHolder = nil } }
  }

  /// The zone whose ad is on screen, if any.
  var screenHolder: String? { shared.withLock { $0.screenHolder } }

  /// Records `reward` in the ledger, then publishes it: the app is told only once it is durable.
  /// If the ledger cannot record it, the reward is still delivered, after a diagnostic saying so.
  ///
  /// The record runs where ``MediatorOptions/ledgerQueue`` says, not on the executor; until it
  /// completes (back on the executor), the zone's later events are held behind the reward.
  func publishReward(_ reward: Reward, zoneID: String) {
    guard let ledger, let ledgerIO else {
      publish(zoneID, reward.network, .rewarded(reward))
      return
    }
    let entry = LedgerEntry(
      reward: reward, zoneID: zoneID, recordedAtMilliseconds: options.wallClockMilliseconds())
    let time = scheduler.now
    let ticket = hub.beginRecording(zoneID: zoneID)
    ledgerIO.perform(on: scheduler) { () -> LedgerError? in
      do throws(LedgerError) {
        try ledger.record(entry)
        return nil
      } catch {
        return error
      }
    } then: { [self] failure in
      var events: [Mediator.ZoneEvent] = []
      if let failure {
        let note = RewardedAdEvent.Diagnostic(
          .ledgerWriteFailed, "reward \(reward.transactionID) not recorded: \(failure)")
        events.append(
          Mediator.ZoneEvent(time: time, zoneID: zoneID, network: reward.network, event: .diagnostic(note)))
      }
      events.append(
        Mediator.ZoneEvent(time: time, zoneID: zoneID, network: reward.network, event: .rewarded(reward)))
      rememberOrigin(of: entry)
      hub.recorded(ticket, zoneID: zoneID, events: events)
    }
  }

  /// Submits the acknowledgement of `transactionID` to the ledger queue, behind every reward
  /// recorded before it; see ``Mediator/acknowledgeReward(transactionID:)->()``. A failed write gives
  /// the reward's zone a ``RewardedAdEvent/Diagnostic/Kind/ledgerWriteFailed`` diagnostic (every zone in
  /// `zoneIDs` when this run never saw the reward).
  func acknowledgeReward(transactionID: String, zoneIDs: [String]) {
    guard let ledger, let ledgerIO else { return }
    ledgerIO.perform(on: scheduler) { [self] in
      writeAcknowledgement(transactionID, to: ledger)
    } then: { [self] result in
      guard case .failure(let error) = result else { return }
      let note = RewardedAdEvent.Diagnostic(
        .ledgerWriteFailed,
        "acknowledgement of reward \(transactionID) not written: \(error); the reward stays pending "
          + "and will be redelivered on a later start")
      let origin = shared.withLock { $0.rewardOrigins[transactionID] }
      scheduler.execute { [self] in
        for zoneID in origin.map({ [$0.zoneID] }) ?? zoneIDs {
          publish(zoneID, origin?.network, .diagnostic(note))
        }
      }
    }
  }

  /// See ``Mediator/acknowledgeReward(transactionID:)->Bool``.
  func acknowledgeReward(transactionID: String) async throws(MediationError) -> Bool {
    guard let ledger, let ledgerIO else { return false }
    return try await ledgerIO.run { [self] in writeAcknowledgement(transactionID, to: ledger) }
      .mapError { MediationError(.ledgerFailure, "could not acknowledge reward \(transactionID): \($0)") }
      .get()
  }

  /// See ``Mediator/pendingRewards()``.
  func pendingRewards() async throws(MediationError) -> [LedgerEntry] {
    guard let ledger, let ledgerIO else { return [] }
    return try await ledgerIO.run { [self] in
      Result { () throws(LedgerError) in
        let entries = try ledger.pending()
        for entry in entries { rememberOrigin(of: entry) }
        return entries
      }
    }
    .mapError { MediationError(.ledgerFailure, "could not read the pending rewards: \($0)") }
    .get()
  }

  /// Acknowledges `transactionID` in `ledger`, on the ledger queue.
  private func writeAcknowledgement(_ transactionID: String, to ledger: any RewardLedger) -> Result<
    Bool, LedgerError
  > {
    Result { () throws(LedgerError) in
      let wasPending = try ledger.acknowledge(transactionID: transactionID)
      shared.withLock { $0.rewardOrigins[transactionID] = nil }
      return wasPending
    }
  }

  /// Notes `entry`'s zone and network for the diagnostic of a failed acknowledgement.
  private func rememberOrigin(of entry: LedgerEntry) {
    shared.withLock { $0.rewardOrigins[entry.reward.transactionID] = (entry.zoneID, entry.reward.network) }
  }

  /// Delivers every reward the ledger still holds from an earlier run, marked as a redelivery;
  /// called from an action at start, so a reward the app acknowledged before the executor yielded
  /// is not delivered again.
  ///
  /// The ledger is read, and each redelivery counted, where ``MediatorOptions/ledgerQueue``
  /// says; the rewards are published back on the executor. If the ledger cannot be read, every
  /// zone in `zoneIDs` gets a ``RewardedAdEvent/Diagnostic/Kind/ledgerReadFailed`` diagnostic instead.
  func redeliverPendingRewards(zoneIDs: [String]) {
    guard let ledger, let ledgerIO else { return }
    typealias Redelivery = (entry: LedgerEntry, uncounted: LedgerError?)
    ledgerIO.perform(on: scheduler) { () -> Result<[Redelivery], LedgerError> in
      do throws(LedgerError) {
        return .success(
          try ledger.pending().map { entry in
            do throws(LedgerError) {
              try ledger.markRedelivered(transactionID: entry.reward.transactionID)
              return (entry, nil)
            } catch {
              return (entry, error)
            }
          })
      } catch {
        return .failure(error)
      }
    } then: { [self] result in
      switch result {
      case .failure(let error):
        let note = RewardedAdEvent.Diagnostic(
          .ledgerReadFailed,
          "the pending rewards of earlier runs were not redelivered: \(error); "
            + "Mediator.pendingRewards() reads them again")
        for zoneID in zoneIDs { publish(zoneID, nil, .diagnostic(note)) }
      case .success(let redeliveries):
        for (entry, uncounted) in redeliveries {
          var reward = entry.reward
          reward.isRedelivery = true
          rememberOrigin(of: entry)
          if let uncounted {
            let note = RewardedAdEvent.Diagnostic(
              .ledgerWriteFailed, "redelivery of \(reward.transactionID) not counted: \(uncounted)")
            publish(entry.zoneID, reward.network, .diagnostic(note))
          }
          publish(entry.zoneID, reward.network, .rewarded(reward))
        }
      }
    }
  }

  /// Publishes a ``RewardedAdEvent/Diagnostic/Kind/configurationApplied`` diagnostic for `zoneID`, on the
  /// executor (a configuration may change on any thread).
  func announce(_ zoneID: String, _ change: String) {
    let note = RewardedAdEvent.Diagnostic(.configurationApplied, change)
    scheduler.execute { [self] in publish(zoneID, nil, .diagnostic(note)) }
  }

  /// Publishes `event` of zone `zoneID`; `arms` are those of the load or ad it belongs to, taken
  /// from the event itself when it carries them (`ready`, `shown`, `revenue_paid`, `rewarded`).
  func publish(
    _ zoneID: String, _ network: NetworkID?, _ event: consuming RewardedAdEvent, arms: [String: String]? = nil
  ) {
    let arms = arms ?? Self.experimentArms(of: event)
    hub.publish(
      Mediator.ZoneEvent(
        time: scheduler.now, zoneID: zoneID, network: network, event: event, experimentArms: arms))
  }

  private static func experimentArms(of event: borrowing RewardedAdEvent) -> [String: String] {
    switch event {
    case .ready(let info), .shown(let info): info.experimentArms
    case .revenuePaid(let revenue): revenue.experimentArms
    case .rewarded(let reward): reward.experimentArms
    default: [:]
    }
  }
}
