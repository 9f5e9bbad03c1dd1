import Dispatch
import Foundation
import MediationKit
import RewardCallbacks
import StoreTestSupport
import Testing

@testable import ReplayGuardPostgres

/// The PostgreSQL server the tests use. `.ci/run` starts a throw-away cluster
/// (`scripts/postgres-test-cluster.sh`) and exports its URL; without it the tests that need a
/// server are skipped, and say why.
enum TestDatabase {
  static let environment = ProcessInfo.processInfo.environment
  static let url = environment["MEDIATIONKIT_TEST_POSTGRES_URL"]
  static let unavailable = Comment(
    rawValue:
      "needs a PostgreSQL server: MEDIATIONKIT_TEST_POSTGRES_URL is not set (.ci/run starts a throw-away one "
      + "with scripts/postgres-test-cluster.sh; run `eval \"$(scripts/postgres-test-cluster.sh start DIR)\"` locally)"
  )

  /// Runs `scripts/postgres-test-cluster.sh` with `arguments` and returns its standard output.
  static func cluster(_ arguments: [String]) throws -> String {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("scripts/postgres-test-cluster.sh")
    let process = Process()
    process.executableURL = script
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw ReplayGuardError(
        "test: postgres-test-cluster.sh \(arguments) exited \(process.terminationStatus)")
    }
    return text
  }

  /// A table of its own for one test, so tests running at once never see each other's claims.
  static func freshTable() -> String {
    "claims_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
  }

  /// A connection of the test's own: another session, as another server or tool would have.
  static func session() throws -> PostgresConnection {
    try PostgresConnection(conninfo: url ?? "", connectTimeoutSeconds: 5, tcpUserTimeoutMilliseconds: 5_000)
  }

  static func drop(_ table: String) {
    _ = try? session().execute("DROP TABLE IF EXISTS \(table)")
  }
}

@Suite("PostgresReplayGuard", .enabled(if: TestDatabase.url != nil, TestDatabase.unavailable))
struct PostgresReplayGuardTests {
  @Test func anIDIsClaimedOnceThenRefusedInItsNetworksNamespace() throws {
    let table = TestDatabase.freshTable()
    defer { TestDatabase.drop(table) }
    let clock = ManualClock()
    let guardian = try PostgresReplayGuard(
      url: TestDatabase.url!, table: table, wallClockMilliseconds: clock.read)
    #expect(try guardian.claim("tx-1", network: .google))
    #expect(try !guardian.claim("tx-1", network: .google))
    #expect(try guardian.claim("tx-1", network: .max))
    #expect(guardian.claim("tx-1"))  // the unnamed namespace
    #expect(!guardian.claim("tx-1"))
    #expect(try guardian.count() == 3)
    #expect(try guardian.claimedAtMilliseconds("tx-1", network: .google) == clock.now)
    #expect(try guardian.claimedAtMilliseconds("tx-2", network: .google) == nil)
  }

  @Test func twoServersShareTheirClaims() throws {
    let table = TestDatabase.freshTable()
    defer { TestDatabase.drop(table) }
    let first = try PostgresReplayGuard(url: TestDatabase.url!, table: table)
    let second = try PostgresReplayGuard(url: TestDatabase.url!, table: table)
    #expect(try first.claim("a", network: .max))
    #expect(try !second.claim("a", network: .max))
    #expect(try second.claim("b", network: .max))
    #expect(try !first.claim("b", network: .max))
  }

  @Test func concurrentClaimsFromManyThreadsAndPoolsSucceedExactlyOnce() throws {
    let table = TestDatabase.freshTable()
    defer { TestDatabase.drop(table) }
    let guards = try (0..<3).map { _ in
      try PostgresReplayGuard(url: TestDatabase.url!, table: table, maximumConnections: 2)
    }
    let ids = (0..<20).map { "tx-\($0)" }
    let wins = Locked<[String: Int]>([:])
    let failures = Locked<[String]>([])
    DispatchQueue.concurrentPerform(iterations: 12) { worker in
      for id in ids {
        do {
          if try guards[worker % guards.count].claim(id, network: .google) {
            wins.withLock { $0[id, default: 0] += 1 }
          }
        } catch {
          failures.withLock { $0.append("\(error)") }
        }
      }
    }
    #expect(failures.get() == [])
    #expect(wins.get() == Dictionary(uniqueKeysWithValues: ids.map { ($0, 1) }))
  }

