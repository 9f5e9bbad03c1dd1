import Foundation

/// What every zone of one mediator shares: the clock, the adapters and their start-up status,
/// the full-screen gate, the event hub, privacy signals and the random stream.
final class EngineContext: Sendable {
  let scheduler: any Scheduler
  let options: MediatorOptions
  /// The adapters, by network id, as they stand now: adapters can be registered and unregistered
  /// while the mediator runs (``NetworkStarts/add(_:adapter:)``).
  var adapters: [NetworkID: any RewardedAdapter] { starts.adapters }
  /// Where rewards are recorded before the app is told; `nil` for none.
  let ledger: (any RewardLedger)?
  /// Where the ledger is written and read (``MediatorOptions/ledgerQueue``); `nil` without one.
  private let ledgerIO: LedgerIO?
  /// Each zone's events held behind its rewards being recorded (the hub consults it); `nil`
  /// without a ledger, so publishing then costs one check and nothing else.
  private let hold: RecordingHold?
  /// The zone and network of each reward delivered or listed in this run and not acknowledged
  /// yet, so a failed acknowledgement is reported on the reward's zone.
  private let rewardOrigins = Locked<[String: (zoneID: String, network: NetworkID)]>([:])
  let hub: EventHub
  let fullScreen = FullScreenGate()
  private let random: Locked<SeededRandom>
  private let auctionCounter = Locked(0)
  /// Each network's start-up, and the requests waiting for it.
  let starts: NetworkStarts
  private let privacySettings = Locked(PrivacySettings())
  /// The zones of the configuration in use, for the error a removed zone's load gets.
  private let activeZones = Locked<[String]>([])
  private let userIDStorage = Locked<String?>(nil)

  init(
    scheduler: any Scheduler, options: MediatorOptions, adapters: [NetworkID: any RewardedAdapter],
    ledger: (any RewardLedger)? = nil
  ) {
    self.scheduler = scheduler
    self.ledger = ledger
    self.ledgerIO = ledger.map { _ in LedgerIO(options.ledgerQueue, scheduler: scheduler) }
    let hold = ledger.map { _ in RecordingHold() }
    self.hold = hold
    self.hub = EventHub(hold: hold)
    self.options = options
    self.random = Locked(SeededRandom(seed: options.seed).derived("mediator"))
    self.starts = NetworkStarts(
      adapters: adapters, modes: options.networkStarts, timeout: options.startTimeout, scheduler: scheduler)
  }

  /// A new unique reward transaction id, from ``MediatorOptions/transactionIDs``.
  func nextTransactionID() -> String {
    switch options.transactionIDs {
    case .systemRandom: UUID().uuidString
    case .seeded: random.withLock { $0.uuidString() }
    }
  }

  /// A new auction id: 1, 2, 3… in the order loads start, so the same run gives the same ids.
  func nextAuctionID() -> UInt64 {
    UInt64(auctionCounter.increment())
  }

  /// The id of the auction started last (0 before the first).
  var lastAuctionID: UInt64 { UInt64(auctionCounter.get()) }

  var privacy: PrivacySettings {
    get { privacySettings.withLock { $0 } }
    set { privacySettings.withLock { $0 = newValue } }
  }

  /// The app's id for the user, forwarded with each show (checked by ``Mediator/setUserID(_:)``).
  var userID: String? {
    get { userIDStorage.withLock { $0 } }
    set { userIDStorage.withLock { $0 = newValue } }
  }

  /// The zones of the configuration in use, in its order.
  func zoneIDs() -> [String] { activeZones.withLock { $0 } }

  func setZoneIDs(_ ids: [String]) { activeZones.withLock { $0 = ids } }

  // MARK: Adapter start-up

  var adapterStatuses: [Mediator.AdapterStatus] { starts.statuses }

  /// Starts every adapter that starts at launch, at once, each with the start timeout.
  func startAdapters(placements: [NetworkID: [String]]) {
    starts.launch(placements: placements)
  }

  /// Records `reward` in the ledger, then publishes it: the app is told only once it is durable.
  /// If the ledger cannot record it, the reward is still delivered, after a diagnostic saying so.
  ///
  /// The record runs where ``MediatorOptions/ledgerQueue`` says, not on the executor; until it
  /// completes (back on the executor), the zone's later events are held behind the reward.
  func publishReward(_ reward: Reward, zoneID: String) {
    guard let ledger, let ledgerIO, let hold else {
      publish(zoneID, reward.network, .rewarded(reward))
      return
    }
    let entry = LedgerEntry(
      reward: reward, zoneID: zoneID, recordedAtMilliseconds: options.wallClockMilliseconds())
    let time = scheduler.now
    let ticket = hold.beginRecording(zoneID: zoneID)
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
      hold.recorded(ticket, zoneID: zoneID, events: events)
      while let event = hold.nextReady(zoneID: zoneID) { hub.deliver(event) }
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
      let origin = rewardOrigins.withLock { $0[transactionID] }
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
      _ = rewardOrigins.withLock { $0.removeValue(forKey: transactionID) }
      return wasPending
    }
  }

  /// Notes `entry`'s zone and network for the diagnostic of a failed acknowledgement.
  private func rememberOrigin(of entry: LedgerEntry) {
    rewardOrigins.withLock { $0[entry.reward.transactionID] = (entry.zoneID, entry.reward.network) }
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

/// Lets one full-screen ad up at a time, across every zone of a mediator.
final class FullScreenGate: Sendable {
  private let holder = Locked<String?>(nil)

  /// Takes the screen for `zoneID`; `false` when another zone holds it.
  func acquire(_ zoneID: String) -> Bool {
    holder.withLock { holder in
      guard holder == nil else { return false }
      holder = zoneID
      return true
    }
  }

  func release(_ zoneID: String) {
    holder.withLock { holder in if holder == zoneID { holder = nil } }
  }

  var current: String? { holder.withLock { $0 } }
}
