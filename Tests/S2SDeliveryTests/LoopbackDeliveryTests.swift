import Foundation
import MediationKit
import MediationKitSimulation
import MediationKitTesting
import S2SDelivery
import Testing

@Suite("Server callback dispatcher over real HTTP on loopback")
struct LoopbackDeliveryTests {
  @Test func twoFailuresThenDeliveredOnTheThirdAttempt() async throws {
    let receiver = try LoopbackHTTPReceiver(script: [.status(500), .status(500)], fallback: .status(200))
    defer { receiver.stop() }
    let dispatcher = ServerCallbackDispatcher(client: URLSessionHTTPGetClient())
    let url = "\(receiver.baseURL)/max/reward?user_id=u%201&event=abc"
    dispatcher.send(ServerCallbackRequest(network: "max", url: url))
    #expect(await dispatcher.waitUntilIdle(timeout: .seconds(30)))
    let delivery = try #require(dispatcher.deliveries.first)
    #expect(delivery.outcome == .delivered(status: 200))
    #expect(delivery.attempts == [.response(status: 500), .response(status: 500), .response(status: 200)])
    #expect(receiver.requests.count == 3)
    for request in receiver.requests {
      #expect(request.method == "GET")
      #expect(request.target == "/max/reward?user_id=u%201&event=abc")
      #expect(request.headers["user-agent"] == "MediationKit-ServerCallback/1.0")
    }
  }

  @Test func aSilentServerTimesOutThreeTimesThenFails() async throws {
    let receiver = try LoopbackHTTPReceiver(script: [], fallback: .silent)
    defer { receiver.stop() }
    let policy = RetryPolicy(attemptTimeout: .milliseconds(300))
    let dispatcher = ServerCallbackDispatcher(client: URLSessionHTTPGetClient(), policy: policy)
    dispatcher.send(ServerCallbackRequest(network: "google", url: "\(receiver.baseURL)/ssv?x=1"))
    #expect(await dispatcher.waitUntilIdle(timeout: .seconds(30)))
    let delivery = try #require(dispatcher.deliveries.first)
    #expect(delivery.attempts == [.timedOut, .timedOut, .timedOut])
    #expect(delivery.outcome == .failed(.timedOut))
    #expect(receiver.waitForRequests(3, timeout: .seconds(10)))
    #expect(receiver.requests.map(\.target) == ["/ssv?x=1", "/ssv?x=1", "/ssv?x=1"])
  }

  @Test func aClosedPortFailsWithAConnectionError() async throws {
    let receiver = try LoopbackHTTPReceiver()
    let url = "\(receiver.baseURL)/gone"
    receiver.stop()
    let dispatcher = ServerCallbackDispatcher(client: URLSessionHTTPGetClient())
    dispatcher.send(ServerCallbackRequest(network: "max", url: url))
    #expect(await dispatcher.waitUntilIdle(timeout: .seconds(30)))
    let delivery = try #require(dispatcher.deliveries.first)
    #expect(delivery.attempts.count == 3)
    guard case .failed(.failed(let reason)) = delivery.outcome else {
      Issue.record("expected a connection failure, got \(delivery.outcome)")
      return
    }
    #expect(!reason.isEmpty)
  }
}