  @Test func pruningForgetsOnlyClaimsOlderThanTheAgeAndRefusesLessThanADay() throws {
    let table = TestDatabase.freshTable()
    defer { TestDatabase.drop(table) }
    let clock = ManualClock()
    let guardian = try PostgresReplayGuard(
      url: TestDatabase.url!, table: table, wallClockMilliseconds: clock.read)
    let day: Int64 = 24 * 60 * 60 * 1000
    #expect(try guardian.claim("old", network: .max))
    clock.now += 2 * day
    #expect(try guardian.claim("recent", network: .max))
    clock.now += day
    #expect(try guardian.pruneClaims(olderThanMilliseconds: 2 * day) == 1)
    #expect(try guardian.claim("old", network: .max))  // a pruned id is accepted again
    #expect(try !guardian.claim("recent", network: .max))
    let error = try #require(throws: ReplayGuardError.self) {
      try guardian.pruneClaims(olderThanMilliseconds: 1_000)
    }
    #expect(!error.isRetryable)
    #expect(try guardian.count() == 2)
  }

  @Test func aTableThatIsNotAReplayGuardsIsRefusedAndLeftAlone() throws {
    let table = TestDatabase.freshTable()
    defer { TestDatabase.drop(table) }
    try TestDatabase.session().execute("CREATE TABLE \(table) (id integer PRIMARY KEY)")
    let error = try #require(throws: ReplayGuardError.self) {
      _ = try PostgresReplayGuard(url: TestDatabase.url!, table: table)
    }
    #expect(!error.isRetryable)
    #expect(error.message.contains("expected the table \(table) to be a replay guard's"))
    #expect(error.message.contains("SQLSTATE 42703"))  // undefined column
    let columns = try TestDatabase.session().execute(
      "SELECT column_name FROM information_schema.columns WHERE table_name = $1", [table]
    ).rows
    #expect(columns == [["id"]])
  }

  @Test func anIDWithANulByteIsRefusedNotCutShort() throws {
    let table = TestDatabase.freshTable()
    defer { TestDatabase.drop(table) }
    let guardian = try PostgresReplayGuard(url: TestDatabase.url!, table: table)
    #expect(try guardian.claim("tx", network: .google))
    let error = try #require(throws: ReplayGuardError.self) {
      try guardian.claim("tx\u{0}evil", network: .google)
    }
    #expect(error.message.contains("contains a NUL byte"))
  }

  /// Another session holds the row's lock (an uncommitted insert of the same id) longer than the
  /// statement timeout: the claim is cancelled by the server and reported as a storage failure —
  /// not accepted, not a replay — and the network's retry is accepted once the lock is gone.
  @Test func aClaimThatTimesOutIsAStorageFailureAndRecordsNothing() throws {
    let table = TestDatabase.freshTable()
    defer { TestDatabase.drop(table) }
    let guardian = try PostgresReplayGuard(
      url: TestDatabase.url!, table: table, statementTimeoutMilliseconds: 100)
    let verifier = MaxCallbackVerifier(eventKey: "key", replayGuard: guardian)
    let eventID = "0123456789abcdef0123456789abcdef01234567"
    let values: [MaxMacro: String] = [
      .EVENT_ID: eventID, .USER_ID: "u1", .AMOUNT: "100", .CURRENCY: "coins", .AD_UNIT_ID: "b3f1c0d2e4a59687",
      .NETWORK_NAME: "APPLOVIN_BIDDING", .IMPRESSION_TIMESTAMP: "1700000000000",
    ]
    let url = MaxCallbackTemplate.standard.expand(values, eventKey: "key")
    let other = try TestDatabase.session()
    try other.execute("BEGIN")
    try other.execute(
      "INSERT INTO \(table) (network, id, claimed_at_ms, claim_token) VALUES ('max', $1, 0, 'other')",
      [eventID])
    let rejection = try #require(throws: CallbackRejection.self) { try verifier.verify(url) }
    #expect(rejection.reason == .storageFailure)
    #expect(rejection.message.contains("canceling statement due to statement timeout"))
    #expect(rejection.message.contains("SQLSTATE 57014"))
    try other.execute("ROLLBACK")
    #expect(try verifier.verify(url).transactionID == eventID)
    #expect(throws: CallbackRejection.self) { try verifier.verify(url) }
  }

  /// Twenty processes — twenty servers of a fleet — claim the same id at once, a hundred times
  /// over: each id is won exactly once.
  @Test func twentyProcessesClaimingOneIDEachRoundExactlyOneWins() throws {
    let table = TestDatabase.freshTable()
    defer { TestDatabase.drop(table) }
    _ = try PostgresReplayGuard(url: TestDatabase.url!, table: table)  // the table, before the race
    let rounds = 100
    let claimer = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
      .deletingLastPathComponent().appendingPathComponent("ReplayGuardClaimer")
    let processes = try (0..<20).map { _ in
      let process = Process()
      process.executableURL = claimer
      process.arguments = [TestDatabase.url!, table, "race", "\(rounds)"]
      let input = Pipe()
      let output = Pipe()
      process.standardInput = input
      process.standardOutput = output
      try process.run()
      return (process, input, output)
    }
    // All connected (or failed): start them together.
    for (_, input, _) in processes { input.fileHandleForWriting.write(Data("go\n".utf8)) }
    var wins = [Int](repeating: 0, count: rounds)
    for (process, _, output) in processes {
      let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      process.waitUntilExit()
      #expect(process.terminationStatus == 0)
      for line in text.split(separator: "\n") { wins[Int(line.dropFirst(4))!] += 1 }
    }
    #expect(wins == [Int](repeating: 1, count: rounds))
  }
}

