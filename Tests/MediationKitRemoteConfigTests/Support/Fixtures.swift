import Foundation
import MediationKit
import MediationKitRemoteConfig
import MediationKitTesting
import Testing

/// The networks the test configurations may name.
let knownNetworks: [NetworkID] = ["alpha", "beta"]
let validator = ConfigValidator(knownNetworks: knownNetworks)

/// A one-zone configuration document whose line item pays `ecpm` on `network`.
func configJSON(ecpm: Double = 5, network: String = "alpha", zone: String = "level_end") -> String {
  """
  {"zones": [{"id": "\(zone)", "reward": {"type": "coins", "amount": 10},
    "loadTimeoutSeconds": 30, "adExpirySeconds": 3600, "rewardGraceSeconds": 5, "autoReload": false,
    "lineItems": [{"network": "\(network)", "placementId": "p1", "priority": 1, "ecpm": \(ecpm),
      "timeoutSeconds": 5}]}]}
  """
}

func config(ecpm: Double) throws -> MediationConfig {
  try validator.validate(Data(configJSON(ecpm: ecpm).utf8), source: "fixture")
}

/// A `200` carrying `body` with an `ETag` (and a `Cache-Control`, when given).
func ok(_ body: String, etag: String? = nil, cacheControl: String? = nil) -> LoopbackHTTPReceiver.Response {
  var headers = ["Content-Type": "application/json"]
  headers["ETag"] = etag
  headers["Cache-Control"] = cacheControl
  return .answer(status: 200, headers: headers, body: Array(body.utf8))
}

/// The app's bundled configuration in these tests: eCPM 1, so it is told apart from remote ones.
func bundled() throws -> BundledConfigSource {
  try BundledConfigSource(data: Data(configJSON(ecpm: 1).utf8), name: "built-in", validator: validator)
}

/// A fresh, empty directory, removed by the caller.
func temporaryDirectory() throws -> URL {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent("remotecfg-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  return url
}

/// A source fetching from `receiver` (or from a closed port when `nil`) with one attempt unless
/// told otherwise. The timeout is generous so a loaded machine never turns a good answer into a
/// time-out; the tests of a stalled server pass `stallTimeout`.
func source(
  _ receiver: LoopbackHTTPReceiver?, cache: URL? = nil, scheduler: VirtualScheduler = VirtualScheduler(),
  policy: RemoteConfigPolicy = RemoteConfigPolicy(requestTimeout: .seconds(10), maxAttempts: 1),
  wallClock: @escaping @Sendable () -> Date = { Date(timeIntervalSince1970: 1_800_000_000) }
) throws -> RemoteConfigSource {
  let base = receiver?.baseURL ?? "http://127.0.0.1:\(closedPort())"
  return try source(
    url: "\(base)/mediation.json", cache: cache, scheduler: scheduler, policy: policy, wallClock: wallClock)
}

/// A source fetching from `url` (a stopped receiver's, for an offline start that finds the cache
/// that URL filled).
func source(
  url: String, cache: URL? = nil, scheduler: VirtualScheduler = VirtualScheduler(),
  policy: RemoteConfigPolicy = RemoteConfigPolicy(requestTimeout: .seconds(10), maxAttempts: 1),
  wallClock: @escaping @Sendable () -> Date = { Date(timeIntervalSince1970: 1_800_000_000) }
) throws -> RemoteConfigSource {
  RemoteConfigSource(
    url: try #require(URL(string: url)), bundled: try bundled(), cacheDirectory: cache,
    validator: validator, policy: policy, scheduler: scheduler, wallClock: wallClock)
}

/// A port nothing listens on: a receiver's, after it stopped.
func closedPort() -> UInt16 {
  guard let receiver = try? LoopbackHTTPReceiver() else { return 9 }
  receiver.stop()
  return receiver.port
}

/// Runs `work` while driving `scheduler` (the backoff waits on it), and returns its result.
func driving<T: Sendable>(_ scheduler: VirtualScheduler, _ work: @escaping @Sendable () async -> T) async -> T
{
  let done = Locked(false)
  let driver = Task {
    while !done.withLock({ $0 }) {
      scheduler.run()  // jumps the clock to each due timer
      await Task.yield()
    }
  }
  let value = await work()
  done.withLock { $0 = true }
  await driver.value
  return value
}

/// The first issue paths of an invalid-configuration reason; empty for any other reason.
func issuePaths(_ reason: ConfigFetchFailure?) -> [String] {
  guard case .invalid(let error) = reason else { return [] }
  return error.issues.map(\.path)
}

/// The policy of the tests whose server stalls: the deadline ends them, so it is short.
let stallTimeout = RemoteConfigPolicy(requestTimeout: .milliseconds(300), maxAttempts: 1)

/// The URL a source built on `receiver` fetches.
func configURL(_ receiver: LoopbackHTTPReceiver) -> String { "\(receiver.baseURL)/mediation.json" }
