import Testing

@testable import MediationKit

/// The zone's ad slot as a pure value: every input in every state.
@Suite("AdSlot")
struct AdSlotTests {
  private final class SlotAd: AdapterAd {
    func show(_ request: AdapterShowRequest, from presenter: any AdPresenting, signals: AdapterSignalSink) {}
    func discard() {}
  }

  static let now = Duration.seconds(100)
  static let reason = AdapterWithdrawal(.expired, message: "gone")

  static func ad(loadID: Int = 7, expiresAt: Duration = now + .seconds(60)) -> ZoneController.ReadyAd {
    ZoneController.ReadyAd(
      info: AdInfo(zoneID: "z", network: "n", placementID: "p", ecpm: 10, responses: [], latency: .zero),
      loaded: AdapterLoadedAd(ad: SlotAd()), expiresAt: expiresAt, networkReportsRevenue: false,
      loadID: loadID)
  }

  /// Every state a slot can be in, by name.
  static func states() -> [(String, AdSlot)] {
    [
      ("ready", .ready(ad())), ("readyPastExpiry", .ready(ad(expiresAt: now))),
      ("notLoaded", .empty(.notLoaded)),
      ("shown", .empty(.shown)), ("expired", .empty(.expired)), ("withdrawn", .empty(.withdrawn(reason))),
    ]
  }

  static func empty(_ slot: AdSlot) -> AdSlot.Empty? {
    if case .empty(let why) = slot { return why }
    return nil
  }

  @Test func showIsAllowedOnlyWithAnUnexpiredAdAndOtherwiseSaysWhy() {
    var outcomes: [String: String] = [:]
    for (name, slot) in Self.states() {
      for loading in [false, true] {
        let outcome: String
        do {
          _ = try slot.showable(zoneID: "z", now: Self.now, loading: loading)
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

  @Test func takingTheAdLeavesTheReasonAndAnEmptySlotIsUnchanged() {
    for (name, slot) in Self.states() {
      for why in [AdSlot.Empty.shown, .expired, .withdrawn(Self.reason)] {
        var taken = slot
        let ad = taken.take(leaving: why)
        if slot.ready != nil {
          #expect(ad === slot.ready, "\(name)")
          #expect(Self.empty(taken) == why, "\(name)")
        } else {
          #expect(ad == nil, "\(name)")
          #expect(Self.empty(taken) == Self.empty(slot), "\(name)")
        }
      }
    }
  }

  @Test func aWithdrawalTakesOnlyTheAdOfTheLoadItNames() {
    for (name, slot) in Self.states() {
      var named = slot
      let taken = named.withdraw(loadID: 7, reason: Self.reason)
      #expect((taken != nil) == (slot.ready != nil), "\(name)")
      if slot.ready != nil { #expect(Self.empty(named) == .withdrawn(Self.reason), "\(name)") }

      var other = slot
      #expect(other.withdraw(loadID: 8, reason: Self.reason) == nil, "\(name)")
      #expect(other.ready === slot.ready, "\(name)")
      #expect(Self.empty(other) == Self.empty(slot), "\(name)")
    }
  }
}
