import Dispatch

/// A mediator's ``MediatorOptions/LedgerQueue``, resolved for its scheduler.
enum LedgerIO: Sendable {
  /// In the calling action, on the scheduler's executor.
  case inline
  /// Submitted to a serial executor; the completion re-enters on the scheduler.
  case submit(@Sendable (_ work: @escaping @Sendable () -> Void) -> Void)

  init(_ queue: MediatorOptions.LedgerQueue, scheduler: any Scheduler) {
    switch queue.kind {
    case .automatic:
      if scheduler is any VirtualTimeScheduler {
        self = .inline
      } else {
        // User-initiated: the app's reward waits on it, so it must not sit behind bulk work.
        let queue = DispatchQueue(label: "MediationKit.ledger", qos: .userInitiated)
        self = .submit { work in queue.async(execute: work) }
      }
    case .schedulerExecutor: self = .inline
    case .submit(let submit): self = .submit(submit)
    }
  }

  /// Runs `work` where ledger I/O goes, then `completion` with its result on `scheduler`'s
  /// executor: at once when inline, else in a new action once the work is done.
  func perform<Result: Sendable>(
    on scheduler: any Scheduler, _ work: @escaping @Sendable () -> Result,
    then completion: @escaping @Sendable (Result) -> Void
  ) {
    switch self {
    case .inline:
      completion(work())
    case .submit(let submit):
      submit {
        let result = work()
        scheduler.execute { completion(result) }
      }
    }
  }

  /// Runs `work` where ledger I/O goes and returns its result: in the calling task when inline,
  /// else resumed from the ledger queue once the work is done (the scheduler's executor is not
  /// involved, so an awaiting caller on the main actor never holds it up). The work is submitted
  /// before the caller suspends, so it keeps its place behind the work submitted earlier; a
  /// cancelled caller still waits for it.
  func run<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
    switch self {
    case .inline:
      return work()
    case .submit(let submit):
      return await withCheckedContinuation { continuation in
        submit { continuation.resume(returning: work()) }
      }
    }
  }
}

extension MediatorOptions {
  /// Where a mediator does its ledger I/O — recording each reward, reading and counting the
  /// pending rewards at start, and the app's acknowledgements and reads — so that neither the
  /// scheduler's executor nor the app's main thread ever waits on the disk.
  ///
  /// The contract holds wherever the I/O runs: a reward is recorded before its `rewarded` is
  /// published, and the zone's events stay in order. While a reward is being recorded, the zone's
  /// later events (its `closed`, the next `loading`…) are held; when the record completes, back on
  /// the scheduler's executor, `rewarded` is published (after a
  /// ``RewardedAdEvent/Diagnostic/Kind/ledgerWriteFailed`` diagnostic if the record failed), then the held events,
  /// each stamped with the time it happened. Other zones, timers and adapters go on meanwhile.
  public struct LedgerQueue: Sendable {
    enum Kind: Sendable {
      case automatic
      case schedulerExecutor
      case submit(@Sendable (_ work: @escaping @Sendable () -> Void) -> Void)
    }

    let kind: Kind

    /// The default: a private serial background queue of the mediator's, except on a
    /// `VirtualScheduler`, where it is ``schedulerExecutor``.
    ///
    /// A virtual clock moves only when no action is runnable, so I/O on another thread would let it
    /// jump past a reward still being recorded, and a seeded run would no longer give the same
    /// timeline; a virtual scheduler has no main thread to keep free either.
    public static let automatic = MediatorOptions.LedgerQueue(kind: .automatic)

    /// On the scheduler's executor, inside the action that earned the reward: the record completes
    /// before that action goes on, as in a mediator without a background queue. For virtual time
    /// and command-line tools, not for an app whose scheduler runs on the main queue.
    public static let schedulerExecutor = MediatorOptions.LedgerQueue(kind: .schedulerExecutor)

    /// On `queue`, which must be serial (rewards are recorded in the order they were earned).
    public static func dispatch(_ queue: DispatchQueue) -> MediatorOptions.LedgerQueue {
      MediatorOptions.LedgerQueue(kind: .submit { work in queue.async(execute: work) })
    }

    /// On whatever `submit` runs the work on: for tests that hold the I/O and release it.
    ///
    /// - Parameter submit: Runs each work item once, one at a time, in the order submitted (a serial
    ///   executor), off the scheduler's executor or later on it — never inside the call to `submit`.
    public init(submit: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void) {
      self.kind = .submit(submit)
    }

    private init(kind: Kind) { self.kind = kind }
  }
}
