import Foundation
import MediateCLI
import MediationKit
import MediationKitTesting
import Testing

/// `mediate --config-url URL [--config-cache DIR]` against a loopback server: which configuration
/// is in use is said on stderr, a rejected remote one too, and the command still runs (exit 0).
@Suite("mediate --config-url")
struct RemoteConfigCommandTests {
  /// A one-zone configuration on max whose id is `zone`.
  static func configJSON(zone: String, ecpm: Double = 3, network: String = "max") -> String {
    #"{"zones": [{"id": "\#(zone)", "reward": {"type": "coins", "amount": 1}, "loadTimeoutSeconds": 30, "#
      + #""adExpirySeconds": 60, "rewardGraceSeconds": 1, "autoReload": false, "lineItems": [{"network": "#
      + #""\#(network)", "placementId": "a", "priority": 0, "ecpm": \#(ecpm), "timeoutSeconds": 5}]}]}"#
  }

  static func ok(_ body: String, etag: String) -> LoopbackHTTPReceiver.Response {
    .answer(status: 200, headers: ["ETag": etag], body: Array(body.utf8))
  }

  /// Runs `mediate` on a thread of its own: it blocks its thread while it fetches, which must not
  /// be a Swift concurrency thread the fetch itself needs.
  static func mediateOffPool(_ arguments: [String]) async -> (code: Int32, out: [String], err: [String]) {
    await withCheckedContinuation { continuation in
      Thread { continuation.resume(returning: mediate(arguments)) }.start()
    }
  }

  @Test func aGoodRemoteConfigurationIsUsedAndNamedWithItsETag() async throws {
    let receiver = try LoopbackHTTPReceiver(script: [
      Self.ok(Self.configJSON(zone: "from_server"), etag: "\"r7\"")
    ])
    let url = "\(receiver.baseURL)/zones.json"
    let result = await Self.mediateOffPool(["zones", "--config-url", url, "--json"])
    #expect(result.code == 0, "\(result.err)")
    #expect(result.err == [#"configuration: remote (ETag "r7")"#])
    let line = try #require(result.out.first)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    #expect((object["zones"] as? [[String: Any]])?.map { $0["id"] as? String } == ["from_server"])
    #expect(object["source"] as? String == #"\#(url), remote (ETag "r7")"#)
  }

