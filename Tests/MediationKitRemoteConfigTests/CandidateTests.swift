import Foundation
import MediationKit
import MediationKitTesting
import Testing

@testable import MediationKitRemoteConfig

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A last-known-good that is known good: a fetched configuration is a candidate until the app ran
/// on it; one the previous run died with is tried at most once. And the cache file: checksummed
/// metadata, tied to its URL, never replacing what it did not write.
@Suite("RemoteConfigSource: candidates and the cache file")
struct CandidateTests {
  static let savedAt = Date(timeIntervalSince1970: 1_800_000_000)
  let directory: URL
  var cacheFile: URL { directory.appendingPathComponent("mediationkit-remote-config.json") }

  init() throws { directory = try temporaryDirectory() }

  /// A mediator over scripted `alpha` and `beta` whose `p1` loads fill after a second.
  func mediator(_ config: MediationConfig, scheduler: VirtualScheduler) throws -> Mediator {
    let registry = AdapterRegistry()
    for id in knownNetworks {
      try registry.register(
        ScriptedAdapter(
          id: id, scheduler: scheduler, loads: ["p1": Array(repeating: .fill(after: .seconds(1)), count: 4)]
        ).registration)
    }
    return try Mediator(config: config, registry: registry, scheduler: scheduler)
  }

