import Dispatch
import Foundation
import MediationKit
import RewardCallbacks
import RewardCrypto
import RewardLedgerSQLite
import SQLiteSupport
import StoreTestSupport
import Testing

@testable import ReplayGuardSQLite

@Suite("SQLiteReplayGuard")
struct SQLiteReplayGuardTests {
  static let eventID = "0123456789abcdef0123456789abcdef01234567"

  @Test func anIDIsClaimedOnceThenRefused() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let guardian = try SQLiteReplayGuard(path: directory.file("seen.sqlite"))
    #expect(try guardian.claim(Self.eventID, network: .max))
    #expect(try !guardian.claim(Self.eventID, network: .max))
    #expect(try !guardian.claim(Self.eventID, network: .max))
    #expect(try guardian.claim("another", network: .max))
    #expect(try guardian.count() == 2)
  }

  @Test func eachNetworkIsANamespaceOfItsOwn() throws {
    let guardian = try SQLiteReplayGuard.inMemory()
    #expect(try guardian.claim("same-id", network: .max))
    #expect(try guardian.claim("same-id", network: .google))
    #expect(guardian.claim("same-id"))  // the unnamed namespace, apart from both
    #expect(try !guardian.claim("same-id", network: .max))
    #expect(try !guardian.claim("same-id", network: .google))
    #expect(!guardian.claim("same-id"))
    #expect(try guardian.count() == 3)
  }

  @Test func twoGuardsOnOneFileSeeEachOthersClaims() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("seen.sqlite")
    let first = try SQLiteReplayGuard(path: path)
    let second = try SQLiteReplayGuard(path: path)
    #expect(try first.claim("a", network: .google))
    #expect(try !second.claim("a", network: .google))
    #expect(try second.claim("b", network: .google))
    #expect(try !first.claim("b", network: .google))
  }

  @Test func concurrentClaimsOfOneIDFromManyThreadsAndConnectionsSucceedExactlyOnce() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("seen.sqlite")
    // Four connections to one file: SQLite locks them against each other as it would four processes.
    let guards = try (0..<4).map { _ in try SQLiteReplayGuard(path: path) }
    let ids = (0..<10).map { "tx-\($0)" }
    let wins = Locked<[String: Int]>([:])
    let failures = Locked<[String]>([])
    DispatchQueue.concurrentPerform(iterations: 16) { worker in
      let guardian = guards[worker % guards.count]
      for id in ids {
        do {
          if try guardian.claim(id, network: .google) { wins.withLock { $0[id, default: 0] += 1 } }
        } catch {
          failures.withLock { $0.append("\(error)") }
        }
      }
    }
    #expect(failures.get() == [])
    #expect(wins.get() == Dictionary(uniqueKeysWithValues: ids.map { ($0, 1) }))
    #expect(try guards[0].count() == ids.count)
  }

  @Test func claimsSurviveReopeningTheFile() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("seen.sqlite")
    let clock = ManualClock()
    do {
      let guardian = try SQLiteReplayGuard(path: path, wallClockMilliseconds: clock.read)
      #expect(try guardian.claim(Self.eventID, network: .max))
      #expect(try guardian.pragma(.journalMode) == "wal")
      #expect(try guardian.pragma(.synchronous) == "2")  // FULL
      #expect(try guardian.pragma(.busyTimeout) == "\(SQLiteReplayGuard.defaultBusyTimeoutMilliseconds)")
      #expect(try guardian.pragma(.userVersion) == "1")
    }
    let reopened = try SQLiteReplayGuard(path: path)
    #expect(try !reopened.claim(Self.eventID, network: .max))
    #expect(try reopened.claimedAtMilliseconds(Self.eventID, network: .max) == clock.now)
    #expect(try reopened.claimedAtMilliseconds(Self.eventID, network: .google) == nil)
    #expect(try rawSQL(path, "SELECT network || ' ' || id FROM claimed_ids") == ["max \(Self.eventID)"])
  }

  @Test func aReplayedCallbackIsRefusedByAVerifierInANewProcessLife() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("seen.sqlite")
    let url = MaxCallbackTemplate.standard.expand(
      [
        .EVENT_ID: Self.eventID, .USER_ID: "u1", .AMOUNT: "1", .AD_UNIT_ID: "9ad0816ac071552a",
        .NETWORK_NAME: "AppLovin", .IMPRESSION_TIMESTAMP: "1700000000000",
      ], eventKey: "key")
    // Each verifier opens the file afresh, as a restarted server (or `mediate verify-callback`) does.
    let first = MaxCallbackVerifier(eventKey: "key", replayGuard: try SQLiteReplayGuard(path: path))
    #expect(try first.verify(url).transactionID == Self.eventID)
    let restarted = MaxCallbackVerifier(eventKey: "key", replayGuard: try SQLiteReplayGuard(path: path))
    let rejection = try #require(throws: CallbackRejection.self) { try restarted.verify(url) }
    #expect(rejection.reason == .replayed)
    #expect(rejection.message == "event id \(Self.eventID) was already accepted; a reward is granted once")
  }

  @Test func pruningForgetsOnlyClaimsOlderThanTheAge() throws {
    let clock = ManualClock()
    let guardian = try SQLiteReplayGuard.inMemory(wallClockMilliseconds: clock.read)
    let day: Int64 = 24 * 60 * 60 * 1000
    #expect(try guardian.claim("old", network: .max))
    clock.now += 2 * day
    #expect(try guardian.claim("recent", network: .google))
    clock.now += day
    // "old" is 3 days old, "recent" 1 day: an age of 2 days forgets "old" only.
    #expect(try guardian.pruneClaims(olderThanMilliseconds: 2 * day) == 1)
    #expect(try guardian.count() == 1)
    #expect(try !guardian.claim("recent", network: .google))
    #expect(try guardian.claim("old", network: .max))  // documented: a pruned id is accepted again
    // An age just equal to a claim's age keeps it (strictly older goes).
    #expect(try guardian.pruneClaims(olderThanMilliseconds: day) == 0)
    #expect(try guardian.pruneClaims(olderThanMilliseconds: .max) == 0)
  }

  @Test func pruningAtLessThanADayIsRefused() throws {
    let guardian = try SQLiteReplayGuard.inMemory()
    #expect(try guardian.claim("a", network: .max))
    let error = try #require(throws: ReplayGuardError.self) {
      try guardian.pruneClaims(olderThanMilliseconds: 86_400)  // seconds, given for milliseconds
    }
    #expect(
      error.message.hasPrefix("pruneClaims: an age of 86400 ms; expected at least 86400000 ms (one day)"))
    #expect(try guardian.count() == 1)
    #expect(throws: ReplayGuardError.self) { try guardian.pruneClaims(olderThanMilliseconds: -1) }
  }
}

