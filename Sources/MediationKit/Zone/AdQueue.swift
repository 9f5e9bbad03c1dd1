/// The zone's ready ads, up to its `queueDepth`, each with its own expiry; and, when none is
/// left, why (the reason ``ZoneMachine/show(customData:screen:now:_:)`` gives). A pure value: the
/// controller passes `now`, and arms the zone's one expiry timer at ``earliestExpiry``.
///
/// An ad stays here past its expiry until the expiry timer takes it out (``expire(now:)``), so the
/// `expired` event is published once, by the timer; a show or a load request skips it.
struct AdQueue {
  /// Why the zone has no ad: what became of the ad that left last.
  enum Empty: Equatable {
    case notLoaded
    case shown
    case expired
    /// The network withdrew it (or a configuration change did) before it was shown.
    case withdrawn(AdapterWithdrawal)
  }

  /// The ready ads, oldest first (each load makes at most one, so a load id names one).
  private(set) var ads: [ReadyAd] = []
  /// What became of the ad that left last; `notLoaded` before any did.
  private(set) var lastGone = Empty.notLoaded

  var isEmpty: Bool { ads.isEmpty }

  /// How many ads a show at `now` could still use.
  func unexpiredCount(now: Duration) -> Int {
    var count = 0
    for ad in ads where ad.expiresAt > now { count += 1 }
    return count
  }

  /// The ad a show at `now` takes: the best-priced unexpired one; on equal eCPMs the one that
  /// expires first (it has the least time left to earn), then the oldest.
  func best(now: Duration) -> ReadyAd? {
    var best: ReadyAd?
    // Oldest first, and only a strictly better ad replaces the one found: ties keep the oldest.
    for ad in ads where ad.expiresAt > now {
      guard let current = best else {
        best = ad
        continue
      }
      if ad.info.ecpm > current.info.ecpm
        || (ad.info.ecpm == current.info.ecpm && ad.expiresAt < current.expiresAt)
      {
        best = ad
      }
    }
    return best
  }

  /// When the ad that expires first does; `nil` when the queue is empty.
  var earliestExpiry: Duration? { ads.lazy.map(\.expiresAt).min() }

  /// The ad a show at `now` may use (``best(now:)``), or why there is none; `loading` tells
  /// "still loading" from "no ad loaded". The queue is unchanged: a show takes the ad with
  /// ``take(_:leaving:)``.
  func showable(zoneID: String, now: Duration, loading: Bool) throws(MediationError) -> ReadyAd {
    if let ad = best(now: now) { return ad }
    // Ads left past their expiry: the timer about to take them out will say `expired`.
    throw Self.refusal(ads.isEmpty ? lastGone : .expired, zoneID: zoneID, loading: loading)
  }

  private static func refusal(_ why: Empty, zoneID: String, loading: Bool) -> MediationError {
    switch why {
    case .expired:
      MediationError(.expired, "zone '\(zoneID)': its ad expired before it was shown")
    case .shown:
      MediationError(.alreadyUsed, "zone '\(zoneID)': its ad was already shown; load a new one")
    case .withdrawn(let reason):
      MediationError(
        .expired,
        "zone '\(zoneID)': the network withdrew its ad before it was shown (\(reason)); load a new one")
    case .notLoaded:
      MediationError(.notReady, "zone '\(zoneID)': \(loading ? "still loading" : "no ad loaded")")
    }
  }

  /// Adds a fill.
  mutating func append(_ ad: ReadyAd) { ads.append(ad) }

  /// Notes an ad that went away before it was ever queued (withdrawn before its fill was stored).
  mutating func lost(_ why: Empty) { lastGone = why }

  /// Takes `ad` out, leaving `why`; `false` (and the queue unchanged) when it is not here.
  @discardableResult
  mutating func take(_ ad: ReadyAd, leaving why: Empty) -> Bool {
    guard let index = ads.firstIndex(where: { $0 === ad }) else { return false }
    ads.remove(at: index)
    lastGone = why
    return true
  }

  /// Takes every ad out, leaving `why`; oldest first.
  mutating func takeAll(leaving why: Empty) -> [ReadyAd] {
    guard !ads.isEmpty else { return [] }
    defer {
      ads.removeAll()
      lastGone = why
    }
    return ads
  }

  /// Takes out the ads `reason` gives a reason for, leaving `withdrawn`; oldest first.
  mutating func withdraw(where reason: (ReadyAd) -> AdapterWithdrawal?) -> [(
    ad: ReadyAd, reason: AdapterWithdrawal
  )] {
    var withdrawn: [(ad: ReadyAd, reason: AdapterWithdrawal)] = []
    ads.removeAll { ad in
      guard let why = reason(ad) else { return false }
      withdrawn.append((ad, why))
      return true
    }
    if let last = withdrawn.last { lastGone = .withdrawn(last.reason) }
    return withdrawn
  }

  /// Takes out load `loadID`'s ad as withdrawn for `reason`; `nil` when it is not here.
  mutating func withdraw(loadID: Int, reason: AdapterWithdrawal) -> ReadyAd? {
    guard let ad = ads.first(where: { $0.loadID == loadID }) else { return nil }
    take(ad, leaving: .withdrawn(reason))
    return ad
  }

  /// The expiry timer fired: takes out the ad that expires first (the timer was armed for it, and
  /// a clock counting whole nanoseconds may stand a fraction short of its expiry) and every other
  /// one past its expiry at `now`; in expiry order.
  mutating func expire(now: Duration) -> [ReadyAd] {
    guard let first = earliestExpiry else { return [] }
    var expired: [ReadyAd] = []
    ads.removeAll { ad in
      guard ad.expiresAt <= max(now, first) else { return false }
      expired.append(ad)
      return true
    }
    lastGone = .expired
    // Stable: ads expiring together leave oldest first.
    return expired.enumerated().sorted {
      ($0.element.expiresAt, $0.offset) < ($1.element.expiresAt, $1.offset)
    }
    .map(\.element)
  }
}
