import Dispatch
import MediationKit
import MediationKitTesting
import Testing

@Suite("AdapterRegistry")
struct RegistryTests {
  static func registration(_ id: NetworkID) -> AdapterRegistry.Registration {
    ScriptedAdapter(id: id, scheduler: VirtualScheduler(), loads: [:]).registration
  }

  @Test func registersListsAndLooksUp() throws {
    let registry = AdapterRegistry()
    try registry.register(Self.registration("max"))
    try registry.register(Self.registration("empower"))
    #expect(registry.networkIDs == ["empower", "max"])
    #expect(try registry.registration(for: "max").info.id == "max")
  }

  @Test func duplicateIDThrowsNamingTheInstalledAdapter() throws {
    let registry = try AdapterRegistry([Self.registration("max")])
    let error = #expect(throws: MediationError.self) { try registry.register(Self.registration("max")) }
    #expect(error?.code == .duplicateNetwork)
    #expect(error?.message == "network 'max' is already registered (Scripted max adapter 1.0.0)")
  }

  @Test func unknownIDListsTheRegisteredOnes() throws {
    let registry = try AdapterRegistry(["max", "google", "empower"].map { Self.registration(NetworkID($0)) })
    let error = #expect(throws: MediationError.self) { try registry.registration(for: "maxx") }
    #expect(error?.message == "unknown network 'maxx'; registered: empower, google, max")
  }

  @Test func subsetKeepsOnlyTheNamedNetworks() throws {
    let registry = try AdapterRegistry(["max", "google", "empower"].map { Self.registration(NetworkID($0)) })
    #expect(try registry.subset(["max", "google", "max"]).networkIDs == ["google", "max"])
    #expect(throws: MediationError.self) { try registry.subset(["nope"]) }
  }

  @Test func concurrentRegistrationKeepsEveryIDOnce() {
    let registry = AdapterRegistry()
    let registrations = (0..<200).map { Self.registration(NetworkID("n\($0 % 100)")) }
    DispatchQueue.concurrentPerform(iterations: registrations.count) { index in
      _ = try? registry.register(registrations[index])
    }
    #expect(registry.networkIDs.count == 100)
  }
}
