import Foundation
import MediationKit
import RewardLedgerSQLite
import StoreTestSupport
import Testing

@Suite("SQLiteRewardLedger refuses what is not a ledger")
struct BadInputTests {
  @Test func aTextFileIsRefusedAndLeftUnchanged() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("notes.txt")
    let text = Data(String(repeating: "these are not rewards\n", count: 40).utf8)
    #expect(FileManager.default.createFile(atPath: path, contents: text))
    let error = try #require(throws: LedgerError.self) { _ = try SQLiteRewardLedger(path: path) }
    #expect(error.message.hasPrefix("\(path) is not a SQLite database"))
    #expect(error.message.contains("expected a reward ledger"))
    #expect(FileManager.default.contents(atPath: path) == text)
  }

  @Test func anEmptyFileIsNotTurnedIntoALedgerWhenCreatingIsNotAsked() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("empty.sqlite")
    #expect(FileManager.default.createFile(atPath: path, contents: Data()))
    let error = try #require(throws: LedgerError.self) {
      _ = try SQLiteRewardLedger(path: path, createIfMissing: false)
    }
    #expect(error.message.contains("no ledger at \(path)"))
    #expect(FileManager.default.contents(atPath: path) == Data())
    #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    // Asked to create one, the empty file becomes a ledger.
    #expect(try SQLiteRewardLedger(path: path).pending() == [])
  }

  @Test func aDirectoryIsRefused() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let error = try #require(throws: LedgerError.self) { _ = try SQLiteRewardLedger(path: directory.path) }
    #expect(
      error.message
        == "\(directory.path) is a directory; expected a reward ledger file, or a path where one can be created"
    )
  }

  @Test func aPathInAMissingDirectoryIsRefusedAndNothingIsCreated() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let missing = directory.file("missing")
    let path = missing + "/rewards.sqlite"
    let error = try #require(throws: LedgerError.self) { _ = try SQLiteRewardLedger(path: path) }
    #expect(
      error.message
        == "cannot create the reward ledger at \(path): the directory \(missing) does not exist; "
        + "expected an existing directory")
    #expect(!FileManager.default.fileExists(atPath: missing))
  }

  @Test func aNewerSchemaVersionIsRefusedAndLeftUnchanged() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("future.sqlite")
    do { _ = try SQLiteRewardLedger(path: path) }
    try rawSQL(path, "PRAGMA user_version = 3")
    let error = try #require(throws: LedgerError.self) { _ = try SQLiteRewardLedger(path: path) }
    #expect(error.message.contains(path))
    #expect(error.message.contains("has schema version 3, newer than this MediationKit reads"))
    #expect(error.message.contains("expected version 2 or lower"))
    #expect(try rawSQL(path, "PRAGMA user_version") == ["3"])
  }

  @Test func anotherSQLiteDatabaseIsRefusedAndLeftInItsJournalMode() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("app.sqlite")
    try rawSQL(path, "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    let error = try #require(throws: LedgerError.self) { _ = try SQLiteRewardLedger(path: path) }
    #expect(error.message.hasPrefix("\(path) is a SQLite database but not a reward ledger (tables: users"))
    #expect(try rawSQL(path, "PRAGMA journal_mode") == ["delete"])
  }

  @Test func anEmptyPathIsRefused() {
    #expect(throws: LedgerError("the reward ledger path is empty; expected a file path")) {
      _ = try SQLiteRewardLedger(path: "")
    }
  }

  // Root may write any file, so this runs only as an ordinary user.
  @Test(.enabled(if: getuid() != 0, "root can write a read-only file"))
  func aReadOnlyFileIsRefused() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("rewards.sqlite")
    do { _ = try SQLiteRewardLedger(path: path) }
    try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
    let error = try #require(throws: LedgerError.self) { _ = try SQLiteRewardLedger(path: path) }
    #expect(error.message.hasPrefix("\(path) is not writable by this process"))
  }

  @Test func aNonFiniteNetworkAmountIsRefused() throws {
    let ledger = try SQLiteRewardLedger.inMemory()
    let error = try #require(throws: LedgerError.self) {
      try ledger.record(
        entry("tx-nan", networkReward: AdapterSignal.NetworkReward(type: "coins", amount: .nan)))
    }
    #expect(error.message.contains("tx-nan"))
    #expect(error.message.contains("expected a finite number"))
    #expect(try ledger.pending() == [])
  }

  @Test func anSQLiteFailureNamesTheOperationTheMessageAndThePath() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("rewards.sqlite")
    let ledger = try SQLiteRewardLedger(path: path)
    // Another tool drops the table under the ledger's feet.
    try rawSQL(path, "DROP TABLE rewards")
    let error = try #require(throws: LedgerError.self) { _ = try ledger.pending() }
    #expect(error.message.hasPrefix("read the pending rewards failed on the reward ledger at \(path): "))
    #expect(error.message.contains("SQLite error"))
  }
}

@Suite("SQLiteRewardLedger.open: opening off the calling thread")
struct AsyncOpenTests {
  @Test func openCreatesAndReopensTheLedgerLikeTheInitializer() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("rewards.sqlite")
    let ledger = try await SQLiteRewardLedger.open(path: path)
    try ledger.record(entry("t1"))
    let reopened = try await SQLiteRewardLedger.open(path: path, createIfMissing: false)
    #expect(try reopened.pending().map(\.reward.transactionID) == ["t1"])
    #expect(reopened.path == path)
  }

  @Test func openThrowsTheInitializersErrors() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("notes.txt")
    #expect(FileManager.default.createFile(atPath: path, contents: Data("not rewards\n".utf8)))
    var openError: LedgerError?
    do {
      _ = try await SQLiteRewardLedger.open(path: path)
    } catch {
      openError = error
    }
    let initError = try #require(throws: LedgerError.self) { _ = try SQLiteRewardLedger(path: path) }
    let error = try #require(openError)
    #expect(error == initError)
    #expect(error.message.hasPrefix("\(path) is not a SQLite database"))
    let missing = directory.file("missing.sqlite")
    await #expect(throws: LedgerError.self) {
      _ = try await SQLiteRewardLedger.open(path: missing, createIfMissing: false)
    }
    #expect(!FileManager.default.fileExists(atPath: missing))
  }
}
