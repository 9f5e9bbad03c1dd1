import Foundation
import MediationKit
import MediationKitRemoteConfig
import MediationKitTesting
import Testing

/// What each kind of server answer does at start-up: a good one is used, anything else falls back
/// to the bundled configuration with the reason, path by path for an invalid document.
@Suite("RemoteConfigSource: server answers")
struct RemoteFetchTests {
  @Test func a200WithAValidConfigurationIsUsedWithItsETag() async throws {
    let receiver = try LoopbackHTTPReceiver(script: [ok(configJSON(ecpm: 7), etag: "\"v1\"")])
    let active = try await source(receiver).start()
    #expect(active.origin == .remote(etag: "\"v1\"", notModified: false))
    #expect(active.config == (try config(ecpm: 7)))
    #expect(active.skipped.isEmpty)
    let request = try #require(receiver.requests.first)
    #expect(request.path == "/mediation.json")
    #expect(request.headers["if-none-match"] == nil)  // nothing cached: not conditional
  }

  @Test func a500FallsBackToBundledSayingWhy() async throws {
    let receiver = try LoopbackHTTPReceiver(script: [.status(500)])
    let active = try await source(receiver).start()
    #expect(active.origin == .bundled(name: "built-in"))
    #expect(active.config == (try config(ecpm: 1)))
    #expect(
      active.skipped == [
        SkippedConfig(source: .remote, reason: .httpStatus(500)),
        SkippedConfig(source: .cached, reason: .noCache),
      ])
  }

  @Test func transientFailuresAreRetriedWithBackoffOnTheSchedulersClock() async throws {
    let receiver = try LoopbackHTTPReceiver(script: [.status(503), .status(500), ok(configJSON(ecpm: 7))])
    let scheduler = VirtualScheduler()
    let policy = RemoteConfigPolicy(requestTimeout: .seconds(10), maxAttempts: 3, initialBackoff: .seconds(2))
    let remote = try source(receiver, scheduler: scheduler, policy: policy)
    let active = await driving(scheduler) { await remote.start() }
    #expect(active.origin == .remote(etag: nil, notModified: false))
    #expect(receiver.requests.count == 3)
    #expect(scheduler.now == .seconds(6))  // 2 s, then 4 s: virtual time, no real wait
  }

  @Test func aClientErrorIsNotRetried() async throws {
    let receiver = try LoopbackHTTPReceiver(script: [.status(404)])
    let policy = RemoteConfigPolicy(requestTimeout: .seconds(10), maxAttempts: 3)
    let active = try await source(receiver, policy: policy).start()
    #expect(active.skipped.first?.reason == .httpStatus(404))
    #expect(receiver.requests.count == 1)
  }

  @Test func aServerStalledPastTheTimeoutFallsBack() async throws {
    let receiver = try LoopbackHTTPReceiver(script: [.silent])
    let active = try await source(receiver, policy: stallTimeout).start()
    #expect(active.origin == .bundled(name: "built-in"))
    #expect(active.skipped.first?.reason == .timedOut(after: .milliseconds(300)))
    // The server never answers: only the deadline could have ended the request.
    #expect(receiver.requests.count == 1)
  }

  @Test func aTruncatedBodyIsRejected() async throws {
    let body = Array(configJSON().utf8)
    let receiver = try LoopbackHTTPReceiver(script: [
      .answer(status: 200, body: Array(body.prefix(40)), declaredLength: body.count)
    ])
    let active = try await source(receiver).start()
    #expect(active.origin == .bundled(name: "built-in"))
    #expect(active.skipped.first?.reason == .truncated(expected: body.count, received: 40))
  }

  @Test func aBodyOverTheSizeLimitIsRejected() async throws {
    // A valid document padded past 1 MB: the limit, not the content, rejects it.
    let padded = configJSON(ecpm: 7) + String(repeating: " ", count: 1_048_576)
    let receiver = try LoopbackHTTPReceiver(script: [ok(padded)])
    let active = try await source(receiver).start()
    #expect(active.skipped.first?.reason == .tooLarge(limit: 1_048_576))
    #expect(active.origin == .bundled(name: "built-in"))
  }

  @Test func malformedJSONIsRejectedAsNotValidJSON() async throws {
    let receiver = try LoopbackHTTPReceiver(script: [ok("{\"zones\": [")])
    let active = try await source(receiver).start()
    guard case .invalid(let error) = active.skipped.first?.reason else {
      Issue.record("expected an invalid configuration, got \(active.skipped)")
      return
    }
    #expect(error.issues.first?.message.hasPrefix("not valid JSON") == true)
    #expect(active.origin == .bundled(name: "built-in"))
  }

  @Test func wrongTypesAreRejectedWithThePath() async throws {
    let wrong = configJSON().replacingOccurrences(of: "\"ecpm\": 5.0", with: "\"ecpm\": \"high\"")
    #expect(wrong != configJSON())
    let receiver = try LoopbackHTTPReceiver(script: [ok(wrong)])
    let active = try await source(receiver).start()
    #expect(issuePaths(active.skipped.first?.reason) == ["zones[0].lineItems[0].ecpm"])
    #expect(active.origin == .bundled(name: "built-in"))
  }

  @Test func aValidationErrorIsRejectedWithThePathAndTheURL() async throws {
    let receiver = try LoopbackHTTPReceiver(script: [ok(configJSON(ecpm: -3))])
    let remote = try source(receiver)
    let active = await remote.start()
    guard case .invalid(let error) = active.skipped.first?.reason else {
      Issue.record("expected an invalid configuration, got \(active.skipped)")
      return
    }
    #expect(error.source == remote.url.absoluteString)
    #expect(error.issues.map(\.path) == ["zones[0].lineItems[0].ecpm"])
    #expect(error.issues.first?.message.contains("-3") == true)
  }

  @Test func anUnknownNetworkIsRejectedWithThePath() async throws {
    let receiver = try LoopbackHTTPReceiver(script: [ok(configJSON(network: "gamma"))])
    let active = try await source(receiver).start()
    #expect(issuePaths(active.skipped.first?.reason) == ["zones[0].lineItems[0].network"])
    #expect(active.origin == .bundled(name: "built-in"))
  }

  @Test func anUnreachableServerIsATransportFailure() async throws {
    let active = try await source(nil).start()
    guard case .transport = active.skipped.first?.reason else {
      Issue.record("expected a transport failure, got \(active.skipped)")
      return
    }
    #expect(active.origin == .bundled(name: "built-in"))
  }
}
