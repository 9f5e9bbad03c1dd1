import Foundation

#if canImport(SQLite3)
  import SQLite3
#else
  import CSQLite3
#endif

/// One kind of store kept in a SQLite file of its own — the reward ledger, the replay guard — and
/// the checks every such file goes through when it is opened, said in that store's words.
///
/// ``open(path:createIfMissing:busyTimeoutMilliseconds:)`` refuses, with the path and what was
/// expected, what can be told before SQLite is asked (an empty path, a directory, a missing file or
/// directory, a file this process may not write), then a file that is not a SQLite database,
/// another application's database, another store's file, or one with a newer schema version — all
/// left exactly as they were. It then switches the file to WAL with `synchronous=FULL` and creates
/// the schema in a `BEGIN IMMEDIATE` transaction, so two processes creating it at once do it one
/// after the other.
///
/// The schema version is the file's `PRAGMA user_version`: one store per file.
package struct SQLiteStoreKind {
  /// What the file is, in messages: `reward ledger`.
  package let name: String
  /// The short name, in `no ledger at …` and `no ledger schema version`: `ledger`.
  package let shortName: String
  /// Why the file must be writable, in the message refusing one that is not: `rewards are
  /// recorded in it`.
  package let writeReason: String
  /// The schema version this code writes and reads. A file with a higher one was written by a
  /// newer MediationKit and is refused, never altered.
  package let version: Int64
  /// The table every file of this kind has (from version 1 on): tells it from another store's file.
  package let table: String
  /// The statements creating the schema at ``version``, the last one setting `PRAGMA user_version`.
  package let create: [String]
  /// The statements bringing a file at version N (the key) to N + 1, the last one setting
  /// `PRAGMA user_version`: a file written by an older version is upgraded when opened, in the
  /// same `BEGIN IMMEDIATE` transaction as a creation, so two processes never upgrade it twice.
  package let migrations: [Int64: [String]]

  package init(
    name: String, shortName: String, writeReason: String, version: Int64, table: String, create: [String],
    migrations: [Int64: [String]] = [:]
  ) {
    self.migrations = migrations
    self.name = name
    self.shortName = shortName
    self.writeReason = writeReason
    self.version = version
    self.table = table
    self.create = create
  }
}

/// A store file that cannot be opened or used; the message names the file, what was wrong and what
/// was expected. Each store turns it into its own public error type.
package struct SQLiteStoreError: Error {
  package let message: String
  /// Whether the storage failed (see ``SQLiteFailure/isStorageFailure``), so trying again may
  /// work; false when the path or the file's content is wrong for this store and will stay so.
  package let isStorageFailure: Bool

  package init(_ message: String, isStorageFailure: Bool = false) {
    self.message = message
    self.isStorageFailure = isStorageFailure
  }
}

extension SQLiteStoreKind {
  /// Opens, checks and configures the store at `path` (or `:memory:`), creating the file and its
  /// schema if needed.
  package func open(path: String, createIfMissing: Bool, busyTimeoutMilliseconds: Int32)
    throws(SQLiteStoreError)
    -> SQLiteConnection
  {
    let inMemory = path == ":memory:"
    if !inMemory { try checkPath(path, createIfMissing: createIfMissing) }
    var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX
    if createIfMissing { flags |= SQLITE_OPEN_CREATE }
    let connection: SQLiteConnection
    do {
      connection = try SQLiteConnection(path: path, flags: flags)
    } catch {
      throw SQLiteStoreError(
        "\(self.error(error, "open", path: path).message); expected a readable and writable \(name) "
          + "file in an existing directory", isStorageFailure: error.isStorageFailure)
    }
    connection.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
    try configure(
      connection, inMemory: inMemory, createIfMissing: createIfMissing,
      busyTimeout: .milliseconds(busyTimeoutMilliseconds))
    return connection
  }

  /// A SQLite failure as this store reports it: a file that is not a database said plainly;
  /// otherwise the operation, SQLite's message and code, and the file.
  package func error(_ failure: SQLiteFailure, _ operation: String, path: String) -> SQLiteStoreError {
    if failure.primaryCode == SQLITE_NOTADB {
      return SQLiteStoreError(
        "\(path) is not a SQLite database (\(operation): \(failure.message)); "
          + "expected a \(name), or a path where a new one can be created")
    }
    return SQLiteStoreError(
      "\(operation) failed on the \(name) at \(path): \(failure.message) (SQLite error \(failure.code))",
      isStorageFailure: failure.isStorageFailure)
  }