  @Test func aRejectedRemoteConfigurationIsReportedAndTheBundledOneRuns() async throws {
    let receiver = try LoopbackHTTPReceiver(script: [
      Self.ok(Self.configJSON(zone: "bad", ecpm: -3), etag: "\"r8\"")
    ])
    let url = "\(receiver.baseURL)/zones.json"
    let result = await Self.mediateOffPool([
      "run", "--config-url", url, "--zone", "level_complete", "--seed", "7",
    ])
    #expect(result.code == 0, "\(result.err)")
    #expect(result.err.first == "configuration: bundled (built-in default)")
    #expect(
      result.err.dropFirst().first
        == "skipped remote: not a valid configuration:\n  \(url): zones[0].lineItems[0].ecpm: "
        + "must be a finite number ≥ 0 and ≤ 10000, found -3")
    #expect(result.err.last == "skipped cached: no cached copy")
    #expect(!result.out.isEmpty)  // it ran
  }

  @Test func anHTTPErrorFallsBackToTheCacheOfAnEarlierRun() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let receiver = try LoopbackHTTPReceiver(script: [
      Self.ok(Self.configJSON(zone: "cached_zone"), etag: "\"r1\""), .status(404),
      Self.ok(Self.configJSON(zone: "unknown", network: "nope"), etag: "\"r2\""),
    ])
    let arguments = [
      "zones", "--config-url", "\(receiver.baseURL)/zones.json", "--config-cache", directory.path,
    ]
    // A cycle run on the fetched configuration makes it the last-known-good.
    let first = await Self.mediateOffPool(["run"] + arguments.dropFirst())
    #expect(first.code == 0, "\(first.err)")
    #expect(first.err.first == #"configuration: remote (ETag "r1")"#)
    for rejected in ["skipped remote: HTTP 404", "skipped remote: not a valid configuration:"] {
      let later = await Self.mediateOffPool(arguments)
      #expect(later.code == 0, "\(later.err)")
      #expect(later.err.first?.hasPrefix(#"configuration: cached (ETag "r1", saved "#) == true)
      #expect(later.err.dropFirst().first?.hasPrefix(rejected) == true, "\(later.err)")
      #expect(later.out.contains { $0.hasPrefix("cached_zone — ") })
    }
    #expect(receiver.requests.last?.headers["if-none-match"] == "\"r1\"")
  }

  @Test func aCommandThatRunsNoCycleNeitherPromotesNorRefusesTheFetchedConfiguration() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let receiver = try LoopbackHTTPReceiver(script: [
      Self.ok(Self.configJSON(zone: "listed"), etag: "\"z1\""),
      Self.ok(Self.configJSON(zone: "listed"), etag: "\"z1\""),
    ])
    let arguments = [
      "zones", "--config-url", "\(receiver.baseURL)/zones.json", "--config-cache", directory.path,
    ]
    for _ in 0..<2 {  // the second run is not told the first "died" with it
      let result = await Self.mediateOffPool(arguments)
      #expect(result.code == 0, "\(result.err)")
      #expect(result.err == [#"configuration: remote (ETag "z1")"#])
    }
    receiver.stop()
    let offline = await Self.mediateOffPool(arguments)
    #expect(offline.err.first == "configuration: bundled (built-in default)")
    #expect(offline.err.last == "skipped cached: no cached copy")
  }

  @Test func aCacheThatCannotBeWrittenOrIsNotAFileIsAWarningOnStderrAndNothingIsDeleted() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    // The cache file's name taken by a directory with something in it.
    let taken = directory.appendingPathComponent("taken")
    let inside = taken.appendingPathComponent("mediationkit-remote-config.json/keep.txt")
    try FileManager.default.createDirectory(
      at: inside.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data("keep".utf8).write(to: inside)
    // A cache directory that cannot be created (under a regular file), whoever runs the test.
    let blocker = directory.appendingPathComponent("file")
    try Data("x".utf8).write(to: blocker)
    let receiver = try LoopbackHTTPReceiver(script: [
      Self.ok(Self.configJSON(zone: "z"), etag: "\"w1\""),
      Self.ok(Self.configJSON(zone: "z"), etag: "\"w1\""),
    ])
    for (cache, warning) in [
      (taken.path, "warning: cache not used: \(taken.path)/mediationkit-remote-config.json is a directory"),
      (blocker.appendingPathComponent("cache").path, "warning: cache not updated: cannot write "),
    ] {
      let result = await Self.mediateOffPool([
        "run", "--config-url", "\(receiver.baseURL)/zones.json", "--config-cache", cache,
      ])
      #expect(result.code == 0, "\(result.err)")
      #expect(result.err.first == #"configuration: remote (ETag "w1")"#)
      #expect(result.err.contains { $0.hasPrefix(warning) }, "\(result.err)")
    }
    #expect(try Data(contentsOf: inside) == Data("keep".utf8))
  }

  @Test func badValuesAreUsageErrorsAndABadBundledFileIsADataError() throws {
    for (arguments, message) in [
      (
        ["zones", "--config-url", "ftp://example.com/z.json"],
        "Error: invalid value 'ftp://example.com/z.json' for --config-url: expected an http:// or https:// URL"
      ),
      (["zones", "--config-cache", "/tmp"], "Error: --config-cache needs --config-url"),
      (
        ["zones", "--config-url", "http://127.0.0.1:9/z.json", "--config-cache", #filePath],
        "Error: invalid value '\(#filePath)' for --config-cache: expected a directory, found a file"
      ),
    ] {
      let result = mediate(arguments)
      #expect(result.code == 64, "\(arguments)")
      #expect(result.err.first == message)
    }
    let missing = mediate([
      "zones", "--config-url", "http://127.0.0.1:9/z.json", "--config", "/nonexistent.json",
    ])
    #expect(missing.code == 66)
    #expect(missing.err == ["Error: /nonexistent.json: no such file"])
  }
}
