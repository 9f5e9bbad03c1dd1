/// The reward ledger, from the app's side: acknowledging what it credited, reading what is pending.
extension Mediator {
  /// Tells the ledger the app has credited the reward with `transactionID`, so it is never
  /// delivered again. Call it once the reward is safely stored on your side (your database or
  /// server), for first deliveries and redeliveries alike — from the main actor too: it never
  /// touches the disk on the calling thread.
  ///
  /// The write goes to ``MediatorOptions/ledgerQueue``, behind every reward recorded before it
  /// (an acknowledgement never overtakes the record of its reward), and the call returns at once;
  /// on a `VirtualScheduler`, whose ledger I/O runs inline, it returns once the write is done.
  /// If the write fails, the reward's zone gets a ``RewardedAdEvent/Diagnostic/Kind/ledgerWriteFailed``
  /// diagnostic: the reward stays pending and is redelivered on a later start, which is harmless
  /// since the app credits each transaction id once. Acknowledging twice, an unknown id, or a
  /// mediator without a ledger, does nothing. For the result, `try await` the async form.
  public func acknowledgeReward(transactionID: String) {
    context.acknowledgeReward(transactionID: transactionID, zoneIDs: config.zones.map(\.id))
  }

  /// Acknowledges the reward with `transactionID` on ``MediatorOptions/ledgerQueue``, like the
  /// synchronous form, and returns once the write is done. Cancelling the awaiting task does not
  /// cancel the write.
  ///
  /// - Returns: `true` if the reward was pending; `false` if it was already acknowledged, is
  ///   unknown, or the mediator has no ledger.
  /// - Throws: ``MediationError`` `ledgerFailure` when the ledger cannot write; the reward stays
  ///   pending and will be redelivered.
  @discardableResult
  public func acknowledgeReward(transactionID: String) async throws(MediationError) -> Bool {
    try await context.acknowledgeReward(transactionID: transactionID)
  }

  /// The rewards recorded but not acknowledged yet, oldest first — for an app that could not
  /// take the start-up redelivery (its observer came later, or the reward's zone is no longer in
  /// the configuration) and credits them itself; acknowledge each one it credits. Empty without
  /// a ledger. Read on ``MediatorOptions/ledgerQueue``, never on the calling thread (a tool that
  /// wants a synchronous read owns the ledger and calls ``RewardLedger/pending()`` itself).
  ///
  /// - Throws: ``MediationError`` `ledgerFailure` when the ledger cannot be read.
  public func pendingRewards() async throws(MediationError) -> [LedgerEntry] {
    try await context.pendingRewards()
  }
}