@Suite(
  "PostgresReplayGuard across a server restart",
  .enabled(if: TestDatabase.url != nil, TestDatabase.unavailable))
struct PostgresReplayGuardRestartTests {
  /// Claims from four threads, then `pg_ctl restart` (every connection the guard holds dies),
  /// then claims again: the guard reconnects, every new id is won exactly once, and the ids
  /// claimed before the restart are still refused. The cluster is the test's own, so the restart
  /// disturbs no other test.
  @Test func theGuardReconnectsAfterTheServerRestarts() throws {
    let directory = NSTemporaryDirectory() + "mk-pg-restart-\(UUID().uuidString.prefix(8))"
    let exports = try TestDatabase.cluster(["start", directory])
    defer { _ = try? TestDatabase.cluster(["stop", directory]) }
    let url = try #require(exports.split(separator: "'").dropFirst().first.map(String.init))
    let guardian = try PostgresReplayGuard(url: url, maximumConnections: 4)
    func claimAll(_ ids: [String]) -> (wins: Int, failures: [String]) {
      let wins = Locked(0)
      let failures = Locked<[String]>([])
      DispatchQueue.concurrentPerform(iterations: 4) { worker in
        for (index, id) in ids.enumerated() where index % 4 == worker {
          do {
            if try guardian.claim(id, network: .max) { wins.withLock { $0 += 1 } }
          } catch {
            failures.withLock { $0.append("\(error)") }
          }
        }
      }
      return (wins.get(), failures.get())
    }
    let before = (0..<40).map { "before-\($0)" }
    #expect(claimAll(before) == (40, []))

    _ = try TestDatabase.cluster(["restart", directory])

    let after = (0..<40).map { "after-\($0)" }
    #expect(claimAll(after) == (40, []))
    #expect(claimAll(before) == (0, []))
    #expect(try guardian.count() == 80)
  }
}

@Suite("PostgresReplayGuard refuses what cannot work (no server needed)")
struct PostgresReplayGuardBadInputTests {
  @Test func anUnreachableDatabaseIsARetryableStorageFailure() throws {
    let url = "postgresql:///mediationkit?host=/nonexistent-mediationkit-socket-dir&port=1&user=nobody"
    let error = try #require(throws: ReplayGuardError.self) { _ = try PostgresReplayGuard(url: url) }
    #expect(error.isRetryable)
    #expect(
      error.message.hasPrefix(
        "connect (to open) failed on the replay guard at postgres /nonexistent-mediationkit-socket-dir:1/mediationkit as nobody: "
      ))
    #expect(!error.message.contains("password"))
    #expect(!error.message.contains("\n") && !error.message.contains("\t"))  // one line, as the CLI prints it
  }

  @Test func aBadURLTableOrLimitIsRefusedAndNotRetryable() throws {
    let bad = try #require(throws: ReplayGuardError.self) { _ = try PostgresReplayGuard(url: "host=a = b") }
    #expect(!bad.isRetryable)
    #expect(bad.message.hasPrefix("the PostgreSQL URL is not valid ("))
    for table in ["", "Claims", "claims; DROP TABLE x", "1claims", String(repeating: "a", count: 64)] {
      let error = try #require(throws: ReplayGuardError.self) {
        _ = try PostgresReplayGuard(url: "postgresql:///x", table: table)
      }
      #expect(!error.isRetryable)
      #expect(error.message.hasPrefix("the replay guard table '\(table)' is not a lower-case SQL identifier"))
    }
    let limits = try #require(throws: ReplayGuardError.self) {
      _ = try PostgresReplayGuard(url: "postgresql:///x", maximumConnections: 0)
    }
    #expect(!limits.isRetryable)
  }

  @Test func thePasswordIsNeverInAMessage() throws {
    let url = "postgresql://user:s3cret@/db?host=/nonexistent-mediationkit-socket-dir&port=1"
    let error = try #require(throws: ReplayGuardError.self) { _ = try PostgresReplayGuard(url: url) }
    #expect(!error.message.contains("s3cret"))
    #expect(error.message.contains("postgres /nonexistent-mediationkit-socket-dir:1/db as user"))
  }
}
