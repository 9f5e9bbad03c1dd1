import Foundation
import Testing

/// The crash test, on the real `mediate` binary: a process killed with SIGKILL after a
/// reward is recorded and before it is acknowledged loses nothing; the next start delivers the
/// reward exactly once; once acknowledged, never again.
@Suite("Reward ledger: a killed process loses no reward and never grants one twice")
struct LedgerCrashTests {
  /// The `mediate` executable SwiftPM built next to this test binary.
  static func mediateExecutable() throws -> URL {
    let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    let candidate = testBinary.deletingLastPathComponent().appendingPathComponent("mediate")
    guard FileManager.default.isExecutableFile(atPath: candidate.path) else {
      throw CrashTestError("no mediate executable at \(candidate.path): build it with `swift build` first")
    }
    return candidate
  }

  struct CrashTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
  }

  /// A running `mediate` with pipes on all three streams.
  final class Child {
    let process = Process()
    let stdin = Pipe()
    let stdout = Pipe()
    let stderr = Pipe()

    init(_ arguments: [String]) throws {
      process.executableURL = try LedgerCrashTests.mediateExecutable()
      process.arguments = arguments
      process.standardInput = stdin
      process.standardOutput = stdout
      process.standardError = stderr
      try process.run()
    }

    /// Reads standard error until a line contains `marker`; `nil` if the process ends first.
    func waitForStderr(containing marker: String) -> String? {
      var text = ""
      while true {
        let chunk = stderr.fileHandleForReading.availableData
        if chunk.isEmpty { return nil }  // end of file: the process is gone
        text += String(decoding: chunk, as: UTF8.self)
        if let line = text.split(separator: "\n").first(where: { $0.contains(marker) }) {
          return String(line)
        }
      }
    }

    /// Waits for the process to end and returns its standard output.
    func finish() -> String {
      try? stdin.fileHandleForWriting.close()
      let output = stdout.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      return String(decoding: output, as: UTF8.self)
    }
  }

  /// The `rewarded` JSON lines in `output`: (transaction id, redelivery).
  static func rewards(in output: String) throws -> [(id: String, redelivery: Bool)] {
    try output.split(separator: "\n").compactMap { line in
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
      guard object["event"] as? String == "rewarded" else { return nil }
      let id = try #require(object["transaction_id"] as? String)
      return (id, object["redelivery"] as? Bool ?? false)
    }
  }

  static let cycle = ["--zone", "level_complete", "--networks", "empower", "--json"]

  @Test func aRewardRecordedBeforeAKillIsDeliveredExactlyOnceOnTheNextStart() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "ledger-crash-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let ledger = directory.appendingPathComponent("rewards.sqlite").path

    // 1. Killed after the reward is recorded (and printed), before it is acknowledged.
    let doomed = try Child(Self.cycle + ["--seed", "1", "--ledger", ledger, "--pause-before-ack"])
    let paused = try #require(
      doomed.waitForStderr(containing: "before acknowledging"), "mediate ended before pausing")
    kill(doomed.process.processIdentifier, SIGKILL)
    let firstOutput = doomed.finish()
    #expect(doomed.process.terminationReason == .uncaughtSignal)
    #expect(doomed.process.terminationStatus == SIGKILL)
    let earned = try Self.rewards(in: firstOutput)
    #expect(earned.count == 1)
    let id = try #require(earned.first?.id)
    #expect(paused.contains(id))

    // The ledger file holds it, pending.
    let listing = try Child(["rewards", "--ledger", ledger, "--json"])
    let pending = listing.finish()
    #expect(listing.process.terminationStatus == 0)
    #expect(pending.contains(id))

    // 2. The next start (the same seed: the same auction and show, but a new transaction id)
    //    delivers it once, marked, then acknowledges it and the new reward.
    let next = try Child(Self.cycle + ["--seed", "1", "--ledger", ledger])
    let secondRewards = try Self.rewards(in: next.finish())
    #expect(next.process.terminationStatus == 0)
    #expect(secondRewards.filter { $0.id == id }.map(\.redelivery) == [true])
    #expect(secondRewards.filter { $0.redelivery }.count == 1)
    #expect(secondRewards.filter { !$0.redelivery && $0.id != id }.count == 1)

    // 3. Acknowledged: never again.
    let third = try Child(Self.cycle + ["--seed", "1", "--ledger", ledger])
    let thirdRewards = try Self.rewards(in: third.finish())
    #expect(third.process.terminationStatus == 0)
    #expect(thirdRewards.allSatisfy { !$0.redelivery })
    #expect(!thirdRewards.contains { $0.id == id })
  }
}
