import MediationKit

/// The adapter API 2.0 withdrawal sink, which 2.1 deprecates for the one sink per loaded ad, used
/// as 2.0 adapter code and tests used it.
enum AdapterAPI2Withdrawals {
  /// An adapter keeping its load's withdrawal sink and withdrawing the ad through it.
  static func adapter(_ request: AdapterLoadRequest) {
    let withdrawals: AdapterWithdrawal.Sink = request.withdrawals
    withdrawals.withdrawn(AdapterWithdrawal(.expired, message: "expired after 1 h"))
  }

  /// A test giving a request a sink of its own, and the sink of a request built outside the core.
  static func test(_ request: inout AdapterLoadRequest) -> AdapterWithdrawal.Sink {
    request.withdrawals = AdapterWithdrawal.Sink { _ in }
    return .ignored
  }
}
