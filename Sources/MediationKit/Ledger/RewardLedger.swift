/// A reward as the ledger keeps it: recorded before the app is told, pending until the app
/// acknowledges that it credited the user.
public struct LedgerEntry: Sendable, Equatable, Codable {
  /// The reward, with its unique transaction id.
  public var reward: Reward
  /// The zone whose show earned it.
  public var zoneID: String
  /// When it was recorded, in milliseconds since 1970 (wall clock, from the mediator's
  /// ``MediatorOptions/wallClockMilliseconds``).
  public var recordedAtMilliseconds: Int64
  /// How many times it has been delivered to the app: 1 after the first delivery, more after
  /// redeliveries on later starts.
  public var deliveries: Int

  /// Creates the entry of `reward`, recorded at `recordedAtMilliseconds` (Unix time).
  public init(reward: Reward, zoneID: String, recordedAtMilliseconds: Int64, deliveries: Int = 1) {
    self.reward = reward
    self.zoneID = zoneID
    self.recordedAtMilliseconds = recordedAtMilliseconds
    self.deliveries = deliveries
  }
}

/// Why the ledger could not do what was asked.
public struct LedgerError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What went wrong, for the log: the operation, the storage's own message, and where.
  public var message: String
  /// Whether the storage failed rather than the ledger's content: a lock another process held past
  /// the busy timeout, a full disk, an I/O error, a file that could not be opened or written —
  /// what may work when tried again. `false` for a file that is not a reward ledger (not a
  /// database, another application's, a newer schema) or an operation the ledger refused.
  public var isStorageFailure: Bool

  /// Creates an error that says `message`.
  public init(_ message: String) {
    self.init(message, isStorageFailure: false)
  }

  /// Creates an error that says `message`, and whether the storage failed.
  public init(_ message: String, isStorageFailure: Bool) {
    self.message = message
    self.isStorageFailure = isStorageFailure
  }

  public var description: String { message }
}

/// Durable storage for earned rewards: at-least-once delivery, exactly-once effect through the
/// transaction id.
///
/// The mediator records every reward **before** it publishes `rewarded`; the app calls
/// ``Mediator/acknowledgeReward(transactionID:)->()`` once it has credited the user. A reward still
/// pending when the app stops (or is killed) is delivered again on the next start, with
/// ``Reward/isRedelivery`` set, until it is acknowledged. The app credits each transaction id once.
///
/// Implementations must be safe to call from any thread, and ``record(_:)`` must not return before
/// the entry is durable (it survives a killed process). The `MediationKitTesting` library has
/// `InMemoryRewardLedger` for tests; the `RewardLedgerSQLite` library stores rewards in SQLite.
///
/// ## Threading: the main thread never waits on the disk
/// The mediator calls ``record(_:)`` once per reward (one synced write), and ``pending()`` and
/// ``markRedelivered(transactionID:)`` once at start, on its ``MediatorOptions/ledgerQueue`` —
/// by default a serial background queue of its own — never on the scheduler's executor (the main
/// queue in an app). The contract holds all the same:
/// - `rewarded` is published only once ``record(_:)`` has returned: the completion re-enters on
///   the scheduler's executor and publishes it there.
/// - A zone's events stay in order: while its reward is being recorded, everything the zone
///   publishes after it (its `closed`, the next `loading`…) is held, then published behind the
///   reward, each stamped with the time it happened. Other zones, timers and adapters go on.
/// - Nothing is lost or doubled: each reward is recorded once, in the order earned (the queue is
///   serial), and published once, after a ``RewardedAdEvent/Diagnostic/Kind/ledgerWriteFailed`` diagnostic if the
///   record failed.
///
/// On a `VirtualScheduler` the default runs the I/O inside the action that earned the reward
/// instead (``MediatorOptions/LedgerQueue/automatic``), so seeded runs stay byte-identical. Without a ledger
/// nothing of this runs.
///
/// The app's calls use the same queue. ``Mediator/acknowledgeReward(transactionID:)->()`` (and
/// ``RewardedAd/acknowledge(_:)->()``) submits ``acknowledge(transactionID:)`` behind the records
/// submitted before it and returns at once — safe on the main actor; a failed write gives the
/// reward's zone a ``RewardedAdEvent/Diagnostic/Kind/ledgerWriteFailed`` diagnostic and leaves the reward pending,
/// to be redelivered. Their `async` forms, and ``Mediator/pendingRewards()``, run there too and
/// resume the awaiting task with the result.
public protocol RewardLedger: Sendable {
  /// Records a new reward as pending. Recording a transaction id that is already there is an
  /// error (ids are unique).
  func record(_ entry: LedgerEntry) throws(LedgerError)

  /// The rewards not acknowledged yet, oldest first (by recording time, then transaction id).
  func pending() throws(LedgerError) -> [LedgerEntry]

  /// Counts one more delivery of a pending reward (a redelivery on start).
  func markRedelivered(transactionID: String) throws(LedgerError)

  /// Marks a reward credited, so it is never delivered again.
  ///
  /// - Returns: `true` if the reward was pending; `false` if it was already acknowledged or is
  ///   unknown (acknowledging twice is harmless).
  @discardableResult
  func acknowledge(transactionID: String) throws(LedgerError) -> Bool
}
