import Foundation
import MediationKit
import RewardLedgerSQLite

extension CommandContext {
  /// The `--ledger FILE` path, when the command was given one.
  var ledgerPath: String? { arguments.value(.ledger) }

  /// Opens the SQLite reward ledger at `path` for any command that takes `--ledger`.
  ///
  /// - Parameters:
  ///   - path: The `--ledger` value.
  ///   - createIfMissing: `true` for a command that records rewards (a new ledger is created);
  ///     `false` for one that only reads or acknowledges, which must not leave an empty ledger
  ///     behind a mistyped path.
  /// - Throws: exit 66 when there is no file at `path` (and it may not be created) or `path` is
  ///   a directory; exit 74 when the storage fails while opening (a lock another process holds
  ///   past the busy timeout, a full disk, an I/O error); exit 65 when the file is not a reward
  ///   ledger (not a SQLite database, another application's database, a newer schema version).
  func openLedger(path: String, createIfMissing: Bool) throws(CLIError) -> SQLiteRewardLedger {
    try Self.checkStoreFile(
      path, createIfMissing: createIfMissing, shortName: "ledger", name: "reward ledger")
    do {
      return try SQLiteRewardLedger(
        path: path, createIfMissing: createIfMissing,
        busyTimeoutMilliseconds: Self.ledgerBusyTimeoutMilliseconds,
        wallClockMilliseconds: MediatorOptions.systemWallClock)
    } catch {
      throw .ledgerOpen(error, path: path)
    }
  }

  /// How long opening a `--ledger` waits for a lock another process holds before the open is a
  /// storage failure (exit 74): the ledger's ``SQLiteRewardLedger/busyTimeoutMilliseconds``.
  /// Tests bind a short one.
  @TaskLocal static var ledgerBusyTimeoutMilliseconds = SQLiteRewardLedger.busyTimeoutMilliseconds
}

extension CommandContext {
  /// What the file system alone says about a SQLite store's `path` (a `--ledger`, a `--seen`):
  /// exit 66 for no file there when none may be created (`no ledger at PATH`), or a directory
  /// (`PATH is a directory; expected a reward ledger file`).
  static func checkStoreFile(_ path: String, createIfMissing: Bool, shortName: String, name: String)
    throws(CLIError)
  {
    var isDirectory: ObjCBool = false
    let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
    if !exists && !createIfMissing {
      throw CLIError(kind: .noInput, message: "no \(shortName) at \(path)")
    }
    if exists && isDirectory.boolValue {
      throw CLIError(kind: .noInput, message: "\(path) is a directory; expected a \(name) file")
    }
  }
}

extension CLIError {
  /// A ledger operation that failed after the ledger opened (a lock held too long, an I/O
  /// error): exit 74.
  static func ledger(_ error: LedgerError) -> CLIError {
    CLIError(kind: .io, message: error.message)
  }

  /// The ledger at `path` that could not be opened: exit 74 when the storage failed (a lock held
  /// past the busy timeout, an I/O error: trying again may work), naming the file and saying that
  /// nothing was read or recorded; 65 when the file is not a reward ledger.
  static func ledgerOpen(_ error: LedgerError, path: String) -> CLIError {
    guard error.isStorageFailure else { return .data(error.message) }
    return CLIError(
      kind: .io,
      message:
        "cannot open the reward ledger \(path) (\(error.message)); nothing was read or recorded: try "
        + "again once another process no longer holds its write lock, or once its storage works")
  }
}
