import Foundation
import MediationKit
import MediationKitRemoteConfig
import MediationKitTesting
import Testing

/// Refreshes on a running app: a bad answer never replaces the configuration in use, max-age is
/// honoured on the scheduler's clock, and every change or rejection is published.
@Suite("RemoteConfigSource: refresh")
struct RefreshTests {
  @Test func badAnswersNeverReplaceTheGoodConfigurationThenAGoodOneDoes() async throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let body = Array(configJSON(ecpm: 8).utf8)
    let receiver = try LoopbackHTTPReceiver(script: [
      ok(configJSON(ecpm: 7), etag: "\"v1\""),
      .status(500),
      .answer(status: 200, body: Array(body.prefix(30)), declaredLength: body.count),
      ok(configJSON(ecpm: 7) + String(repeating: " ", count: 1_048_576)),
      ok("{\"zones\": 3}"),
      ok(configJSON(network: "gamma")),
      ok(configJSON(ecpm: 8), etag: "\"v2\""),
    ])
    let remote = try source(receiver, cache: directory)
    let first = await remote.start()
    #expect(first.origin == .remote(etag: "\"v1\"", notModified: false))
    var rejections: [ConfigFetchFailure] = []
    for _ in 0..<5 {
      let active = await remote.refresh(force: true)
      #expect(active == first)  // unchanged, every time
    }
    let recovered = await remote.refresh(force: true)
    #expect(recovered.origin == .remote(etag: "\"v2\"", notModified: false))
    #expect(recovered.config == (try config(ecpm: 8)))
    await remote.finish()
    var inUse: [ActiveConfig] = []
    for await event in remote.events {
      switch event {
      case .inUse(let active): inUse.append(active)
      case .rejected(let skipped, let keeping):
        #expect(keeping == first.origin)
        rejections.append(skipped.reason)
      }
    }
    #expect(inUse == [first, recovered])
    #expect(rejections.count == 5)
    #expect(
      rejections.prefix(4).map(\.description) == [
        "HTTP 500", "truncated body: 30 of \(body.count) bytes arrived",
        "body larger than the 1048576-byte limit",
        "not a valid configuration:\n\(remote.url.absoluteString): zones: expected an array, found a number",
      ])
    #expect(issuePaths(rejections.last) == ["zones[0].lineItems[0].network"])
    // The cache followed: once confirmed, it holds the recovered configuration.
    #expect(await remote.confirmRunning() == nil)
    receiver.stop()
    let offline = try await source(url: configURL(receiver), cache: directory).start()
    #expect(offline.config == (try config(ecpm: 8)))
  }

  @Test func maxAgeIsHonouredOnTheSchedulersClockThenRevalidatedWithTheETag() async throws {
    let receiver = try LoopbackHTTPReceiver(script: [
      ok(configJSON(ecpm: 7), etag: "\"v1\"", cacheControl: "public, max-age=60"),
      .answer(status: 304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60"]),
    ])
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let scheduler = VirtualScheduler()
    let remote = try source(receiver, cache: directory, scheduler: scheduler)
    let first = await remote.start()
    scheduler.advance(by: .seconds(59))
    #expect(await remote.refresh() == first)
    #expect(receiver.requests.count == 1)  // still fresh: not asked
    scheduler.advance(by: .seconds(1))
    #expect(await remote.refresh() == first)  // 304: the same configuration, no new event
    #expect(receiver.requests.count == 2)
    #expect(receiver.requests.last?.headers["if-none-match"] == "\"v1\"")
  }

  @Test func startRefreshingFetchesWhenMaxAgePassesAndPublishesTheNewConfiguration() async throws {
    let receiver = try LoopbackHTTPReceiver(script: [
      ok(configJSON(ecpm: 7), etag: "\"v1\"", cacheControl: "max-age=300"),
      ok(configJSON(ecpm: 9), etag: "\"v2\"", cacheControl: "max-age=300"),
    ])
    let scheduler = VirtualScheduler()
    let remote = try source(receiver, scheduler: scheduler)
    var events = remote.events.makeAsyncIterator()
    _ = await remote.start()
    #expect(await events.next() != nil)  // the start-up configuration
    await remote.startRefreshing()
    scheduler.advance(by: .seconds(299))
    #expect(receiver.requests.count == 1)
    scheduler.advance(by: .seconds(1))
    guard case .inUse(let active)? = await events.next() else {
      Issue.record("expected a new configuration")
      return
    }
    #expect(active.origin == .remote(etag: "\"v2\"", notModified: false))
    #expect(active.config == (try config(ecpm: 9)))
    await remote.finish()
  }

  @Test func bundledAndFileSourcesSayWhereTheyCameFrom() async throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("zones.json")
    try Data(configJSON(ecpm: 4).utf8).write(to: file)
    let fromFile = try await FileConfigSource(url: file, validator: validator).load()
    #expect(fromFile.origin == .file(path: file.path))
    #expect(fromFile.config == (try config(ecpm: 4)))
    try Data(configJSON(ecpm: -1).utf8).write(to: file)
    await #expect(throws: MediationConfig.LoadError.self) {
      try await FileConfigSource(url: file, validator: validator).load()
    }
    #expect(throws: MediationConfig.LoadError.self) {
      try BundledConfigSource(data: Data("{}".utf8), validator: validator)
    }
    #expect(await (try bundled()).load().origin == .bundled(name: "built-in"))
  }
}
