import Foundation
import MediateCLI
import MediationKit
import Testing

/// What `mediate replay` and `inspect` say about a file that is not a recording they can read
/// (exit 65, with the kind, the line and why), and the usage and I/O errors of `--fault` and
/// `--record`; what a recording the CLI writes leaves out (the user id).
@Suite("mediate replay and inspect: bad files and bad usage")
struct RecordingUsageTests {
  static func run(_ arguments: [String]) -> (code: Int32, out: [String], err: [String]) {
    RecordReplayCommandTests.run(arguments)
  }

  /// A good recording's lines, edited by `edit`, in a new file.
  static func file(from lines: [String], _ edit: (inout [String]) -> Void, newline: Bool = true) throws
    -> String
  {
    var lines = lines
    edit(&lines)
    let path = RecordReplayCommandTests.temporaryPath("bad")
    try (lines.joined(separator: "\n") + (newline ? "\n" : "")).write(
      toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test func aFileThatIsNotARecordingExits65SayingWhyAndWhere() throws {
    let good = try RecordReplayCommandTests.record()
    defer { try? FileManager.default.removeItem(atPath: good) }
    let lines = try String(contentsOfFile: good, encoding: .utf8).split(separator: "\n").map(String.init)
    let firstStep = try #require(lines.firstIndex { $0.hasPrefix("{\"step\"") })
    let cases: [(String, (inout [String]) -> Void, Bool, String)] = [
      ("corrupted", { $0[firstStep] = "{\"step\": not json" }, true, "line \(firstStep + 1): "),
      (
        "truncated", { $0[$0.count - 1] = String($0[$0.count - 1].prefix(10)) }, false,
        "line \(lines.count): "
      ),
      ("truncated", { $0.removeLast() }, true, "without its end record"),
      ("reordered", { $0.swapAt(firstStep, firstStep + 1) }, true, "line \(firstStep + 2): step "),
      (
        "future_version", { $0[0] = $0[0].replacingOccurrences(of: "\"version\":1", with: "\"version\":99") },
        true,
        "line 1: written in recording version 99"
      ),
      ("not_a_recording", { $0 = ["{\"zones\": []}"] }, true, "line 1: not a flight recording"),
      ("not_a_recording", { $0 = [] }, false, "the file is empty"),
    ]
    for (kind, edit, newline, detail) in cases {
      let path = try Self.file(from: lines, edit, newline: newline)
      defer { try? FileManager.default.removeItem(atPath: path) }
      for command in ["replay", "inspect"] {
        let result = Self.run([command, path])
        #expect(result.code == 65, "\(command) \(kind)")
        let message = try #require(result.err.first, "\(command) \(kind)")
        #expect(message.hasPrefix("Error: \(path): "), "\(message)")
        #expect(message.contains(detail), "\(kind): \(message)")
        #expect(message.hasSuffix("(\(kind))"), "\(message)")
        #expect(result.out.isEmpty)
      }
    }
  }

  @Test func aMissingFileExits66AndAMissingArgument64() {
    let missing = NSTemporaryDirectory() + "no-such-recording-\(UUID().uuidString).jsonl"
    for command in ["replay", "inspect"] {
      #expect(Self.run([command, missing]).code == 66)
      let bare = Self.run([command])
      #expect(bare.code == 64)
      #expect(bare.err.first == "Error: missing FILE, the flight recording to read")
      #expect(Self.run([command, missing, "extra"]).code == 64)
    }
  }

  @Test func anUnknownFaultExits64ListingTheTen() {
    let result = Self.run(["--zone", "level_complete", "--fault", "network-on-fire"])
    #expect(result.code == 64)
    #expect(
      result.err.first
        == "Error: invalid value 'network-on-fire' for --fault: expected one of "
        + RecordReplayCommandTests.faults.joined(separator: ", "))
    #expect(Self.run(["--fault", "load-fails", "--requests", "10"]).code == 64)
  }

  @Test func helpListsEveryFaultAndTheNewCommands() {
    let help = Self.run(["--help"]).out.joined(separator: "\n")
    for fault in RecordReplayCommandTests.faults { #expect(help.contains(fault), "\(fault)") }
    #expect(help.contains("--record FILE"))
    #expect(help.contains("  replay "))
    #expect(help.contains("  inspect "))
    #expect(Self.run(["replay", "--help"]).out.contains("USAGE: mediate replay FILE [--json]"))
    #expect(
      Self.run(["inspect", "--help"]).out.contains(
        "USAGE: mediate inspect FILE [--report FILE.html] [--json]"))
  }

  @Test func aRecordingThatCannotBeWrittenExits74NamingItBeforeTheRun() throws {
    let directory = NSTemporaryDirectory() + "mediate-record-dir-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    for path in [directory, directory + "/missing/rec.jsonl"] {
      for extra in [[], ["--requests", "10"]] {
        let result = Self.run(["--zone", "level_complete", "--record", path] + extra)
        #expect(result.code == 74)
        #expect(result.err.first?.hasPrefix("Error: \(path): cannot write the recording") == true)
        #expect(result.out.isEmpty, "nothing ran")
      }
    }
  }

  @Test func theRecordingHoldsNoUserID() throws {
    let user = "user-7f3a9c-secret"
    let path = try RecordReplayCommandTests.record(["--user-id", user, "--fault", "duplicate-callbacks"])
    defer { try? FileManager.default.removeItem(atPath: path) }
    let contents = try String(contentsOfFile: path, encoding: .utf8)
    #expect(!contents.isEmpty)
    #expect(!contents.contains(user))
    #expect(!contents.contains("7f3a9c"))
    #expect(try RecordReplayCommandTests.replay(path).code == 0)
  }
}