  /// The cache file's envelope as JSON, edited by `edit` and written back.
  func editCacheFile(_ edit: (inout [String: Any]) throws -> Void) throws {
    var envelope = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: cacheFile)) as? [String: Any])
    try edit(&envelope)
    try JSONSerialization.data(withJSONObject: envelope).write(to: cacheFile)
  }

  @Test func aCandidateThatNeverRanIsSkippedAtTheNextStartAndRefusedFromTheServer() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let receiver = try LoopbackHTTPReceiver(script: [
      ok(configJSON(ecpm: 7), etag: "\"good\""),
      ok(configJSON(ecpm: 8), etag: "\"crashes\""),
      ok(configJSON(ecpm: 8), etag: "\"crashes\""),
      ok(configJSON(ecpm: 9), etag: "\"fixed\""),
    ])
    // Run 1 fetches v1 and runs on it: promoted.
    let run1 = try source(receiver, cache: directory)
    _ = await run1.start()
    #expect(await run1.confirmRunning() == nil)
    // Run 2 fetches the configuration that "crashes" the app: it is put in use, and the run dies
    // before any load completes (the source is dropped, nothing confirmed).
    do {
      let run2 = try source(receiver, cache: directory)
      let active = await run2.start()
      #expect(active.origin == .remote(etag: "\"crashes\"", notModified: false))
    }
    // Run 3 skips the candidate, refuses the same body from the server, and runs on v1.
    let run3 = try source(receiver, cache: directory)
    let active = await run3.start()
    #expect(active.origin == .cached(etag: "\"good\"", savedAt: Self.savedAt))
    #expect(active.config == (try config(ecpm: 7)))
    #expect(
      active.skipped == [
        SkippedConfig(
          source: .candidate, reason: .candidateNeverRan(etag: "\"crashes\"", savedAt: Self.savedAt)),
        SkippedConfig(source: .remote, reason: .neverRanBefore(etag: "\"crashes\"")),
      ])
    #expect(receiver.requests[2].headers["if-none-match"] == "\"good\"")
    await run3.finish()
    var rejections: [SkippedConfig] = []
    for await event in run3.events {
      if case .rejected(let skipped, _) = event { rejections.append(skipped) }
    }
    #expect(rejections.map(\.source) == [.candidate])
    // A different configuration from the server is tried again.
    let run4 = try source(receiver, cache: directory)
    let fixed = await run4.start()
    #expect(fixed.origin == .remote(etag: "\"fixed\"", notModified: false))
    #expect(fixed.skipped.isEmpty)
  }

  @Test func aCandidateWithoutALastKnownGoodFallsBackToTheBundledOne() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let receiver = try LoopbackHTTPReceiver(script: [ok(configJSON(ecpm: 8), etag: "\"crashes\"")])
    _ = await (try source(receiver, cache: directory)).start()  // dies on it
    receiver.stop()
    let active = try await source(url: configURL(receiver), cache: directory).start()
    #expect(active.origin == .bundled(name: "built-in"))
    #expect(active.skipped.first?.source == .candidate)
    #expect(active.skipped.last == SkippedConfig(source: .cached, reason: .noCache))
  }

  @Test func aKeptMediatorsFirstCompletedLoadPromotesTheCandidate() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let receiver = try LoopbackHTTPReceiver(script: [ok(configJSON(ecpm: 7), etag: "\"v1\"")])
    let scheduler = VirtualScheduler()
    let remote = try source(receiver, cache: directory, scheduler: scheduler)
    let mediator = try mediator(try config(ecpm: 1), scheduler: scheduler)
    _ = await remote.start()
    try await remote.keepApplied(to: mediator)
    scheduler.advance(by: .seconds(10))  // the adapters start
    // Applied but no load completed yet: still a candidate.
    receiver.stop()
    let before = LastKnownGoodCache(
      directory: directory, sourceURL: remote.url, maxBodyBytes: RemoteConfigPolicy().maxBodyBytes)
    #expect(try before.read().get().candidate != nil)
    let ad = try mediator.rewardedAd(zone: "level_end")
    let startLoad: () -> Void = { ad.load() }  // the callback form: the fill arrives on the clock
    startLoad()
    scheduler.advance(by: .seconds(2))  // the load fills: the mediator ran on it
    await remote.confirmationSettled()
    let state = try before.read().get()
    #expect(state.candidate == nil)
    #expect(state.lastKnownGood?.etag == "\"v1\"")
    // The next start, offline, uses it: it is the last-known-good now.
    let offline = try await source(url: configURL(receiver), cache: directory).start()
    #expect(offline.origin == .cached(etag: "\"v1\"", savedAt: Self.savedAt))
    #expect(offline.skipped.map(\.source) == [.remote])
  }

  @Test func aRefreshedCandidateTheRunDiesWithFallsBackToThePreviousLastKnownGood() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let receiver = try LoopbackHTTPReceiver(script: [
      ok(configJSON(ecpm: 7), etag: "\"v1\""), ok(configJSON(ecpm: 8), etag: "\"v2\""),
    ])
    do {
      let run = try source(receiver, cache: directory)
      _ = await run.start()
      #expect(await run.confirmRunning() == nil)
      let refreshed = await run.refresh(force: true)
      #expect(refreshed.origin == .remote(etag: "\"v2\"", notModified: false))
    }  // dies on v2
    receiver.stop()
    let active = try await source(url: configURL(receiver), cache: directory).start()
    #expect(active.origin == .cached(etag: "\"v1\"", savedAt: Self.savedAt))
    #expect(active.skipped.first?.reason == .candidateNeverRan(etag: "\"v2\"", savedAt: Self.savedAt))
  }

  @Test(arguments: ["etag", "savedAt", "url"])
  func anEditedMetadataFieldIsRefusedByTheChecksum(field: String) async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let receiver = try LoopbackHTTPReceiver(script: [ok(configJSON(ecpm: 7), etag: "\"v1\"")])
    let run = try source(receiver, cache: directory)
    _ = await run.start()
    #expect(await run.confirmRunning() == nil)
    try editCacheFile { envelope in
      switch field {
      case "url": envelope["url"] = "http://example.com/other.json"
      default:
        var entry = try #require(envelope["lastKnownGood"] as? [String: Any])
        entry[field] = field == "etag" ? "\"v9\"" : 4_000_000_000_000.0  // year 128724
        envelope["lastKnownGood"] = entry
      }
    }
    receiver.stop()
    let active = try await source(url: configURL(receiver), cache: directory).start()
    #expect(active.origin == .bundled(name: "built-in"))
    guard case .corruptCache(let reason)? = active.skipped.last?.reason else {
      Issue.record("expected a corrupt cache, got \(active.skipped)")
      return
    }
    #expect(reason.contains("checksum mismatch"))
  }

  @Test func aCacheFilledFromOneURLIsNotServedForAnother() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let receiver = try LoopbackHTTPReceiver(script: [ok(configJSON(ecpm: 7), etag: "\"v1\"")])
    let run = try source(receiver, cache: directory)
    _ = await run.start()
    #expect(await run.confirmRunning() == nil)
    receiver.stop()
    let other = try await source(url: "\(receiver.baseURL)/other.json", cache: directory).start()
    #expect(other.origin == .bundled(name: "built-in"))
    #expect(
      other.skipped.last == SkippedConfig(source: .cached, reason: .cacheForAnotherURL(configURL(receiver))))
    // Still there for its own URL.
    let same = try await source(url: configURL(receiver), cache: directory).start()
    #expect(same.origin == .cached(etag: "\"v1\"", savedAt: Self.savedAt))
  }

  @Test(arguments: ["directory", "symlink to a directory", "symlink to a file", "FIFO"])
  func somethingOtherThanARegularFileAtTheCachePathIsLeftAlone(kind: String) async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let elsewhere = directory.appendingPathComponent("elsewhere")
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
    let precious = elsewhere.appendingPathComponent("precious.txt")
    try Data("keep me".utf8).write(to: precious)
    switch kind {
    case "directory":
      try FileManager.default.createDirectory(at: cacheFile, withIntermediateDirectories: true)
      try Data("keep me".utf8).write(to: cacheFile.appendingPathComponent("inside.txt"))
    case "symlink to a directory":
      try FileManager.default.createSymbolicLink(at: cacheFile, withDestinationURL: elsewhere)
    case "symlink to a file":
      try FileManager.default.createSymbolicLink(at: cacheFile, withDestinationURL: precious)
    default:
      #expect(mkfifo(cacheFile.path, 0o600) == 0)
    }
    let receiver = try LoopbackHTTPReceiver(script: [ok(configJSON(ecpm: 7), etag: "\"v1\"")])
    let active = try await source(receiver, cache: directory).start()
    // The server's configuration runs; the cache says why it holds nothing.
    #expect(active.origin == .remote(etag: "\"v1\"", notModified: false))
    guard case .cacheUnusable(let reason)? = active.warnings.first else {
      Issue.record("expected an unusable cache, got \(active.warnings)")
      return
    }
    #expect(reason.contains("left alone"))
    // Nothing was deleted or replaced.
    #expect(try Data(contentsOf: precious) == Data("keep me".utf8))
    switch kind {
    case "directory":
      #expect(try Data(contentsOf: cacheFile.appendingPathComponent("inside.txt")) == Data("keep me".utf8))
    case "FIFO":
      var info = stat()
      #expect(lstat(cacheFile.path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    default:
      #expect(
        try FileManager.default.destinationOfSymbolicLink(atPath: cacheFile.path).hasSuffix("elsewhere")
          || FileManager.default.destinationOfSymbolicLink(atPath: cacheFile.path).hasSuffix("precious.txt"))
    }
  }

  @Test func aCacheThatCannotBeWrittenIsReportedNotDropped() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    // A cache directory under a regular file cannot be created, whoever runs the test (root too).
    let blocker = directory.appendingPathComponent("file")
    try Data("x".utf8).write(to: blocker)
    let receiver = try LoopbackHTTPReceiver(script: [ok(configJSON(ecpm: 7), etag: "\"v1\"")])
    let active = try await source(receiver, cache: blocker.appendingPathComponent("cache")).start()
    #expect(active.origin == .remote(etag: "\"v1\"", notModified: false))
    guard case .cacheWriteFailed(let reason)? = active.warnings.first else {
      Issue.record("expected a failed cache write, got \(active.warnings)")
      return
    }
    #expect(reason.contains("cannot write"))
  }

  @Test func staleTemporaryFilesOfOurOwnNamingAreRemovedAtStart() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    func file(_ name: String, age: TimeInterval) throws -> URL {
      let url = directory.appendingPathComponent(name)
      try Data(repeating: 0x41, count: 1_000).write(to: url)
      try FileManager.default.setAttributes(
        [.modificationDate: Self.savedAt.addingTimeInterval(-age)], ofItemAtPath: url.path)
      return url
    }
    let stale = try file(".mediationkit-remote-config.json.4242-1.tmp", age: 3_600)
    let inProgress = try file(".mediationkit-remote-config.json.4243-1.tmp", age: 10)
    let foreign = try file(".someone-else.json.4242-1.tmp", age: 3_600)
    let receiver = try LoopbackHTTPReceiver(script: [.status(500)])
    _ = await (try source(receiver, cache: directory)).start()
    #expect(!FileManager.default.fileExists(atPath: stale.path))
    #expect(FileManager.default.fileExists(atPath: inProgress.path))  // maybe another process's write
    #expect(FileManager.default.fileExists(atPath: foreign.path))
  }
}