@Suite("SQLiteReplayGuard refuses what is not a replay guard")
struct SQLiteReplayGuardBadInputTests {
  @Test func aTextFileIsRefusedAndLeftUnchanged() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("seen.txt")
    let text = Data(String(repeating: "not ids\n", count: 100).utf8)
    #expect(FileManager.default.createFile(atPath: path, contents: text))
    let error = try #require(throws: ReplayGuardError.self) { _ = try SQLiteReplayGuard(path: path) }
    #expect(error.message.hasPrefix("\(path) is not a SQLite database"))
    #expect(error.message.hasSuffix("expected a replay guard, or a path where a new one can be created"))
    #expect(FileManager.default.contents(atPath: path) == text)
  }

  @Test func aDirectoryAMissingDirectoryAndAnEmptyPathAreRefused() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    #expect(
      throws: ReplayGuardError(
        "\(directory.path) is a directory; expected a replay guard file, or a path where one can be created",
        isRetryable: false)
    ) { _ = try SQLiteReplayGuard(path: directory.path) }
    let missing = directory.file("missing")
    #expect(
      throws: ReplayGuardError(
        "cannot create the replay guard at \(missing)/seen.sqlite: the directory \(missing) does not exist; "
          + "expected an existing directory", isRetryable: false)
    ) { _ = try SQLiteReplayGuard(path: missing + "/seen.sqlite") }
    #expect(
      throws: ReplayGuardError("the replay guard path is empty; expected a file path", isRetryable: false)
    ) {
      _ = try SQLiteReplayGuard(path: "")
    }
    let absent = directory.file("absent.sqlite")
    #expect(
      throws: ReplayGuardError(
        "no replay guard at \(absent); expected an existing replay guard file", isRetryable: false)
    ) {
      _ = try SQLiteReplayGuard(path: absent, createIfMissing: false)
    }
    #expect(!FileManager.default.fileExists(atPath: absent))
  }

  @Test func aNewerSchemaVersionIsRefusedAndLeftUnchanged() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("seen.sqlite")
    do { _ = try SQLiteReplayGuard(path: path) }
    try rawSQL(path, "PRAGMA user_version = 2")
    let error = try #require(throws: ReplayGuardError.self) { _ = try SQLiteReplayGuard(path: path) }
    #expect(
      error.message
        == "the replay guard at \(path) has schema version 2, newer than this MediationKit reads; "
        + "expected version 1 or lower (use a newer MediationKit or another file)")
    #expect(try rawSQL(path, "PRAGMA user_version") == ["2"])
  }

  @Test func aRewardLedgerIsNotAReplayGuardNorTheOtherWayRound() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let ledgerPath = directory.file("rewards.sqlite")
    do { _ = try SQLiteRewardLedger(path: ledgerPath) }
    let asGuard = try #require(throws: ReplayGuardError.self) { _ = try SQLiteReplayGuard(path: ledgerPath) }
    #expect(
      asGuard.message
        == "\(ledgerPath) is a SQLite database but not a replay guard (tables: rewards; no 'claimed_ids' "
        + "table); expected a replay guard, or a path where a new one can be created")
    #expect(try rawSQL(ledgerPath, "SELECT name FROM sqlite_master WHERE type = 'table'") == ["rewards"])

    let guardPath = directory.file("seen.sqlite")
    do { _ = try SQLiteReplayGuard(path: guardPath) }
    let asLedger = try #require(throws: LedgerError.self) { _ = try SQLiteRewardLedger(path: guardPath) }
    #expect(
      asLedger.message.hasPrefix(
        "\(guardPath) is a SQLite database but not a reward ledger (tables: claimed_ids; no 'rewards' table)")
    )
  }

  @Test func anotherApplicationsDatabaseIsRefusedAndLeftInItsJournalMode() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("app.sqlite")
    try rawSQL(path, "CREATE TABLE users (id INTEGER PRIMARY KEY)")
    let error = try #require(throws: ReplayGuardError.self) { _ = try SQLiteReplayGuard(path: path) }
    #expect(
      error.message.hasPrefix(
        "\(path) is a SQLite database but not a replay guard (tables: users; no replay guard schema version)")
    )
    #expect(try rawSQL(path, "PRAGMA journal_mode") == ["delete"])
  }
}