  /// What can be told from the file system alone, said plainly before SQLite is asked.
  private func checkPath(_ path: String, createIfMissing: Bool) throws(SQLiteStoreError) {
    guard !path.isEmpty else {
      throw SQLiteStoreError("the \(name) path is empty; expected a file path")
    }
    let files = FileManager.default
    var isDirectory: ObjCBool = false
    if files.fileExists(atPath: path, isDirectory: &isDirectory) {
      if isDirectory.boolValue {
        throw SQLiteStoreError(
          "\(path) is a directory; expected a \(name) file, or a path where one can be created")
      }
      if !files.isWritableFile(atPath: path) {
        throw SQLiteStoreError(
          "\(path) is not writable by this process; expected a \(name) it can write (\(writeReason))")
      }
      return
    }
    guard createIfMissing else {
      throw SQLiteStoreError("no \(shortName) at \(path); expected an existing \(name) file")
    }
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
    guard files.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
      throw SQLiteStoreError(
        "cannot create the \(name) at \(path): the directory \(directory) does not exist; "
          + "expected an existing directory")
    }
  }

  /// Write access, schema version, WAL, FULL sync, and the schema if it is new.
  private func configure(
    _ connection: SQLiteConnection, inMemory: Bool, createIfMissing: Bool, busyTimeout: Duration
  ) throws(SQLiteStoreError) {
    let path = connection.path
    @discardableResult
    func step<Result>(_ operation: String, _ body: () throws(SQLiteFailure) -> Result)
      throws(SQLiteStoreError) -> Result
    {
      do {
        return try body()
      } catch {
        throw self.error(error, operation, path: path)
      }
    }
    if connection.isReadOnly {
      throw SQLiteStoreError(
        "\(path) could only be opened read-only; expected a \(name) this process can write")
    }
    // Checked before anything is written: a file this code must refuse is left exactly as it was.
    // One read transaction for the version and the tables: read apart, another process creating
    // the schema in between would make a new store look like another application's database.
    try step("begin the file check") { () throws(SQLiteFailure) in try connection.execute("BEGIN") }
    let version: Int64
    do {
      version = try step("read the schema version") { () throws(SQLiteFailure) in
        try Self.schemaVersion(connection)
      }
      try checkSchema(connection, version: version)
      try step("end the file check") { () throws(SQLiteFailure) in try connection.execute("COMMIT") }
    } catch {
      _ = try? connection.execute("ROLLBACK")
      throw error
    }
    // An empty file (or database) is no store yet: only a caller that may create one makes it one.
    if version == 0 && !createIfMissing && !inMemory {
      throw SQLiteStoreError(
        "no \(shortName) at \(path) (the file is empty); expected an existing \(name) file")
    }
    if !inMemory {
      // Switching a new file to WAL needs it to itself for a moment, and SQLite answers "busy"
      // at once — without its busy handler — when another connection is doing the same: retry
      // within the busy timeout, as the handler would.
      let deadline = ContinuousClock.now + busyTimeout
      let mode = try step("switch to WAL mode") { () throws(SQLiteFailure) in
        while true {
          do throws(SQLiteFailure) {
            return try connection.execute("PRAGMA journal_mode = WAL").first ?? ""
          } catch {
            guard error.primaryCode == SQLITE_BUSY, ContinuousClock.now < deadline else { throw error }
            Thread.sleep(forTimeInterval: 0.005)
          }
        }
      }
      guard mode.lowercased() == "wal" else {
        throw SQLiteStoreError(
          "cannot use WAL mode for the \(name) at \(path) (journal mode stays '\(mode)'); "
            + "expected a local file system that supports WAL's shared memory")
      }
    }
    try step("set synchronous=FULL") { () throws(SQLiteFailure) in
      try connection.execute("PRAGMA synchronous = FULL")
    }
    // BEGIN IMMEDIATE takes the write lock first, so two processes creating the schema at once
    // do it one after the other, and the second finds it done.
    try step("begin the schema transaction") { () throws(SQLiteFailure) in
      try connection.execute("BEGIN IMMEDIATE")
    }
    do throws(SQLiteStoreError) {
      let version = try step("read the schema version") { () throws(SQLiteFailure) in
        try Self.schemaVersion(connection)
      }
      try checkSchema(connection, version: version)
      if version == 0 {
        try step("create the schema") { () throws(SQLiteFailure) in
          for statement in create { try connection.execute(statement) }
        }
      } else if version < self.version {
        for from in version..<self.version {
          guard let statements = migrations[from] else {
            throw SQLiteStoreError(
              "the \(name) at \(path) has schema version \(version), which this MediationKit cannot "
                + "upgrade; expected version \(self.version)")
          }
          try step("upgrade the schema from version \(from)") { () throws(SQLiteFailure) in
            for statement in statements { try connection.execute(statement) }
          }
        }
      }
      try step("commit the schema") { () throws(SQLiteFailure) in try connection.execute("COMMIT") }
    } catch {
      _ = try? connection.execute("ROLLBACK")
      throw error
    }
  }

  private static func schemaVersion(_ connection: SQLiteConnection) throws(SQLiteFailure) -> Int64 {
    try connection.prepare("PRAGMA user_version").query([]) { $0.integer(0) }.first ?? 0
  }

  /// Refuses a newer schema, a database with tables but no schema version, and another store's
  /// file (a schema version, but not this store's table).
  private func checkSchema(_ connection: SQLiteConnection, version: Int64) throws(SQLiteStoreError) {
    let path = connection.path
    let tables: [String]
    do {
      tables = try connection.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
      ).query([]) { $0.text(0) }
    } catch {
      throw self.error(error, "list the tables", path: path)
    }
    // Another store's file is named as such before its version is compared with this store's:
    // the stores' versions are unrelated.
    let missing =
      version == 0
      ? (tables.isEmpty ? nil : "no \(shortName) schema version")
      : (tables.contains(table) ? nil : "no '\(table)' table")
    if let missing {
      throw SQLiteStoreError(
        "\(path) is a SQLite database but not a \(name) (tables: \(tables.joined(separator: ", ")); "
          + "\(missing)); expected a \(name), or a path where a new one can be created")
    }
    if version > self.version {
      throw SQLiteStoreError(
        "the \(name) at \(path) has schema version \(version), newer than this MediationKit "
          + "reads; expected version \(self.version) or lower (use a newer MediationKit or another file)")
    }
  }
}
