import Foundation
import MediationKit

/// A file a long run writes in pieces (the simulator's event log, shard by shard): the pieces go
/// to a temporary file as they come, so the whole never sits in memory, and when the run ends the
/// spool is written where it belongs through ``OutputFile`` (mapped, not read into memory), with
/// its rules for links, devices and atomic replacement.
final class SpooledOutput: Sendable {
  private struct State {
    var handle: FileHandle?
    var failure: String?
  }

  private let spool: String
  private let state: Locked<State>

  /// Creates the spool; exit 74 when the temporary directory takes no file.
  init() throws(CLIError) {
    let spool =
      NSTemporaryDirectory()
      + "mediate-spool-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)"
    guard FileManager.default.createFile(atPath: spool, contents: nil),
      let handle = FileHandle(forWritingAtPath: spool)
    else {
      throw CLIError(kind: .io, message: "\(spool): cannot create a temporary file for the output")
    }
    self.spool = spool
    state = Locked(State(handle: handle))
  }

  deinit { try? FileManager.default.removeItem(atPath: spool) }

  /// Appends `text`; a write that fails is remembered and reported by ``finish(to:what:)``.
  func append(_ text: String) {
    state.withLock { state in
      guard state.failure == nil, let handle = state.handle else { return }
      do {
        try handle.write(contentsOf: Data(text.utf8))
      } catch {
        state.failure = "\(error.localizedDescription)"
      }
    }
  }

  /// Writes everything appended to `path` (exit 74 when it cannot be written, or a piece could not).
  func finish(to path: String, what: String) throws(CLIError) {
    let failure = state.withLock { state -> String? in
      try? state.handle?.close()
      state.handle = nil
      return state.failure
    }
    if let failure { throw CLIError(kind: .io, message: "\(path): cannot write the \(what) (\(failure))") }
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: spool), options: .alwaysMapped)
    } catch {
      throw CLIError(kind: .io, message: "\(path): cannot write the \(what) (\(error.localizedDescription))")
    }
    try OutputFile.write(data, to: path, what: what)
  }
}
