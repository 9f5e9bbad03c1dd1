import Foundation
import MediationKit
import MediationKitRemoteConfig
import MediationKitTesting
import Testing

/// The last-known-good cache: written after a good fetch, used when the server is unreachable,
/// sent as `If-None-Match`, and never trusted when damaged.
@Suite("RemoteConfigSource: the last-known-good cache")
struct CacheTests {
  static let savedAt = Date(timeIntervalSince1970: 1_800_000_000)
  let directory: URL
  var cacheFile: URL { directory.appendingPathComponent("mediationkit-remote-config.json") }

  init() throws { directory = try temporaryDirectory() }

  /// Starts once against a server that answers `body` then `then`, and confirms the app ran on
  /// it, so the cache holds it as the last-known-good for the receiver's URL.
  func primeCache(
    ecpm: Double = 7, etag: String = "\"v1\"", then: [LoopbackHTTPReceiver.Response] = []
  ) async throws -> LoopbackHTTPReceiver {
    let receiver = try LoopbackHTTPReceiver(script: [ok(configJSON(ecpm: ecpm), etag: etag)] + then)
    let remote = try source(receiver, cache: directory)
    _ = await remote.start()
    #expect(await remote.confirmRunning() == nil)
    return receiver
  }

  /// A start with the server gone, on the URL `receiver` served.
  func offlineStart(_ receiver: LoopbackHTTPReceiver) async throws -> ActiveConfig {
    receiver.stop()
    return try await source(url: configURL(receiver), cache: directory).start()
  }

  @Test func theFirstRunFetchesAndWritesTheCache() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    #expect(!FileManager.default.fileExists(atPath: cacheFile.path))
    let receiver = try LoopbackHTTPReceiver(script: [ok(configJSON(ecpm: 7), etag: "\"v1\"")])
    let active = try await source(receiver, cache: directory).start()
    #expect(active.origin == .remote(etag: "\"v1\"", notModified: false))
    #expect(FileManager.default.fileExists(atPath: cacheFile.path))
    // No temporary file is left beside it (written to a temporary file, then renamed).
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.path) == [cacheFile.lastPathComponent])
  }

  @Test func anOfflineStartUsesTheCachedCopySayingWhy() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let receiver = try await primeCache()
    let active = try await offlineStart(receiver)
    #expect(active.origin == .cached(etag: "\"v1\"", savedAt: Self.savedAt))
    #expect(active.config == (try config(ecpm: 7)))
    #expect(active.skipped.map(\.source) == [.remote])
  }

  @Test func theCacheIsPreferredToTheBundledConfiguration() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let receiver = try await primeCache(ecpm: 9)
    let active = try await offlineStart(receiver)
    #expect(active.config == (try config(ecpm: 9)))
    #expect(active.config != (try bundled()).config)
  }

  @Test func aCachedCopyIsRevalidatedWithItsETagAnd304KeepsIt() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let receiver = try await primeCache(
      ecpm: 7, etag: "\"v1\"", then: [.answer(status: 304, headers: ["ETag": "\"v1\""])])
    let active = try await source(receiver, cache: directory).start()
    #expect(receiver.requests.last?.headers["if-none-match"] == "\"v1\"")
    #expect(active.origin == .remote(etag: "\"v1\"", notModified: true))
    #expect(active.config == (try config(ecpm: 7)))
  }

  @Test func a304WithoutACachedCopyFallsBack() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let receiver = try LoopbackHTTPReceiver(script: [.answer(status: 304)])
    let active = try await source(receiver, cache: directory).start()
    #expect(
      active.skipped == [
        SkippedConfig(source: .remote, reason: .notModifiedWithoutCache),
        SkippedConfig(source: .cached, reason: .noCache),
      ])
    #expect(active.origin == .bundled(name: "built-in"))
  }

  @Test(arguments: ["garbage", "flipped digit", "truncated file"])
  func aCorruptedCacheIsIgnoredRemovedAndReplaced(damage: String) async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let receiver = try await primeCache(
      ecpm: 7, then: [.status(500), ok(configJSON(ecpm: 6), etag: "\"v2\"")])
    let original = try Data(contentsOf: cacheFile)
    switch damage {
    case "garbage":
      try Data("\u{0}\u{1}not json".utf8).write(to: cacheFile)
    case "flipped digit":
      // Re-encode the envelope with one body digit changed (7 → 8): still valid JSON, and a
      // valid configuration, so only the checksum can tell.
      var envelope = try #require(try JSONSerialization.jsonObject(with: original) as? [String: Any])
      var entry = try #require(envelope["lastKnownGood"] as? [String: Any])
      let encoded = try #require(entry["body"] as? String)
      let body = try #require(Data(base64Encoded: encoded))
      let changed = String(decoding: body, as: UTF8.self).replacingOccurrences(of: "7.0", with: "8.0")
      #expect(changed.utf8.count == body.count)
      entry["body"] = Data(changed.utf8).base64EncodedString()
      envelope["lastKnownGood"] = entry
      try JSONSerialization.data(withJSONObject: envelope).write(to: cacheFile)
    default:
      try original.prefix(original.count / 2).write(to: cacheFile)
    }
    let active = try await source(receiver, cache: directory).start()  // HTTP 500
    #expect(active.origin == .bundled(name: "built-in"))  // never the damaged copy
    guard case .corruptCache(let reason)? = active.skipped.last?.reason else {
      Issue.record("expected a corrupt cache, got \(active.skipped)")
      return
    }
    if damage == "flipped digit" { #expect(reason.contains("checksum mismatch")) }
    #expect(!FileManager.default.fileExists(atPath: cacheFile.path))
    // The next good answer replaces it; the server is asked unconditionally.
    let up = try source(receiver, cache: directory)
    _ = await up.start()
    #expect(await up.confirmRunning() == nil)
    #expect(receiver.requests.last?.headers["if-none-match"] == nil)
    let offline = try await offlineStart(receiver)
    #expect(offline.origin == .cached(etag: "\"v2\"", savedAt: Self.savedAt))
    #expect(offline.config == (try config(ecpm: 6)))
  }

  @Test func aCachedCopyThatNoLongerValidatesIsNotUsed() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let receiver = try await primeCache()
    receiver.stop()
    // The app no longer registers "alpha": the cached configuration names an unknown network.
    let narrower = ConfigValidator(knownNetworks: ["beta"])
    let bundledBeta = try BundledConfigSource(
      data: Data(configJSON(ecpm: 1, network: "beta").utf8), validator: narrower)
    let offline = RemoteConfigSource(
      url: try #require(URL(string: configURL(receiver))), bundled: bundledBeta,
      cacheDirectory: directory, validator: narrower,
      policy: RemoteConfigPolicy(maxAttempts: 1),
      scheduler: VirtualScheduler())
    let active = await offline.start()
    #expect(active.origin == .bundled(name: "bundled"))
    #expect(issuePaths(active.skipped.last?.reason) == ["zones[0].lineItems[0].network"])
  }
}