@Suite("SQLiteReplayGuard: a storage failure rejects the callback, and says so")
struct SQLiteReplayGuardFailureTests {
  static let eventID = "fedcba9876543210fedcba9876543210fedcba98"
  static let googleKey = try! P256SigningKey(rawScalar: [UInt8](repeating: 0x05, count: 32))

  @Test func aLockHeldByAnotherProcessRejectsWithAStorageReasonAndBurnsNothing() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("seen.sqlite")
    // A short busy timeout: the claim gives up on the held lock after 50 ms, by SQLite's own clock.
    let guardian = try SQLiteReplayGuard(path: path, busyTimeoutMilliseconds: 50)
    let maxVerifier = MaxCallbackVerifier(eventKey: "key", replayGuard: guardian)
    let maxURL = MaxCallbackTemplate.standard.expand(
      [
        .EVENT_ID: Self.eventID, .USER_ID: "u1", .AMOUNT: "1", .AD_UNIT_ID: "9ad0816ac071552a",
        .NETWORK_NAME: "AppLovin", .IMPRESSION_TIMESTAMP: "1700000000000",
      ], eventKey: "key")
    let keys = VerifierKeys.publishing([(id: 9, key: Self.googleKey.publicKey)])
    let googleVerifier = GoogleSSVVerifier(keys: keys, replayGuard: guardian)
    let googleURL = try SSVCallback(
      adNetwork: "1", adUnit: "2", customData: nil, rewardAmount: 1, rewardItem: "coins",
      timestamp: 1_700_000_000_000, transactionID: "tx-locked", userID: "u"
    ).signedURL(base: "https://publisher.example/ssv", key: Self.googleKey, keyID: 9)

