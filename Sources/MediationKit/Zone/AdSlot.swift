/// The zone's one ad: ready to show, or none and why (the reason ``ZoneController/show(from:customData:)``
/// gives). One enum, so a ready ad can never also carry a reason for having none.
enum AdSlot {
  case ready(ZoneController.ReadyAd)
  case empty(Empty)

  /// Why the zone has no ad.
  enum Empty: Equatable {
    case notLoaded
    case shown
    case expired
    /// The network withdrew it before it was shown.
    case withdrawn(AdapterWithdrawal)
  }

  var ready: ZoneController.ReadyAd? {
    if case .ready(let ad) = self { ad } else { nil }
  }

  /// The ad a show at `now` may use, or why there is none; `loading` tells "still loading" from
  /// "no ad loaded". The slot is unchanged: a show takes the ad with ``take(leaving:)``.
  func showable(zoneID: String, now: Duration, loading: Bool) throws(MediationError) -> ZoneController.ReadyAd
  {
    switch self {
    case .ready(let ad) where ad.expiresAt > now:
      return ad
    case .ready, .empty(.expired):
      throw MediationError(.expired, "zone '\(zoneID)': its ad expired before it was shown")
    case .empty(.shown):
      throw MediationError(.alreadyUsed, "zone '\(zoneID)': its ad was already shown; load a new one")
    case .empty(.withdrawn(let reason)):
      throw MediationError(
        .expired,
        "zone '\(zoneID)': the network withdrew its ad before it was shown (\(reason)); load a new one")
    case .empty(.notLoaded):
      throw MediationError(.notReady, "zone '\(zoneID)': \(loading ? "still loading" : "no ad loaded")")
    }
  }

  /// Takes the ready ad out, leaving `why`; `nil` (and the slot unchanged) when none is ready.
  mutating func take(leaving why: Empty) -> ZoneController.ReadyAd? {
    guard case .ready(let ad) = self else { return nil }
    self = .empty(why)
    return ad
  }

  /// Takes the ready ad out as withdrawn for `reason` if load `loadID` made it.
  mutating func withdraw(loadID: Int, reason: AdapterWithdrawal) -> ZoneController.ReadyAd? {
    guard ready?.loadID == loadID else { return nil }
    return take(leaving: .withdrawn(reason))
  }
}
