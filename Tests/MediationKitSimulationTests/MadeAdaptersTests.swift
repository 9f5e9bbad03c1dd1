import MediationKit
import MediationKitSimulation
import MediationKitTesting
import Testing

@Suite("MadeAdapters: the adapters a mediator made, kept by whoever built its registry")
struct MadeAdaptersTests {
  static let zone = ZoneConfig(
    id: "z", reward: ZoneConfig.RewardConfig(type: "coins", amount: 1),
    lineItems: [
      ZoneConfig.LineItem(network: "a", placementId: "a1", priority: 0, ecpm: 2),
      ZoneConfig.LineItem(network: "b", placementId: "b1", priority: 1, ecpm: 1),
    ], autoReload: false)

  @Test func keepsTheInstanceEachRegistrationMadeByNetwork() throws {
    let scheduler = VirtualScheduler()
    let a = ScriptedAdapter(id: "a", scheduler: scheduler, loads: [:])
    let b = ScriptedAdapter(id: "b", scheduler: scheduler, loads: [:])
    let made = MadeAdapters()
    let registry = made.recording(try AdapterRegistry([a.registration, b.registration]))
    #expect(made["a"] == nil)
    #expect(registry.networkIDs == ["a", "b"])
    _ = try Mediator(config: MediationConfig(zones: [Self.zone]), registry: registry, scheduler: scheduler)
    #expect(made["a"] === a)
    #expect(made["b"] === b)
    #expect(made["c"] == nil)
  }

  @Test func theMediatorUsesTheRecordedAdapter() throws {
    let scheduler = VirtualScheduler()
    let a = ScriptedAdapter(id: "a", scheduler: scheduler, loads: ["a1": [.fill(after: .milliseconds(100))]])
    let made = MadeAdapters()
    let mediator = try Mediator(
      config: MediationConfig(zones: [Self.zone]),
      registry: made.recording(try AdapterRegistry([a.registration])),
      scheduler: scheduler)
    try mediator.rewardedAd(zone: "z").load()
    scheduler.run(until: .seconds(5))
    let recorded = try #require(made["a"] as? ScriptedAdapter)
    #expect(recorded.loadRequests.map(\.placementID) == ["a1"])
  }

  /// Recording changes nothing the adapters see: each gets the random stream it would get
  /// from the registry itself, so seeded simulations give the same figures.
  @Test func adaptersGetTheEnvironmentTheyWouldGetWithoutRecording() throws {
    func firstDraws(_ wrap: (AdapterRegistry) -> AdapterRegistry) throws -> [NetworkID: UInt64] {
      let draws = Locked<[NetworkID: UInt64]>([:])
      let scheduler = VirtualScheduler()
      let registrations = ["a", "b"].map { id in
        let adapter = ScriptedAdapter(id: NetworkID(id), scheduler: scheduler, loads: [:])
        return AdapterRegistry.Registration(info: adapter.info) { environment in
          var random = environment.random
          let draw = random.next()
          draws.withLock { $0[NetworkID(id)] = draw }
          return adapter
        }
      }
      _ = try Mediator(
        config: MediationConfig(zones: [Self.zone]), registry: wrap(try AdapterRegistry(registrations)),
        scheduler: scheduler, options: MediatorOptions(seed: 9))
      return draws.get()
    }
    let plain = try firstDraws { $0 }
    #expect(plain.count == 2)
    #expect(try firstDraws { MadeAdapters().recording($0) } == plain)
  }
}