    try whileAnotherWriterHoldsTheLock(on: path) {
      let maxRejection = try #require(throws: CallbackRejection.self) { try maxVerifier.verify(maxURL) }
      #expect(maxRejection.reason == .storageFailure)
      #expect(maxRejection.parameter == "event_id")
      #expect(
        maxRejection.message.hasPrefix(
          "event id \(Self.eventID) could not be checked for a replay: claim failed on the replay guard at \(path): "
        ))
      #expect(maxRejection.message.contains("database is locked"))
      #expect(!maxRejection.message.contains("already accepted"))
      let googleRejection = try #require(throws: CallbackRejection.self) {
        try googleVerifier.verify(googleURL)
      }
      #expect(googleRejection.reason == .storageFailure)
      #expect(googleRejection.parameter == "transaction_id")
      #expect(
        googleRejection.description.hasPrefix(
          "storage_failure: transaction id tx-locked could not be checked"))
      #expect(!guardian.claim("plain"))  // the Bool variant fails closed
    }

    // Nothing was recorded: the network's retry is accepted once, then refused as a replay.
    #expect(try maxVerifier.verify(maxURL).transactionID == Self.eventID)
    #expect(try googleVerifier.verify(googleURL).transactionID == "tx-locked")
    #expect(
      throws: CallbackRejection(
        .replayed, parameter: "transaction_id",
        "transaction id tx-locked was already accepted; a reward is granted once")
    ) { try googleVerifier.verify(googleURL) }
  }

  @Test func aLockHeldPastTheBusyTimeoutWhileOpeningIsARetryableStorageFailure() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("seen.sqlite")
    do { _ = try SQLiteReplayGuard(path: path) }
    // Another writer holds the write lock past the timeout.
    let error = try whileAnotherWriterHoldsTheLock(on: path) {
      try #require(throws: ReplayGuardError.self) {
        _ = try SQLiteReplayGuard(path: path, busyTimeoutMilliseconds: 20)
      }
    }
    #expect(error.isRetryable)
    #expect(error.message.hasPrefix("begin the schema transaction failed on the replay guard at \(path): "))
    #expect(error.message.contains("database is locked"))
    // Once the lock is gone the same file opens, unchanged.
    #expect(try SQLiteReplayGuard(path: path, busyTimeoutMilliseconds: 20).count() == 0)
  }

  /// `/dev/full` takes every write and fails it with ENOSPC: a disk that is full, deterministically
  /// (Linux; SQLite sees an empty file and fails creating the guard in it).
  @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "needs Linux's /dev/full"))
  func aFullDiskWhileCreatingTheGuardIsARetryableStorageFailure() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("seen.sqlite")
    try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/full")
    let error = try #require(throws: ReplayGuardError.self) { _ = try SQLiteReplayGuard(path: path) }
    #expect(error.isRetryable)
    #expect(error.message.contains("database or disk is full"))
  }

  @Test func aFileThatIsNotAGuardIsNotRetryable() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("notes.txt")
    #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 0x41, count: 4096)))
    let notADatabase = try #require(throws: ReplayGuardError.self) { _ = try SQLiteReplayGuard(path: path) }
    #expect(!notADatabase.isRetryable)
    let ledger = directory.file("rewards.sqlite")
    do { _ = try SQLiteRewardLedger(path: ledger) }
    let aLedger = try #require(throws: ReplayGuardError.self) { _ = try SQLiteReplayGuard(path: ledger) }
    #expect(!aLedger.isRetryable)
    let newer = directory.file("newer.sqlite")
    do { _ = try SQLiteReplayGuard(path: newer) }
    try rawSQL(newer, "PRAGMA user_version = 2")
    let aNewerGuard = try #require(throws: ReplayGuardError.self) { _ = try SQLiteReplayGuard(path: newer) }
    #expect(!aNewerGuard.isRetryable)
  }

  @Test func aTableDroppedUnderItsFeetIsAStorageFailureNamingTheFile() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("seen.sqlite")
    let guardian = try SQLiteReplayGuard(path: path)
    try rawSQL(path, "DROP TABLE claimed_ids")
    let error = try #require(throws: ReplayGuardError.self) { try guardian.claim("a", network: .max) }
    #expect(error.message.hasPrefix("claim failed on the replay guard at \(path): "))
    #expect(error.message.contains("claimed_ids"))
  }
}

@Suite("SQLiteReplayGuard: many first opens of one new file at once")
struct SQLiteReplayGuardConcurrentCreationTests {
  @Test func everyReplayGuardOpensANewFileCreatedConcurrently() throws {
    let failures = try failuresOfConcurrentFirstOpens { path in _ = try SQLiteReplayGuard(path: path) }
    #expect(failures == [])
  }
}
