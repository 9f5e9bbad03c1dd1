import MediationKit
import MediationKitTesting
import Testing

@Suite("Adapter compatibility")
struct CompatibilityTests {
  static let core = AdapterCompatibility.coreAPIVersion

  /// A scripted adapter's registration with its versions replaced.
  static func registration(
    api: SemanticVersion, sdk: String = "5.3.0",
    supported: Range<SemanticVersion> = SemanticVersion(5, 2)..<SemanticVersion(6, 0)
  ) -> AdapterRegistry.Registration {
    var registration = ScriptedAdapter(id: "acme", scheduler: VirtualScheduler(), loads: [:]).registration
    registration.info = AdapterInfo(
      id: "acme", displayName: "Acme", adapterVersion: "2.4.0", sdkVersion: sdk, adapterAPIVersion: api,
      supportedSDKVersions: supported)
    return registration
  }

  /// Registers `registration` in a new registry and returns the error, checking the registry
  /// stayed empty.
  static func refusal(_ registration: AdapterRegistry.Registration) -> MediationError? {
    let registry = AdapterRegistry()
    let error = #expect(throws: MediationError.self) { try registry.register(registration) }
    #expect(registry.networkIDs.isEmpty)
    return error
  }

  @Test func anAdapterBuiltForANewerMinorIsRefusedNamingBothVersions() throws {
    let newer = SemanticVersion(Self.core.major, Self.core.minor + 1, 0)
    let error = try #require(Self.refusal(Self.registration(api: newer)))
    #expect(error.code == .incompatibleAdapter)
    #expect(
      error.message
        == "Acme adapter 2.4.0 (network 'acme') was built against MediationKit adapter API \(newer); "
        + "this MediationKit provides \(Self.core). Upgrade MediationKit to one providing adapter API "
        + "\(newer.major).\(newer.minor) or later (within major \(newer.major)), or use an adapter version "
        + "built for \(Self.core.major).\(Self.core.minor).")
  }

  @Test func anAdapterBuiltForANewerMajorIsRefused() throws {
    let newer = SemanticVersion(Self.core.major + 1, 0, 0)
    let error = try #require(Self.refusal(Self.registration(api: newer)))
    #expect(error.code == .incompatibleAdapter)
    #expect(error.message.contains("adapter API \(newer); this MediationKit provides \(Self.core)"))
    #expect(error.message.contains("Upgrade MediationKit"))
  }

  @Test func anAdapterBuiltForAnOlderMajorIsRefusedNamingBothVersions() throws {
    let older = SemanticVersion(Self.core.major - 1, 9, 2)
    let error = try #require(Self.refusal(Self.registration(api: older)))
    #expect(error.code == .incompatibleAdapter)
    #expect(
      error.message
        == "Acme adapter 2.4.0 (network 'acme') was built against MediationKit adapter API \(older); "
        + "this MediationKit provides \(Self.core). Upgrade the adapter to a version built for adapter API "
        + "\(Self.core.major).x.")
  }

  @Test func anOlderMinorAndAnyPatchOfTheSameMajorAreCompatible() throws {
    let core = SemanticVersion(3, 4, 1)
    for api in [
      SemanticVersion(3, 0, 0), SemanticVersion(3, 4, 0), SemanticVersion(3, 4, 9), SemanticVersion(3, 2, 7),
    ] {
      let info = Self.registration(api: api).info
      #expect(AdapterCompatibility.check(info, coreAPI: core) == .compatible, "\(api)")
    }
    #expect(
      AdapterCompatibility.check(Self.registration(api: SemanticVersion(3, 5)).info, coreAPI: core)
        == .adapterTooNew(adapter: SemanticVersion(3, 5), core: core))
    #expect(
      AdapterCompatibility.check(Self.registration(api: SemanticVersion(2, 9)).info, coreAPI: core)
        == .adapterTooOld(adapter: SemanticVersion(2, 9), core: core))
    let registry = AdapterRegistry()
    try registry.register(Self.registration(api: Self.core))
    #expect(registry.networkIDs == ["acme"])
  }

  @Test func anSDKBelowTheRangeAsksForAnSDKUpgrade() throws {
    let error = try #require(Self.refusal(Self.registration(api: Self.core, sdk: "5.1.9")))
    #expect(error.code == .incompatibleAdapter)
    #expect(
      error.message
        == "Acme adapter 2.4.0 (network 'acme') supports Acme SDK >= 5.2.0, < 6.0.0; the linked SDK is 5.1.9. "
        + "Upgrade the Acme SDK to 5.2.0 or later.")
  }

  @Test func anSDKAtOrAboveTheRangesEndAsksForAnAdapterUpgrade() throws {
    let error = try #require(Self.refusal(Self.registration(api: Self.core, sdk: "6.0.0-beta2")))
    #expect(
      error.message
        == "Acme adapter 2.4.0 (network 'acme') supports Acme SDK >= 5.2.0, < 6.0.0; the linked SDK is "
        + "6.0.0-beta2. Upgrade the adapter to a version that supports SDK 6.0.0.")
  }

  @Test func anSDKVersionThatIsNotSemanticIsRefusedNotTrapped() throws {
    let error = try #require(Self.refusal(Self.registration(api: Self.core, sdk: "five")))
    #expect(error.code == .incompatibleAdapter)
    #expect(error.message.contains("reports SDK version 'five', which is not MAJOR.MINOR.PATCH"))
  }

  @Test func theRangeEndsAreInclusiveThenExclusiveAndLabelsDoNotCount() {
    for (sdk, fits) in [
      ("5.2.0", true), ("5.2.0-rc1", true), ("5.9.99", true), ("5.1.99", false), ("6.0.0", false),
      ("6", false),
    ] {
      #expect(
        AdapterCompatibility.check(Self.registration(api: Self.core, sdk: sdk).info).isCompatible == fits,
        "\(sdk)")
    }
  }

  @Test func semanticVersionsParseStrictly() {
    #expect(SemanticVersion("13.3.1-sim") == SemanticVersion(13, 3, 1, label: "-sim"))
    #expect(SemanticVersion("2.0.0+build.7")?.description == "2.0.0+build.7")
    #expect(SemanticVersion("4.12") == SemanticVersion(4, 12, 0))
    #expect(SemanticVersion("7") == SemanticVersion(7, 0, 0))
    for bad in ["", "x", "1..2", "1.2.3.4", "-1.0", "1.2-", "1.a", " 1.2", "１.2"] {
      #expect(SemanticVersion(bad) == nil, "'\(bad)'")
    }
    #expect(SemanticVersion(1, 10) > SemanticVersion(1, 9, 9))
    #expect(SemanticVersion(1, 2, 3) < SemanticVersion(1, 2, 3, label: "-sim"))
  }
}
