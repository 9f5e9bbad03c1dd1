import Foundation
import MediationKit
import MediationKitRemoteConfig
import MediationKitTesting
import Testing

/// A source keeps a running mediator on the configuration in use: each refresh that puts a new
/// one in use applies it first.
@Suite("RemoteConfigSource: keeping a mediator applied")
struct MediatorUpdateTests {
  /// A mediator over scripted `alpha` and `beta`, started on `config`.
  func mediator(_ config: MediationConfig, scheduler: VirtualScheduler) throws -> Mediator {
    let registry = AdapterRegistry()
    for id in knownNetworks {
      try registry.register(ScriptedAdapter(id: id, scheduler: scheduler, loads: [:]).registration)
    }
    return try Mediator(config: config, registry: registry, scheduler: scheduler)
  }

  @Test func theConfigurationInUseAndEachRefreshAreAppliedToTheMediator() async throws {
    let receiver = try LoopbackHTTPReceiver(script: [
      ok(configJSON(ecpm: 7), etag: "\"v1\""),
      ok(configJSON(ecpm: 9), etag: "\"v2\""),
    ])
    let scheduler = VirtualScheduler()
    let remote = try source(receiver, scheduler: scheduler)
    let mediator = try mediator(try config(ecpm: 1), scheduler: scheduler)
    let first = await remote.start()
    try await remote.keepApplied(to: mediator)
    #expect(mediator.config == first.config)  // the bundled one it was made with is replaced
    let second = await remote.refresh(force: true)
    #expect(mediator.config == (try config(ecpm: 9)))
    #expect(mediator.config == second.config)
  }
}
