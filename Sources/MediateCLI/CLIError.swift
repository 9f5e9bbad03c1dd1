import Foundation

/// A failure the CLI reports without a stack trace: a message and its exit code.
struct CLIError: Error, Equatable {
  /// What the exit code means, following sysexits(3).
  enum Kind: Equatable {
    /// Bad usage: unknown option, missing value, unknown zone or network (exit 64).
    case usage(command: Command)
    /// Bad data: an invalid configuration (exit 65).
    case data
    /// An input file that does not exist or cannot be read (exit 66).
    case noInput
    /// A file that opened but could not be read or written (exit 74), e.g. a ledger another
    /// process kept locked.
    case io
  }

  var kind: Kind
  var message: String

  static func usage(_ message: String, _ command: Command = .run) -> CLIError {
    CLIError(kind: .usage(command: command), message: message)
  }

  static func data(_ message: String) -> CLIError { CLIError(kind: .data, message: message) }
  static func noInput(_ path: String) -> CLIError {
    let exists = FileManager.default.fileExists(atPath: path)
    return CLIError(kind: .noInput, message: "\(path): \(exists ? "cannot be read" : "no such file")")
  }

  var exitCode: Int32 {
    switch kind {
    case .usage: ExitCode.usage
    case .data: ExitCode.dataError
    case .noInput: ExitCode.noInput
    case .io: ExitCode.ioError
    }
  }
}

/// The exit codes `mediate` uses.
public enum ExitCode {
  public static let success: Int32 = 0
  /// A check that ran and said no (e.g. a failed contract check).
  public static let failure: Int32 = 1
  /// EX_USAGE.
  public static let usage: Int32 = 64
  /// EX_DATAERR.
  public static let dataError: Int32 = 65
  /// EX_NOINPUT.
  public static let noInput: Int32 = 66
  /// EX_IOERR.
  public static let ioError: Int32 = 74
}
