import Foundation
import MediateCLI
import MediationKitTesting
import ReplayGuardSQLite
import RewardCallbacks
import RewardLedgerSQLite
import SQLiteSupport
import Testing

/// `mediate verify-callback --seen FILE`: a replay is refused across runs and processes.
@Suite("mediate verify-callback --seen FILE")
struct VerifyCallbackSeenTests {
  /// A fresh directory for one test's files.
  static func directory() throws -> String {
    let path = NSTemporaryDirectory() + "seen-test-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    return path
  }

  /// Runs `processes` real `mediate` processes with `arguments` at once; their exit codes and
  /// output (standard output, then standard error).
  static func runAtOnce(_ arguments: [String], processes: Int) throws -> [(Int32, String)] {
    let children = try (0..<processes).map { _ in try LedgerCrashTests.Child(arguments) }
    return children.map { child -> (Int32, String) in
      let output = child.finish()
      let errors = String(decoding: child.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      return (child.process.terminationStatus, output + errors)
    }
  }

  static func verifyMax(_ url: String, seen: String?) -> (code: Int32, out: [String], err: [String]) {
    let key = VerifyCallbackCommandTests.eventKey
    return mediate(
      ["verify-callback", "--network", "max", "--key", key] + (seen.map { ["--seen", $0] } ?? []) + [url])
  }

  @Test func aMaxCallbackVerifiedTwiceWithTheSameSeenFileIsAReplayTheSecondTime() throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let seen = directory + "/seen.sqlite"
    let url = VerifyCallbackCommandTests.maxURL
    let first = Self.verifyMax(url, seen: seen)
    #expect(first.code == 0)
    #expect(first.out.first == "valid max callback")
    #expect(FileManager.default.fileExists(atPath: seen))
    // A second run: a new process life, the same file.
    let second = Self.verifyMax(url, seen: seen)
    #expect(second.code == 1)
    #expect(second.out.isEmpty)
    #expect(
      second.err == [
        "Rejected (replayed): event id \(VerifyCallbackCommandTests.eventID) was already accepted; a reward is granted once"
      ])
    // Another event id is not a replay.
    let other = MaxCallbackTemplate.standard.expand(
      VerifyCallbackCommandTests.maxValues(eventID: String(repeating: "ab", count: 20)),
      eventKey: VerifyCallbackCommandTests.eventKey)
    #expect(Self.verifyMax(other, seen: seen).code == 0)
    // Without --seen, each run starts afresh (the documented limit).
    #expect(Self.verifyMax(url, seen: nil).code == 0)
    #expect(Self.verifyMax(url, seen: nil).code == 0)
  }

  @Test func aGoogleCallbackFromTheSimulatedServerIsAReplayTheSecondTime() throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    // The simulated Google server sends a signed SSV callback to a loopback receiver...
    let receiver = try LoopbackHTTPReceiver()
    defer { receiver.stop() }
    let config = try ServerCallbackCLITests.configFile(receiver: receiver)
    defer { try? FileManager.default.removeItem(atPath: config) }
    let run = ServerCallbackCLITests.run(["--config", config, "--networks", "google", "--seed", "11"])
    #expect(run.code == 0)
    let request = try #require(receiver.requests.first)
    // ...checked with the keys it publishes for that seed.
    let keys = ServerCallbackCLITests.run(["verifier-keys", "--network", "google", "--seed", "11"])
    #expect(keys.code == 0)
    let keysFile = directory + "/keys.json"
    try Data(keys.out.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: keysFile))
    let seen = directory + "/seen.sqlite"
    let arguments = ["verify-callback", "--network", "google", "--keys", keysFile, "--seen", seen, "--json"]

    let first = mediate(arguments + [receiver.baseURL + request.target])
    #expect(first.code == 0)
    let acceptedLine = try #require(first.out.first)
    let accepted = try #require(
      try JSONSerialization.jsonObject(with: Data(acceptedLine.utf8)) as? [String: Any])
    let transactionID = try #require(accepted["transaction_id"] as? String)
    let second = mediate(arguments + [request.target])
    #expect(second.code == 1)
    let refusedLine = try #require(second.out.first)
    let refused = try #require(
      try JSONSerialization.jsonObject(with: Data(refusedLine.utf8)) as? [String: Any])
    #expect(refused["valid"] as? Bool == false)
    #expect(refused["reason"] as? String == "replayed")
    #expect(refused["parameter"] as? String == "transaction_id")
    #expect(
      second.err == [
        "Rejected (replayed): transaction id \(transactionID) was already accepted; a reward is granted once"
      ])
    #expect(
      try SQLiteReplayGuard(path: seen, createIfMissing: false).claimedAtMilliseconds(
        transactionID, network: .google) != nil)
  }

  @Test func concurrentProcessesVerifyingOneCallbackAcceptItExactlyOnce() throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let seen = directory + "/seen.sqlite"
    let arguments = [
      "verify-callback", "--network", "max", "--key", VerifyCallbackCommandTests.eventKey, "--seen", seen,
      VerifyCallbackCommandTests.maxURL,
    ]
    let outcomes = try Self.runAtOnce(arguments, processes: 6)
    #expect(outcomes.filter { $0.0 == 0 }.count == 1, "\(outcomes)")
    let refused = outcomes.filter { $0.0 != 0 }
    #expect(refused.count == 5)
    #expect(
      refused.allSatisfy { $0.0 == 1 && $0.1.hasPrefix("Rejected (replayed): event id ") }, "\(refused)")
  }

  @Test func aBadSeenFileIsRefusedWithItsPath() throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let url = VerifyCallbackCommandTests.maxURL

    let asDirectory = Self.verifyMax(url, seen: directory)
    #expect(asDirectory.code == 66)
    #expect(asDirectory.err == ["Error: \(directory) is a directory; expected a replay guard file"])

    let text = directory + "/notes.txt"
    #expect(FileManager.default.createFile(atPath: text, contents: Data("not a database, not at all\n".utf8)))
    let notADatabase = Self.verifyMax(url, seen: text)
    #expect(notADatabase.code == 65)
    #expect(notADatabase.err.first?.hasPrefix("Error: --seen: \(text) is not a SQLite database") == true)

    let ledger = directory + "/rewards.sqlite"
    do { _ = try SQLiteRewardLedger(path: ledger) }
    let aLedger = Self.verifyMax(url, seen: ledger)
    #expect(aLedger.code == 65)
    #expect(
      aLedger.err.first?.hasPrefix(
        "Error: --seen: \(ledger) is a SQLite database but not a replay guard (tables: rewards") == true)

    let missing = directory + "/missing/seen.sqlite"
    let inAMissingDirectory = Self.verifyMax(url, seen: missing)
    #expect(inAMissingDirectory.code == 65)
    #expect(
      inAMissingDirectory.err == [
        "Error: --seen: cannot create the replay guard at \(missing): the directory \(directory)/missing does not exist; expected an existing directory"
      ])
    // A usage error is reported before any file is created.
    let unused = directory + "/unused.sqlite"
    #expect(mediate(["verify-callback", "--network", "max", "--seen", unused, url]).code == 64)
    #expect(!FileManager.default.fileExists(atPath: unused))
  }

  @Test func aSeenFileThatFailsWhileClaimingExitsSeventyFourAndIsNoReplay() throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let seen = directory + "/seen.sqlite"
    do { _ = try SQLiteReplayGuard(path: seen) }
    // Another tool makes the table refuse every insert: the claim fails after the file opened.
    try Self.execute(
      seen,
      "CREATE TRIGGER refuse BEFORE INSERT ON claimed_ids BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
    )
    let result = Self.verifyMax(VerifyCallbackCommandTests.maxURL, seen: seen)
    #expect(result.code == 74)
    #expect(result.out.isEmpty)
    let message = try #require(result.err.first)
    #expect(
      message.hasPrefix(
        "Error: event id \(VerifyCallbackCommandTests.eventID) could not be checked for a replay: claim failed on the replay guard at \(seen): refused by the test"
      ))
    #expect(!message.contains("replayed"))
    // Once the storage works again, the same callback is accepted: nothing was burned.
    try Self.execute(seen, "DROP TRIGGER refuse")
    #expect(Self.verifyMax(VerifyCallbackCommandTests.maxURL, seen: seen).code == 0)
  }

  @Test func aLockHeldPastTheTimeoutWhileOpeningSeenExitsSeventyFourAndRecordsNothing() throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let seen = directory + "/seen.sqlite"
    do { _ = try SQLiteReplayGuard(path: seen) }
    let other = try SQLiteConnection(unchecked: seen)
    try other.execute("BEGIN IMMEDIATE")  // another process holds the write lock
    let url = VerifyCallbackCommandTests.maxURL
    let arguments = [
      "verify-callback", "--network", "max", "--key", VerifyCallbackCommandTests.eventKey, "--seen", seen,
      "--seen-timeout", "20", url,
    ]
    let locked = mediate(arguments)
    #expect(locked.code == 74)
    #expect(locked.out.isEmpty)
    let message = try #require(locked.err.first)
    #expect(
      message.hasPrefix("Error: --seen: begin the schema transaction failed on the replay guard at \(seen): ")
    )
    #expect(message.contains("database is locked"))
    #expect(
      message.hasSuffix(
        "nothing was recorded, so it can be verified again once the replay guard's storage works"))
    try other.execute("ROLLBACK")
    // Nothing was recorded: the retry is accepted, then refused as a replay.
    #expect(mediate(arguments).code == 0)
    #expect(mediate(arguments).code == 1)
  }

  @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "needs Linux's /dev/full"))
  func aFullDiskWhileOpeningSeenExitsSeventyFour() throws {
    let directory = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let seen = directory + "/seen.sqlite"
    // /dev/full fails every write with ENOSPC: a full disk, deterministically.
    try FileManager.default.createSymbolicLink(atPath: seen, withDestinationPath: "/dev/full")
    let full = Self.verifyMax(VerifyCallbackCommandTests.maxURL, seen: seen)
    #expect(full.code == 74)
    #expect(full.err.first?.contains("database or disk is full") == true, "\(full.err)")
  }

  @Test func aBadSeenTimeoutIsAUsageError() {
    let url = VerifyCallbackCommandTests.maxURL
    let key = VerifyCallbackCommandTests.eventKey
    for value in ["0", "-5", "soon", "3600001"] {
      let result = mediate([
        "verify-callback", "--network", "max", "--key", key, "--seen", "/tmp/unused", "--seen-timeout", value,
        url,
      ])
      #expect(result.code == 64)
      #expect(result.err.first?.hasPrefix("Error: invalid value '\(value)' for --seen-timeout") == true)
    }
    let alone = mediate(["verify-callback", "--network", "max", "--key", key, "--seen-timeout", "50", url])
    #expect(alone.code == 64)
    #expect(alone.err.first == "Error: --seen-timeout needs --seen, the replay guard it bounds")
  }

  @Test func helpAndUsageShowSeen() {
    let text = mediate(["verify-callback", "--help"]).out.joined(separator: "\n")
    #expect(
      text.contains(
        "USAGE: mediate verify-callback --network max --key KEY [--template T] [--seen FILE|URL] "
          + "[--seen-timeout MS] [--json] URL"))
    #expect(
      text.contains(
        "mediate verify-callback --network google --keys FILE [--seen FILE|URL] [--seen-timeout MS] [--json] URL"
      ))
    #expect(
      text.contains(
        "  --seen FILE|URL   The callback ids already accepted: a SQLite file (created if missing), or a "
          + "postgres:// URL"))
    #expect(text.contains("  --seen-timeout MS How long the --seen guard may wait for a lock or a query"))
  }

  /// Runs one SQL statement on `path` through a connection of the test's own, as another tool would.
  static func execute(_ path: String, _ sql: String) throws {
    try SQLiteConnection(unchecked: path).execute(sql)
  }
}
