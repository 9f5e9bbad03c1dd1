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

  /// A change as "+id" (registered) or "-id" (unregistered).
  private static func describe(_ change: AdapterRegistry.Change) -> String {
    switch change {
    case .registered(let registration): "+\(registration.info.id)"
    case .unregistered(let id): "-\(id)"
    }
  }

  @Test func observersAreCalledInTheOrderTheySubscribedAndNotAfterCancelling() throws {
    let registry = AdapterRegistry()
    let seen = Locked<[String]>([])
    let first = registry.observe { change in seen.withLock { $0.append("1\(Self.describe(change))") } }
    let second = registry.observe { change in seen.withLock { $0.append("2\(Self.describe(change))") } }
    try registry.register(Self.registration("max"))
    first.cancel()
    try registry.unregister("max")
    #expect(seen.get() == ["1+max", "2+max", "2-max"])
    second.cancel()
  }

  @Test func aChangeAnObserverMakesIsDeliveredToEveryoneAfterTheOneItIsHandling() throws {
    let registry = AdapterRegistry()
    let seen = Locked<[String]>([])
    // The first observer registers and reads the registry from inside its callback: it runs
    // outside the lock (no deadlock), and its change waits until every observer has had "max".
    let first = registry.observe { change in
      seen.withLock { $0.append("1\(Self.describe(change))") }
      if case .registered(let registration) = change, registration.info.id == "max" {
        _ = registry.networkIDs
        try? registry.register(Self.registration("google"))
      }
    }
    let second = registry.observe { change in seen.withLock { $0.append("2\(Self.describe(change))") } }
    try registry.register(Self.registration("max"))
    #expect(seen.get() == ["1+max", "2+max", "1+google", "2+google"])
    #expect(registry.networkIDs == ["google", "max"])
    first.cancel()
    second.cancel()
  }

  @Test func everyObserverSeesConcurrentChangesInTheSameOrder() {
    let registry = AdapterRegistry()
    let seen = Locked<[[String]]>([[], []])
    let observations = (0..<2).map { index in
      registry.observe { change in seen.withLock { $0[index].append(Self.describe(change)) } }
    }
    DispatchQueue.concurrentPerform(iterations: 100) { index in
      _ = try? registry.register(Self.registration(NetworkID("n\(index)")))
    }
    let lists = seen.get()
    #expect(lists[0].count == 100)
    #expect(lists[0] == lists[1])
    observations.forEach { $0.cancel() }
  }
}
