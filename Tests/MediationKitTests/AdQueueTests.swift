import Testing

@testable import MediationKit

/// The zone's queue of ready ads as a pure value: every input in every state, the show's choice
/// (best price, then the earliest expiry, then the oldest) and each ad's own expiry.
@Suite("AdQueue")
struct AdQueueTests {
  private final class QueuedAd: AdapterAd {
    func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignal.Sink) {}
    func discard() {}
  }

  static let now = Duration.seconds(100)
  static let reason = AdapterWithdrawal(.expired, message: "gone")

  static func ad(loadID: Int = 7, expiresAt: Duration = now + .seconds(60), ecpm: Double = 10)
    -> ReadyAd
  {
    ReadyAd(
      info: AdInfo(zoneID: "z", network: "n", placementID: "p", ecpm: ecpm, responses: [], latency: .zero),
      loaded: AdapterLoadedAd(ad: QueuedAd()), expiresAt: expiresAt, networkReportsRevenue: false,
      request: RequestID(load: loadID, entry: 0))
  }

  static func queue(_ ads: ReadyAd..., leaving why: AdQueue.Empty? = nil) -> AdQueue {
    var queue = AdQueue()
    if let why {
      let gone = ad(loadID: 1)
      queue.append(gone)
      queue.take(gone, leaving: why)
    }
    for ad in ads { queue.append(ad) }
    return queue
  }

  /// Every state a queue of one can be in, by name (as the zone's one ad at depth 1).
  static func states() -> [(String, AdQueue)] {
    [
      ("ready", queue(ad())), ("readyPastExpiry", queue(ad(expiresAt: now))),
      ("notLoaded", AdQueue()),
      ("shown", queue(leaving: .shown)), ("expired", queue(leaving: .expired)),
      ("withdrawn", queue(leaving: .withdrawn(reason))),
    ]
  }

  @Test func showIsAllowedOnlyWithAnUnexpiredAdAndOtherwiseSaysWhy() {
    var outcomes: [String: String] = [:]
    for (name, queue) in Self.states() {
      for loading in [false, true] {
        let outcome: String
        do {
          _ = try queue.showable(zoneID: "z", now: Self.now, loading: loading)
          outcome = "ok"
        } catch {
          outcome = "\(error.code.rawValue): \(error.message)"
        }
        outcomes["\(name)\(loading ? "+loading" : "")"] = outcome
      }
    }
    #expect(
      outcomes == [
        "ready": "ok", "ready+loading": "ok",
        "readyPastExpiry": "expired: zone 'z': its ad expired before it was shown",
        "readyPastExpiry+loading": "expired: zone 'z': its ad expired before it was shown",
        "notLoaded": "not_ready: zone 'z': no ad loaded",
        "notLoaded+loading": "not_ready: zone 'z': still loading",
        "shown": "already_used: zone 'z': its ad was already shown; load a new one",
        "shown+loading": "already_used: zone 'z': its ad was already shown; load a new one",
        "expired": "expired: zone 'z': its ad expired before it was shown",
        "expired+loading": "expired: zone 'z': its ad expired before it was shown",
        "withdrawn":
          "expired: zone 'z': the network withdrew its ad before it was shown (expired: gone); load a new one",
        "withdrawn+loading":
          "expired: zone 'z': the network withdrew its ad before it was shown (expired: gone); load a new one",
      ])
  }

  @Test func takingTheAdLeavesTheReasonAndAnAbsentAdLeavesTheQueueUnchanged() {
    for (name, queue) in Self.states() {
      for why in [AdQueue.Empty.shown, .expired, .withdrawn(Self.reason)] {
        var taken = queue
        if let ad = queue.ads.first {
          let took = taken.take(ad, leaving: why)
          #expect(took, "\(name)")
          #expect(taken.isEmpty && taken.lastGone == why, "\(name)")
        }
        var other = queue
        let took = other.take(Self.ad(), leaving: why)
        #expect(!took, "\(name)")
        #expect(
          other.ads.map(\.loadID) == queue.ads.map(\.loadID) && other.lastGone == queue.lastGone, "\(name)")
      }
    }
  }

  @Test func aWithdrawalTakesOnlyTheAdOfTheLoadItNames() {
    for (name, queue) in Self.states() {
      var named = queue
      let taken = named.withdraw(loadID: 7, reason: Self.reason)
      #expect((taken != nil) == !queue.isEmpty, "\(name)")
      if !queue.isEmpty { #expect(named.lastGone == .withdrawn(Self.reason), "\(name)") }

      var other = queue
      #expect(other.withdraw(loadID: 8, reason: Self.reason) == nil, "\(name)")
      #expect(other.ads.map(\.loadID) == queue.ads.map(\.loadID), "\(name)")
      #expect(other.lastGone == queue.lastGone, "\(name)")
    }
  }

  @Test func aShowTakesTheBestPricedUnexpiredAdThenTheOneExpiringFirstThenTheOldest() {
    let later = Self.now + .seconds(90)
    let sooner = Self.now + .seconds(30)
    // The best price wins whatever its age or expiry.
    #expect(
      Self.queue(Self.ad(loadID: 1, ecpm: 5), Self.ad(loadID: 2, ecpm: 9)).best(now: Self.now)?.loadID == 2)
    #expect(
      Self.queue(Self.ad(loadID: 1, ecpm: 9), Self.ad(loadID: 2, ecpm: 5)).best(now: Self.now)?.loadID == 1)
    // Equal prices: the one that expires first.
    let tie = Self.queue(Self.ad(loadID: 1, expiresAt: later), Self.ad(loadID: 2, expiresAt: sooner))
    #expect(tie.best(now: Self.now)?.loadID == 2)
    // Equal prices and expiries: the oldest.
    let twins = Self.queue(Self.ad(loadID: 3), Self.ad(loadID: 1), Self.ad(loadID: 2))
    #expect(twins.best(now: Self.now)?.loadID == 3)
    // An ad past its expiry is skipped however well it pays.
    let stale = Self.queue(Self.ad(loadID: 1, expiresAt: Self.now, ecpm: 50), Self.ad(loadID: 2, ecpm: 1))
    #expect(stale.best(now: Self.now)?.loadID == 2)
    #expect(stale.unexpiredCount(now: Self.now) == 1)
    #expect((try? stale.showable(zoneID: "z", now: Self.now, loading: false))?.loadID == 2)
  }

  @Test func eachAdExpiresOnItsOwnInExpiryOrder() {
    var queue = Self.queue(
      Self.ad(loadID: 1, expiresAt: Self.now + .seconds(30)),
      Self.ad(loadID: 2, expiresAt: Self.now + .seconds(10)),
      Self.ad(loadID: 3, expiresAt: Self.now + .seconds(20)),
      Self.ad(loadID: 4, expiresAt: Self.now + .seconds(10)))
    #expect(queue.earliestExpiry == Self.now + .seconds(10))
    // Ads expiring together leave together, oldest first; the others stay.
    #expect(queue.expire(now: Self.now + .seconds(10)).map(\.loadID) == [2, 4])
    #expect(queue.ads.map(\.loadID) == [1, 3])
    #expect(queue.earliestExpiry == Self.now + .seconds(20))
    // The timer may fire a fraction short of the expiry it was armed for: that ad still goes.
    #expect(queue.expire(now: Self.now + .seconds(20) - .nanoseconds(1)).map(\.loadID) == [3])
    // A late timer takes every ad past its expiry.
    var late = Self.queue(
      Self.ad(loadID: 1, expiresAt: Self.now + .seconds(30)),
      Self.ad(loadID: 2, expiresAt: Self.now + .seconds(10)))
    #expect(late.expire(now: Self.now + .seconds(40)).map(\.loadID) == [2, 1])
    #expect(late.isEmpty && late.lastGone == .expired && late.earliestExpiry == nil)
    var empty = AdQueue()
    #expect(empty.expire(now: Self.now).isEmpty && empty.lastGone == .notLoaded)
  }

  @Test func aConfigurationWithdrawalTakesTheAdsItNamesAndKeepsTheOthers() {
    var queue = Self.queue(Self.ad(loadID: 1), Self.ad(loadID: 2), Self.ad(loadID: 3))
    let withdrawn = queue.withdraw { $0.loadID == 2 ? Self.reason : nil }
    #expect(withdrawn.map(\.ad.loadID) == [2])
    #expect(queue.ads.map(\.loadID) == [1, 3])
    #expect(queue.lastGone == .withdrawn(Self.reason))
    let none = queue.withdraw { _ in nil }
    #expect(none.isEmpty && queue.ads.count == 2)
    let all = queue.takeAll(leaving: .shown)
    #expect(all.map(\.loadID) == [1, 3] && queue.isEmpty && queue.lastGone == .shown)
  }
}
