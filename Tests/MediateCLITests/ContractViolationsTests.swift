import Testing

@testable import MediateCLI
@testable import MediationKit

/// `mediate replay` checks the reward contract over the replayed events, session by session; a
/// show still open when the zone's recording ends is no violation (exported while on screen).
@Suite("mediate replay: the reward contract")
struct ContractViolationsTests {
  static func events(_ names: [String], zone: String = "z", session: Int = 1) -> [FlightRecording.Replay
    .Event]
  {
    names.enumerated().map { index, name in
      FlightRecording.Replay.Event(
        zoneID: zone, session: session, time: .milliseconds(index),
        event: RecordedEvent(
          event: name, network: "max", detail: name == "rewarded" ? "100 coins" : nil))
    }
  }

  @Test func aRewardGrantedTwiceIsAViolationNamingTheSession() {
    let violations = RecordedEventFormat.contractViolations(
      Self.events(["loading", "ready", "shown", "rewarded", "rewarded", "closed"]))
    #expect(violations.count == 1)
    #expect(violations.first?.hasPrefix("zone 'z' session 1: ") == true, "\(violations)")
  }

  @Test func aShowOpenAtTheEndOfTheZonesLastSessionIsNoViolation() {
    #expect(RecordedEventFormat.contractViolations(Self.events(["loading", "ready", "shown"])).isEmpty)
    #expect(
      RecordedEventFormat.contractViolations(
        Self.events(["loading", "ready", "shown"]) + Self.events(["loading", "ready", "shown"], zone: "y")
      ).isEmpty, "another zone's session after it does not end this zone's recording")
  }

  @Test func aShowLeftOpenBeforeTheZonesNextSessionIsAViolation() {
    let violations = RecordedEventFormat.contractViolations(
      Self.events(["loading", "ready", "shown"]) + Self.events(["loading", "ready"], session: 2))
    #expect(violations.count == 1)
    #expect(violations.first?.hasPrefix("zone 'z' session 1: ") == true, "\(violations)")
  }
}
