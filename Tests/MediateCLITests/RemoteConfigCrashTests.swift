import Foundation
import MediationKitTesting
import Testing

/// The candidate rule on the real `mediate` binary: a run killed on a newly fetched configuration
/// (before its cycle ended) makes the next run skip it, refuse it from the server and run on the
/// last-known-good; a run that completes its cycle promotes what it fetched.
@Suite("mediate --config-url: a configuration a run died on is tried once")
struct RemoteConfigCrashTests {
  typealias Child = LedgerCrashTests.Child

  /// The built-in configuration's text (`mediate config`), named `tag` (its top-level `version`)
  /// so two bodies differ.
  static func builtInConfig(named tag: String) throws -> String {
    let child = try Child(["config"])
    let text = child.finish()
    #expect(child.process.terminationStatus == 0)
    #expect(!text.contains("\"version\""))
    let open = try #require(text.firstIndex(of: "{"))
    return text.replacingCharacters(in: open...open, with: "{\n  \"version\": \"\(tag)\",")
  }

  static func ok(_ body: String, etag: String) -> LoopbackHTTPReceiver.Response {
    .answer(status: 200, headers: ["ETag": etag], body: Array(body.utf8))
  }

  @Test func aRunKilledOnANewConfigurationMakesTheNextRunSkipIt() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "remote-crash-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let good = try Self.builtInConfig(named: "good")
    let bad = try Self.builtInConfig(named: "crashes")
    #expect(good != bad)
    let receiver = try LoopbackHTTPReceiver(script: [
      Self.ok(good, etag: "\"good\""), Self.ok(bad, etag: "\"crashes\""), Self.ok(bad, etag: "\"crashes\""),
    ])
    let remote = [
      "--config-url", "\(receiver.baseURL)/zones.json", "--config-cache",
      directory.appendingPathComponent("cache").path,
    ]
    let cycle = LedgerCrashTests.cycle + ["--seed", "1"] + remote
    let ledger = directory.appendingPathComponent("rewards.sqlite").path

    // 1. A whole cycle on "good": promoted.
    let first = try Child(cycle)
    _ = first.finish()
    #expect(first.process.terminationStatus == 0)

    // 2. "crashes" is fetched, and the run is killed before its cycle ends.
    let doomed = try Child(cycle + ["--ledger", ledger, "--pause-before-ack"])
    _ = try #require(doomed.waitForStderr(containing: "before acknowledging"), "mediate ended before pausing")
    kill(doomed.process.processIdentifier, SIGKILL)
    _ = doomed.finish()
    #expect(doomed.process.terminationStatus == SIGKILL)

    // 3. The next run skips it, refuses it from the server, and runs on "good".
    let next = try Child(cycle)
    _ = next.finish()
    let errors = String(decoding: next.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      .split(separator: "\n").map(String.init)
    #expect(next.process.terminationStatus == 0, "\(errors)")
    #expect(errors.first?.hasPrefix(#"configuration: cached (ETag "good", saved "#) == true, "\(errors)")
    #expect(errors.contains { $0.hasPrefix(#"skipped candidate: the configuration fetched "#) }, "\(errors)")
    #expect(
      errors.contains { $0.hasPrefix(#"skipped remote: this configuration (ETag "crashes")"#) }, "\(errors)")
    #expect(receiver.requests.count == 3)
  }
}
