import Foundation
import MediationKit
import MediationKitSimulation
import S2SDelivery
import Testing

@Suite("Server callback dispatcher, recording transport")
struct DispatcherTests {
  static let url = "https://rewards.example.com/max?user=u1&event=e1"

  /// Sends one callback and waits for its delivery.
  static func deliver(
    _ script: [HTTPGetOutcome], url: String = url, policy: RetryPolicy = .standard
  ) async -> (CallbackDelivery?, RecordingHTTPGetClient) {
    let client = RecordingHTTPGetClient(script: script)
    let dispatcher = ServerCallbackDispatcher(client: client, policy: policy)
    dispatcher.send(ServerCallbackRequest(network: "max", url: url))
    #expect(await dispatcher.waitUntilIdle(timeout: .seconds(10)))
    #expect(dispatcher.inFlightCount == 0)
    return (dispatcher.deliveries.last, client)
  }

  @Test func aTwoHundredOnTheFirstAttemptStopsThere() async throws {
    let (delivery, client) = await Self.deliver([])
    let result = try #require(delivery)
    #expect(result.outcome == .delivered(status: 200))
    #expect(result.attempts == [.response(status: 200)])
    #expect(result.finalStatus == 200)
    #expect(result.isDelivered)
    #expect(client.requests.map(\.url.absoluteString) == [Self.url])
    #expect(client.requests.map(\.timeout) == [.seconds(5)])
  }

  @Test func failuresAreRetriedUntilATwoHundred() async throws {
    let (delivery, client) = await Self.deliver([.response(status: 500), .timedOut])
    let result = try #require(delivery)
    #expect(result.outcome == .delivered(status: 200))
    #expect(result.attempts == [.response(status: 500), .timedOut, .response(status: 200)])
    #expect(client.requests.count == 3)
    #expect(Set(client.requests.map(\.url.absoluteString)) == [Self.url])
  }

  @Test func successStopsRetrying() async throws {
    let (delivery, client) = await Self.deliver([.failed("connection refused"), .response(status: 204)])
    #expect(try #require(delivery).outcome == .delivered(status: 204))
    #expect(client.requests.count == 2)
  }

  @Test func itGivesUpAfterThreeAttempts() async throws {
    let (delivery, client) = await Self.deliver([
      .response(status: 500), .response(status: 502), .response(status: 503), .response(status: 200),
    ])
    let result = try #require(delivery)
    #expect(result.outcome == .failed(.response(status: 503)))
    #expect(result.attempts.count == 3)
    #expect(!result.isDelivered)
    #expect(client.requests.count == 3)
    #expect(result.description.contains("not delivered (HTTP 503) after 3 attempts"))
  }

  @Test(arguments: ["ftp://rewards.example.com/x", "not a url", "/relative/path?x=1", "https://"])
  func anInvalidURLIsNotSent(url: String) async throws {
    let (delivery, client) = await Self.deliver([], url: url)
    #expect(try #require(delivery).outcome == .invalidURL)
    #expect(try #require(delivery).attempts.isEmpty)
    #expect(client.requests.isEmpty)
  }

  @Test func observersSeeEveryDeliveryAndCanStop() async {
    let dispatcher = ServerCallbackDispatcher(client: RecordingHTTPGetClient())
    let seen = Locked<[String]>([])
    let observation = dispatcher.observe { delivery in seen.withLock { $0.append(delivery.url) } }
    dispatcher.send(ServerCallbackRequest(network: "max", url: "https://a.example/1"))
    dispatcher.send(ServerCallbackRequest(network: "google", url: "https://a.example/2"))
    #expect(await dispatcher.waitUntilIdle(timeout: .seconds(10)))
    observation.cancel()
    dispatcher.send(ServerCallbackRequest(network: "max", url: "https://a.example/3"))
    #expect(await dispatcher.waitUntilIdle(timeout: .seconds(10)))
    #expect(seen.get() == ["https://a.example/1", "https://a.example/2"])
    #expect(dispatcher.finishedCount == 3)
    #expect(dispatcher.deliveries.map(\.network) == ["max", "google", "max"])
  }

  @Test func historyIsBounded() async {
    let dispatcher = ServerCallbackDispatcher(client: RecordingHTTPGetClient(), historyLimit: 2)
    for index in 1...5 {
      dispatcher.send(ServerCallbackRequest(network: "max", url: "https://a.example/\(index)"))
    }
    #expect(await dispatcher.waitUntilIdle(timeout: .seconds(10)))
    #expect(dispatcher.deliveries.map(\.url) == ["https://a.example/4", "https://a.example/5"])
    #expect(dispatcher.finishedCount == 5)
  }

  @Test func waitingWhileIdleReturnsAtOnce() async {
    let dispatcher = ServerCallbackDispatcher(client: RecordingHTTPGetClient())
    #expect(await dispatcher.waitUntilIdle(timeout: .zero))
    #expect(dispatcher.waitUntilIdleBlocking(timeout: .zero))
  }

  @Test func waitingGivesUpAtTheDeadlineWhileADeliveryHangs() async {
    let client = HeldHTTPGetClient()
    let dispatcher = ServerCallbackDispatcher(client: client)
    dispatcher.send(ServerCallbackRequest(network: "max", url: "https://a.example/held"))
    #expect(await dispatcher.waitUntilIdle(timeout: .milliseconds(50)) == false)
    #expect(dispatcher.waitUntilIdleBlocking(timeout: .milliseconds(50)) == false)
    #expect(dispatcher.inFlightCount == 1)
    client.release(.response(status: 200))
    #expect(dispatcher.waitUntilIdleBlocking(timeout: .seconds(10)))
    #expect(dispatcher.deliveries.map(\.outcome) == [.delivered(status: 200)])
  }

  @Test func aRetryDelayIsWaitedOut() async throws {
    let policy = RetryPolicy(attemptTimeout: .seconds(1), maxAttempts: 2, retryDelay: .milliseconds(20))
    let (delivery, client) = await Self.deliver([.timedOut], policy: policy)
    #expect(try #require(delivery).outcome == .delivered(status: 200))
    #expect(client.requests.map(\.timeout) == [.seconds(1), .seconds(1)])
  }
}

/// A transport whose GETs hang until the test releases them.
final class HeldHTTPGetClient: HTTPGetClient {
  private let held = Locked<[@Sendable (HTTPGetOutcome) -> Void]>([])

  func get(_ url: URL, timeout: Duration, completion: @escaping @Sendable (HTTPGetOutcome) -> Void) {
    held.withLock { $0.append(completion) }
  }

  func release(_ outcome: HTTPGetOutcome) {
    for completion in held.exchange([]) { completion(outcome) }
  }
}
