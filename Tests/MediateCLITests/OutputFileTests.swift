import Foundation
import MediationKit
import Testing

@testable import MediateCLI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Every file the CLI writes (`--report`, `optimize --out`) goes through `OutputFile`: it writes
/// through to the regular file a path names and refuses what is not one, leaving it alone.
@Suite("Files the CLI writes")
struct OutputFileTests {
  let directory: String

  init() throws {
    directory = NSTemporaryDirectory() + "mediate-out-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }

  func contents(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

  func kind(_ path: String) -> mode_t? {
    var info = stat()
    return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
  }

  @Test func aNewFileIsCreatedAndARegularFileReplacedLeavingNoTemporaryFile() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/report.html"
    try OutputFile.write(Data("one".utf8), to: path, what: "report")
    #expect(try contents(path) == "one")
    try OutputFile.write(Data("two".utf8), to: path, what: "report")
    #expect(try contents(path) == "two")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["report.html"])
  }

  @Test func aSymbolicLinkToARegularFileIsWrittenThroughAndStaysALink() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let target = directory + "/real.html"
    try Data("old".utf8).write(to: URL(fileURLWithPath: target))
    let link = directory + "/link.html"
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
    try OutputFile.write(Data("new".utf8), to: link, what: "report")
    #expect(kind(link) == S_IFLNK)
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
    #expect(try contents(target) == "new")
  }

  @Test func aFileWithAnotherHardLinkIsWrittenInPlace() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/a.json"
    let other = directory + "/b.json"
    try Data("old".utf8).write(to: URL(fileURLWithPath: path))
    #expect(link(path, other) == 0)
    try OutputFile.write(Data("new".utf8), to: path, what: "configuration")
    #expect(try contents(other) == "new")  // the same file, not a replaced name
  }

  @Test(arguments: ["directory", "FIFO", "device", "link to a device", "dangling link"])
  func whatIsNotARegularFileIsRefusedAndLeftAlone(kind name: String) throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var path = directory + "/target"
    var expected: String
    switch name {
    case "directory":
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
      expected = "it is a directory"
    case "FIFO":
      #expect(mkfifo(path, 0o600) == 0)
      expected = "it is a FIFO"
    case "device":
      path = "/dev/null"
      expected = "it is a character device"
    case "link to a device":
      try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/null")
      expected = "it is a character device (through the symbolic link, /dev/null)"
    default:
      try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: directory + "/nowhere")
      expected = "it is a symbolic link to nothing"
    }
    let before = kind(path)
    let error = try #require(throws: CLIError.self) {
      try OutputFile.write(Data("x".utf8), to: path, what: "report")
    }
    #expect(error.kind == .io)
    #expect(error.exitCode == 74)
    #expect(error.message.hasPrefix("\(path): cannot write the report: \(expected)"), "\(error.message)")
    #expect(kind(path) == before)
    #expect(!FileManager.default.fileExists(atPath: directory + "/nowhere"))
  }

  @Test func reportAndOutRefuseAFIFOBeforeRunning() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let fifo = directory + "/fifo"
    #expect(mkfifo(fifo, 0o600) == 0)
    let report = mediate(["--requests", "10", "--report", fifo])
    #expect(report.code == 74)
    #expect(report.err.first?.hasPrefix("Error: \(fifo): cannot write the report: it is a FIFO") == true)
    let optimize = mediate(["optimize", "--out", fifo])
    #expect(optimize.code == 74)
    #expect(
      optimize.err.first?.hasPrefix("Error: \(fifo): cannot write the configuration: it is a FIFO") == true)
    #expect(kind(fifo) == S_IFIFO)
  }

  @Test func aLedgerStorageFailureAtOpenExits74AndANonLedgerExits65() {
    #expect(
      CLIError.ledgerOpen(LedgerError("database is locked", isStorageFailure: true), path: "f").exitCode == 74
    )
    #expect(
      CLIError.ledgerOpen(LedgerError("not a reward ledger", isStorageFailure: false), path: "f").exitCode
        == 65)
  }
}
