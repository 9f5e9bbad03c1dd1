import Foundation
import MediateCLI
import RewardCallbacks
import Testing

@testable import ReplayGuardPostgres

/// `mediate verify-callback --seen postgres://…`: the replay guard a fleet of servers shares.
/// Tests that need a server read `MEDIATIONKIT_TEST_POSTGRES_URL` (`.ci/run` starts a throw-away
/// cluster with scripts/postgres-test-cluster.sh) and are skipped, saying so, without it.
@Suite("mediate verify-callback --seen postgres://…")
struct VerifyCallbackPostgresTests {
  static let database = ProcessInfo.processInfo.environment["MEDIATIONKIT_TEST_POSTGRES_URL"]
  static let unavailable = Comment(
    rawValue:
      "needs a PostgreSQL server: MEDIATIONKIT_TEST_POSTGRES_URL is not set (.ci/run starts a throw-away one "
      + "with scripts/postgres-test-cluster.sh)")

  /// A MAX callback with an event id no other test or run uses.
  static func freshCallback() -> (url: String, eventID: String) {
    let eventID = (UUID().uuidString + UUID().uuidString).lowercased().filter(\.isHexDigit).prefix(40)
    let url = MaxCallbackTemplate.standard.expand(
      VerifyCallbackCommandTests.maxValues(eventID: String(eventID)),
      eventKey: VerifyCallbackCommandTests.eventKey)
    return (url, String(eventID))
  }

  static func verify(_ url: String, seen: String, timeout: String? = nil) -> (
    code: Int32, out: [String], err: [String]
  ) {
    mediate(
      ["verify-callback", "--network", "max", "--key", VerifyCallbackCommandTests.eventKey, "--seen", seen]
        + (timeout.map { ["--seen-timeout", $0] } ?? []) + [url])
  }

  @Test(.enabled(if: database != nil, unavailable))
  func aCallbackVerifiedTwiceIsAReplayTheSecondTime() throws {
    let (url, eventID) = Self.freshCallback()
    #expect(Self.verify(url, seen: Self.database!).code == 0)
    let second = Self.verify(url, seen: Self.database!)
    #expect(second.code == 1)
    #expect(
      second.err == [
        "Rejected (replayed): event id \(eventID) was already accepted; a reward is granted once"
      ])
  }

  /// Twenty `mediate` processes — twenty servers — verify one callback at once: one accepts it.
  @Test(.enabled(if: database != nil, unavailable))
  func twentyProcessesVerifyingOneCallbackAcceptItExactlyOnce() throws {
    let (url, _) = Self.freshCallback()
    let arguments = [
      "verify-callback", "--network", "max", "--key", VerifyCallbackCommandTests.eventKey, "--seen",
      Self.database!, url,
    ]
    let outcomes = try VerifyCallbackSeenTests.runAtOnce(arguments, processes: 20)
    #expect(outcomes.filter { $0.0 == 0 }.count == 1, "\(outcomes)")
    let refused = outcomes.filter { $0.0 != 0 }
    #expect(
      refused.allSatisfy { $0.0 == 1 && $0.1.hasPrefix("Rejected (replayed): event id ") }, "\(refused)")
  }

  /// Another session holds the id's row lock past `--seen-timeout`: the server cancels the claim,
  /// and the callback exits 74 (retry), not 0 and not 1 (replayed); the retry is accepted.
  @Test(.enabled(if: database != nil, unavailable))
  func aClaimThatTimesOutExitsSeventyFour() throws {
    let (url, eventID) = Self.freshCallback()
    // The table, in case this test runs first.
    _ = try PostgresReplayGuard(url: Self.database!, maximumConnections: 1)
    let other = try PostgresConnection(
      conninfo: Self.database!, connectTimeoutSeconds: 5, tcpUserTimeoutMilliseconds: 5_000)
    try other.execute("BEGIN")
    try other.execute(
      "INSERT INTO \(PostgresReplayGuard.defaultTable) (network, id, claimed_at_ms, claim_token) "
        + "VALUES ('max', $1, 0, 'other')", [eventID])
    let timedOut = Self.verify(url, seen: Self.database!, timeout: "100")
    #expect(timedOut.code == 74)
    #expect(timedOut.out.isEmpty)
    let message = try #require(timedOut.err.first)
    #expect(message.hasPrefix("Error: event id \(eventID) could not be checked for a replay: claim failed"))
    #expect(message.contains("canceling statement due to statement timeout"))
    try other.execute("ROLLBACK")
    #expect(Self.verify(url, seen: Self.database!).code == 0)
  }

  @Test func anUnreachableDatabaseExitsSeventyFour() {
    let unreachable = "postgresql:///mediationkit?host=/nonexistent-mediationkit-socket-dir&port=1"
    let result = Self.verify(Self.freshCallback().url, seen: unreachable, timeout: "1000")
    #expect(result.code == 74)
    #expect(
      result.err.first?.hasPrefix("Error: --seen: connect (to open) failed on the replay guard at postgres ")
        == true)
    #expect(
      result.err.first?.hasSuffix(
        "nothing was recorded, so it can be verified again once the replay guard's storage works") == true)
  }

  @Test func anInvalidURLExitsSixtyFive() {
    let result = Self.verify(Self.freshCallback().url, seen: "postgresql://%zz/db")
    #expect(result.code == 65)
    #expect(
      result.err.first?.hasPrefix("Error: --seen: the PostgreSQL URL is not valid (") == true, "\(result.err)"
    )
  }
}
