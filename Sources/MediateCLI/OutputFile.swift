import Foundation
import MediationKitRemoteConfig

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Every file the CLI writes (`--report FILE`, `optimize --out FILE`) goes through here, so a path
/// never replaces what it names by surprise:
/// - nothing there: a new regular file, written to a temporary file beside it and renamed into place;
/// - a regular file: replaced the same way (a reader sees the old content or the new), or, when it
///   has other hard links or its directory takes no new file, written through in place;
/// - a symbolic link to a regular file: the file it names is written (as above), the link stays;
/// - a directory, a FIFO, a device, a socket, or a link to one (or to nothing): refused, untouched,
///   exit 74 like every other file the CLI cannot write.
enum OutputFile {
  /// Why `path` cannot be written, checked before a long run so it fails at once.
  static func check(_ path: String, what: String) throws(CLIError) {
    _ = try target(path, what: what)
  }

  /// Writes `data` to what `path` names (see the type's rules).
  static func write(_ data: Data, to path: String, what: String) throws(CLIError) {
    let resolved = try target(path, what: what)
    var failure: SystemError?
    if let resolved, resolved.links > 1 {
      failure = attempt { () throws(SystemError) in try writeInPlace(data, to: resolved.path) }
    } else {
      let destination = resolved?.path ?? path
      failure = attempt { () throws(SystemError) in try replaceAtomically(destination, with: data) }
      if let refused = failure, resolved != nil, [EACCES, EROFS, EPERM].contains(refused.code) {
        // The directory takes no new file, but the file itself may be writable.
        failure = attempt { () throws(SystemError) in try writeInPlace(data, to: destination) }
      }
    }
    if let failure {
      throw CLIError(kind: .io, message: "\(path): cannot write the \(what) (\(failure.message))")
    }
  }

  private static func attempt(_ body: () throws(SystemError) -> Void) -> SystemError? {
    do throws(SystemError) {
      try body()
      return nil
    } catch {
      return error
    }
  }

  /// The regular file `path` names (through one or more symbolic links) with its hard-link count,
  /// or `nil` when nothing is there; throws for anything that is not a regular file.
  private static func target(_ path: String, what: String) throws(CLIError) -> (path: String, links: Int)? {
    var info = stat()
    guard lstat(path, &info) == 0 else {
      if errno == ENOENT { return nil }
      throw CLIError(
        kind: .io, message: "\(path): cannot write the \(what) (\(String(cString: strerror(errno))))")
    }
    var resolvedPath = path
    if info.st_mode & S_IFMT == S_IFLNK {
      guard let real = realpath(path, nil) else {
        throw CLIError(
          kind: .io,
          message: "\(path): cannot write the \(what): it is a symbolic link to nothing (or to a path that "
            + "cannot be followed); expected a regular file or a link to one")
      }
      resolvedPath = String(cString: real)
      free(real)
      guard stat(resolvedPath, &info) == 0 else {
        throw CLIError(
          kind: .io, message: "\(path): cannot write the \(what) (\(String(cString: strerror(errno))))")
      }
    }
    let kind = info.st_mode & S_IFMT
    guard kind == S_IFREG else {
      let through = resolvedPath == path ? "" : " (through the symbolic link, \(resolvedPath))"
      throw CLIError(
        kind: .io,
        message: "\(path): cannot write the \(what): it is \(describe(kind))\(through); "
          + "expected a regular file or a symbolic link to one, which is left alone")
    }
    return (resolvedPath, Int(info.st_nlink))
  }

  private static func describe(_ kind: mode_t) -> String {
    switch kind {
    case S_IFDIR: "a directory"
    case S_IFIFO: "a FIFO"
    case S_IFCHR: "a character device"
    case S_IFBLK: "a block device"
    case S_IFSOCK: "a socket"
    default: "not a regular file"
    }
  }

  struct SystemError: Error {
    var code: Int32
    var message: String
    /// `operation` failed with `code` (by default the current `errno`).
    init(_ operation: String, code: Int32 = errno) {
      self.code = code
      message = "\(operation): \(String(cString: strerror(code)))"
    }
    init(code: Int32, message: String) {
      self.code = code
      self.message = message
    }
  }

  /// Writes to a new temporary file in `path`'s directory and renames it over `path`.
  private static func replaceAtomically(_ path: String, with data: Data) throws(SystemError) {
    let directory = (path as NSString).deletingLastPathComponent
    let name = (path as NSString).lastPathComponent
    let temporary = (directory.isEmpty ? "." : directory) + "/.\(name).\(getpid()).tmp"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
    guard descriptor >= 0 else { throw SystemError("create a temporary file in \(directory)") }
    if let failure = attempt({ () throws(SystemError) in try writeAll(data, to: descriptor) }) {
      close(descriptor)
      unlink(temporary)
      throw failure
    }
    close(descriptor)
    guard rename(temporary, path) == 0 else {
      let error = SystemError("rename onto \(path)")
      unlink(temporary)
      throw error
    }
  }

  /// Truncates the regular file at `path` and writes `data` into it (its other names see it too).
  private static func writeInPlace(_ data: Data, to path: String) throws(SystemError) {
    // O_NONBLOCK: should the file have become a FIFO since it was checked, open does not wait.
    let descriptor = open(path, O_WRONLY | O_TRUNC | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { throw SystemError("open") }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      throw SystemError(code: EINVAL, message: "it is no longer a regular file")
    }
    try writeAll(data, to: descriptor)
  }

  private static func writeAll(_ data: Data, to descriptor: Int32) throws(SystemError) {
    do {
      try writeAllAndFlush(data, to: descriptor)
    } catch {
      throw SystemError(error.step == .write ? "write" : "flush", code: error.code)
    }
  }
}

extension OutputFile {
  /// The directory `path` would be written into, when it does not exist (or is not a directory).
  static func missingDirectory(of path: String) -> String? {
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
    var isDirectory: ObjCBool = false
    let exists = FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory)
    return exists && isDirectory.boolValue ? nil : directory
  }

  /// `--out FILE` of `command`: a usage error when its directory does not exist, else checked as
  /// ``check(_:what:)`` does, before a long run.
  static func checkOut(_ path: String, what: String, _ command: Command) throws(CLIError) {
    if let directory = missingDirectory(of: path) {
      throw .usage("--out \(path): no directory \(directory) to write the \(what) into", command)
    }
    try check(path, what: what)
  }
}
