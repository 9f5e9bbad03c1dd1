import Foundation
import MediationKit
import MediationKitTesting
import Testing

/// TC strings for the tests. The first two are published examples decoded by independent
/// implementations (the IAB's Java decoder and a Go library); the rest were encoded for these
/// tests (CMP 300, vendor list 150, publisher DE) with the purposes their names say.
enum TCStrings {
  /// CMP 2 v1, screen 0, EN, vendor list 128, policy 2, service-specific, purposes {1}, publisher AA.
  static let cmp2 = "CPhBZtcPhBZtcACABAENCACgAIAAAAAAAAAAH2QAYH0AfYB9kAGB9YH2AAAA.YAAAAAAAAAAA"
  /// CMP 92 v1, screen 2, EN, vendor list 32, policy 2, purposes 1–10, legitimate interests 2–10, FR.
  static let cmp92 =
    "COxR03kOxR1CqBcABCENAgCMAP_AAH_AAAqIF3EXySoGY2thI2YVFxBEIYwfJxyigMgChgQIsSwNQIeFLBoGLiAAHBGYJAQAGBAEEACBAQIkHGBMCQAAgAgBiRCMQEGMCzNIBIBAggEbY0FACCVmHkHSmZCY7064O__QLuIJEFQMAkSBAIACLECIQw"
  static let noPurposes = "CP1R2oAP1R2oAEsABBENCWEgAAAAAAAAAAYgAAAAAAAA"
  static let purposes12347 = "CP1R2oAP1R2oAEsABBENCWEgAPIAAAAAAAYgAAAAAAAA"
  static let purposes23 = "CP1R2oAP1R2oAEsABBENCWEgAGAAAAAAAAYgAAAAAAAA"
}

@Suite("TCF v2 TC strings")
struct TCFDecodingTests {
  @Test func decodesAPublishedStringsCoreFields() throws {
    let tcf = try TCFConsent(decoding: TCStrings.cmp2)
    #expect(tcf.version == 2)
    #expect(tcf.cmpID == 2 && tcf.cmpVersion == 1 && tcf.consentScreen == 0)
    #expect(tcf.consentLanguage == "EN" && tcf.vendorListVersion == 128 && tcf.policyVersion == 2)
    #expect(tcf.isServiceSpecific)
    #expect(tcf.created == 16_660_142_940 && tcf.lastUpdated == 16_660_142_940)
    #expect(tcf.purposeConsents == [1] && tcf.purposeLegitimateInterests.isEmpty)
    #expect(!tcf.purposeOneTreatment && tcf.publisherCountryCode == "AA")
    #expect(tcf.consents(toPurpose: 1) && !tcf.consents(toPurpose: 2))
  }

  @Test func decodesASecondPublishedString() throws {
    let tcf = try TCFConsent(decoding: TCStrings.cmp92)
    #expect(tcf.cmpID == 92 && tcf.consentScreen == 2 && tcf.vendorListVersion == 32)
    #expect(tcf.created == 15_859_142_116 && tcf.lastUpdated == 15_859_142_826)
    #expect(tcf.purposeConsents == Set(1...10))
    #expect(tcf.purposeLegitimateInterests == Set(2...10))
    #expect(tcf.publisherCountryCode == "FR" && !tcf.isServiceSpecific)
  }

  @Test func readsEachPurposeBitInItsPlace() throws {
    #expect(try TCFConsent(decoding: TCStrings.noPurposes).purposeConsents.isEmpty)
    #expect(try TCFConsent(decoding: TCStrings.purposes12347).purposeConsents == [1, 2, 3, 4, 7])
    #expect(try TCFConsent(decoding: TCStrings.purposes23).purposeConsents == [2, 3])
    #expect(try TCFConsent(decoding: TCStrings.purposes23).publisherCountryCode == "DE")
  }

  @Test(arguments: [
    ("", "the core segment is empty"),
    (".YAAA", "the core segment is empty"),
    ("CPhB Ztc", "not base64url"),
    ("CPhB+tc/", "not base64url"),
    ("CPhBZ", "not base64url"),
    ("BOEFEAyOEFEAyAHABDENAI4AAAB9vABAASA", "version 1, expected 2"),
    ("CPhBZtcPhBZtcACABAENCACgAIAA", "needs at least 213"),
  ])
  func malformedStringsSayWhatIsWrong(text: String, problem: String) {
    let error = #expect(throws: TCFDecodingError.self) { try TCFConsent(decoding: text) }
    #expect(error?.description.contains(problem) == true, "\(String(describing: error))")
  }
}

@Suite("IAB consent in the privacy settings")
struct IABConsentTests {
  @Test func purposeOneDecidesPersonalisationWhereGDPRApplies() {
    func consent(_ tc: String?, applies: Bool?, flag: Bool? = nil) -> Bool? {
      PrivacySettings(hasUserConsent: flag, iab: IABConsent(tcString: tc, gdprApplies: applies))
        .personalizedAdsConsent
    }
    #expect(consent(TCStrings.purposes23, applies: true) == false)
    #expect(consent(TCStrings.purposes12347, applies: true) == true)
    #expect(consent(TCStrings.purposes23, applies: nil) == false, "unknown scope: the CMP's string counts")
    #expect(
      consent(TCStrings.purposes23, applies: false) == nil, "GDPR does not apply: the string is ignored")
    #expect(consent(nil, applies: true) == nil)
    #expect(consent("garbage", applies: true) == nil, "an undecodable string tells nothing")
    #expect(consent(TCStrings.purposes12347, applies: true, flag: false) == false, "a refusal wins")
    #expect(consent(TCStrings.purposes23, applies: true, flag: true) == false, "a refusal wins")
    #expect(consent(nil, applies: nil, flag: true) == true)
  }

  @Test func theDecodedStringFollowsItsText() {
    var consent = IABConsent(tcString: TCStrings.purposes23, gdprApplies: true)
    #expect(consent.tcfPurposeOneConsent == false)
    consent.tcString = TCStrings.cmp2
    #expect(consent.tcf?.cmpID == 2 && consent.tcfPurposeOneConsent == true)
    consent.tcString = nil
    #expect(consent.tcf == nil && consent.isEmpty == false)
    consent.gdprApplies = nil
    #expect(consent.isEmpty)
  }

  @Test func privacySettingsRoundTripThroughJSONAndOldJSONStillDecodes() throws {
    let settings = PrivacySettings(
      hasUserConsent: true,
      iab: IABConsent(
        tcString: TCStrings.cmp2, gdprApplies: true, gppString: "DBABMA~" + TCStrings.cmp2,
        gppSectionIDs: [2],
        usPrivacyString: "1YNN"))
    let data = try JSONEncoder().encode(settings)
    #expect(try JSONDecoder().decode(PrivacySettings.self, from: data) == settings)
    let old = try JSONDecoder().decode(
      PrivacySettings.self, from: Data(#"{"hasUserConsent":false,"isChildDirected":true}"#.utf8))
    #expect(old == PrivacySettings(hasUserConsent: false, isChildDirected: true))
  }
}

@Suite("IABConsent.Reader")
struct IABConsentReaderTests {
  /// A `UserDefaults` suite of the test's own, emptied when the test ends.
  final class Suite {
    let name = "mediationkit.consent.\(UUID().uuidString)"
    let defaults: UserDefaults
    init() { defaults = UserDefaults(suiteName: name)! }
    deinit { defaults.removePersistentDomain(forName: name) }
  }

  static let gpp = "DBABMA~" + TCStrings.purposes23

  /// A value as a CMP might store it.
  enum Stored: Sendable { case text(String), number(Int) }

  static func write(_ values: [String: Any], to defaults: UserDefaults) {
    for (key, value) in values { defaults.set(value, forKey: key) }
  }

  @Test func readsTheStandardKeys() {
    let suite = Suite()
    Self.write(
      [
        "IABTCF_TCString": TCStrings.purposes23, "IABTCF_gdprApplies": 1, "IABGPP_HDR_GppString": Self.gpp,
        "IABGPP_GppSID": "2_7", "IABUSPrivacy_String": "1YNN",
      ], to: suite.defaults)
    let reading = IABConsent.Reader.read(from: suite.defaults)
    #expect(reading.issues.isEmpty, "\(reading.issues)")
    #expect(
      reading.consent
        == IABConsent(
          tcString: TCStrings.purposes23, gdprApplies: true, gppString: Self.gpp, gppSectionIDs: [2, 7],
          usPrivacyString: "1YNN"))
    #expect(reading.consent.tcfPurposeOneConsent == false)
  }

  @Test func acceptsTheValueShapesCMPsWrite() {
    let suite = Suite()
    Self.write(["IABTCF_gdprApplies": "0", "IABGPP_GppSID": 2], to: suite.defaults)
    let reading = IABConsent.Reader.read(from: suite.defaults)
    #expect(reading.issues.isEmpty)
    #expect(reading.consent.gdprApplies == false && reading.consent.gppSectionIDs == [2])
    #expect(IABConsent.Reader.read(from: Suite().defaults) == IABConsent.Reader.Reading())
  }

  @Test(arguments: [
    (
      "IABTCF_TCString", Stored.text("BOEFEAyOEFEAyAHABDENAI4AAAB9vABAASA"),
      "not a TCF v2 TC string: version 1"
    ),
    ("IABTCF_TCString", .number(42), "expected a string, found 42"),
    ("IABTCF_gdprApplies", .number(2), "expected 0 or 1, found 2"),
    ("IABTCF_gdprApplies", .text("yes"), "expected 0 or 1, found \"yes\""),
    ("IABGPP_HDR_GppString", .text("CP1R~x"), "header type 2, expected 3"),
    ("IABGPP_HDR_GppString", .text("DBABMA~<script>"), "not a GPP string"),
    ("IABGPP_GppSID", .text("2,7"), "expected section ids separated by '_'"),
    ("IABGPP_GppSID", .text("2__7"), "expected section ids separated by '_'"),
    ("IABUSPrivacy_String", .text("1YNX"), "expected version 1 and three of Y, N or -"),
    ("IABUSPrivacy_String", .text("2YNN"), "expected version 1 and three of Y, N or -"),
  ])
  func aMalformedValueIsADiagnosticNamingItsKey(key: String, value: Stored, problem: String) {
    let suite = Suite()
    Self.write(["IABUSPrivacy_String": "1NNN", "IABTCF_gdprApplies": 1], to: suite.defaults)
    switch value {
    case .text(let text): suite.defaults.set(text, forKey: key)
    case .number(let number): suite.defaults.set(number, forKey: key)
    }
    let reading = IABConsent.Reader.read(from: suite.defaults)
    #expect(reading.issues.count == 1)
    let issue = reading.issues.first
    #expect(issue?.kind == .malformedConsent)
    #expect(issue?.message.hasPrefix("\(key): ") == true, "\(String(describing: issue))")
    #expect(issue?.message.contains(problem) == true, "\(String(describing: issue))")
    #expect(issue?.message.hasSuffix("; left out") == true)
    // The malformed key is left out; the others are kept.
    if key != "IABUSPrivacy_String" { #expect(reading.consent.usPrivacyString == "1NNN") }
    if key != "IABTCF_gdprApplies" { #expect(reading.consent.gdprApplies == true) }
  }

  /// A value of any size under a consent key gives a diagnostic of bounded size that still
  /// says what was there.
  @Test func aDiagnosticQuotesAtMostAnExcerptOfTheValue() {
    let huge: [String: Any] = [
      "IABGPP_GppSID": Array(repeating: 7, count: 10_000),
      "IABTCF_gdprApplies": String(repeating: "A", count: 50_000),
      "IABUSPrivacy_String": Dictionary(uniqueKeysWithValues: (0..<5_000).map { ("key\($0)", $0) }),
    ]
    let reading = IABConsent.Reader.read { huge[$0] }
    #expect(reading.issues.count == 3)
    for issue in reading.issues {
      #expect(issue.kind == .malformedConsent)
      #expect(issue.message.count < 400, "\(issue.message.count) characters")
      #expect(issue.message.contains("… ("), "\(issue.message)")
      #expect(issue.message.hasSuffix("; left out"))
    }
    #expect(reading.issues.contains { $0.message.contains("(30000 characters) (Array<Int>)") })
    #expect(reading.issues.contains { $0.message.contains("(50000 characters)\"") })
  }

  @Test func followsChangesAnnouncedByNotification() {
    let suite = Suite()
    let center = NotificationCenter()
    let readings = Readings()
    suite.defaults.set("1YNN", forKey: "IABUSPrivacy_String")
    let reader = IABConsent.Reader(defaults: suite.defaults, notificationCenter: center) {
      readings.append($0)
    }
    #expect(readings.values.map(\.consent.usPrivacyString) == ["1YNN"])
    suite.defaults.set(TCStrings.noPurposes, forKey: "IABTCF_TCString")
    center.post(name: UserDefaults.didChangeNotification, object: suite.defaults)
    #expect(readings.values.count == 2)
    #expect(readings.values.last?.consent.tcString == TCStrings.noPurposes)
    center.post(name: UserDefaults.didChangeNotification, object: suite.defaults)
    reader.refresh()
    #expect(readings.values.count == 2, "an unchanged reading is not reported again")
    center.post(name: UserDefaults.didChangeNotification, object: Suite().defaults)
    suite.defaults.set("bad", forKey: "IABTCF_TCString")
    reader.refresh()
    #expect(readings.values.count == 3)
    #expect(reader.issues.map(\.kind) == [.malformedConsent])
    #expect(reader.current.consent.tcString == nil)
    reader.stop()
    suite.defaults.set("1NNN", forKey: "IABUSPrivacy_String")
    center.post(name: UserDefaults.didChangeNotification, object: suite.defaults)
    #expect(readings.values.count == 3, "no readings after stop")
  }
}

/// The readings a reader reported, in order.
final class Readings: Sendable {
  private let storage = Locked<[IABConsent.Reader.Reading]>([])
  func append(_ reading: IABConsent.Reader.Reading) { storage.withLock { $0.append(reading) } }
  var values: [IABConsent.Reader.Reading] { storage.withLock { $0 } }
}

@Suite("Privacy changes reach adapters at once")
struct PrivacyPropagationTests {
  static func harness() throws -> Harness {
    try Harness(
      zones: [zone([item("a", "a1", ecpm: 10), item("b", "b1", ecpm: 5)])],
      scripts: ["a": ["a1": [.fill(after: .seconds(1))]], "b": ["b1": [.fill(after: .seconds(1))]]])
  }

  @Test func settingPrivacyTellsEveryAdapterBeforeReturningAndOnlyOnChange() throws {
    let harness = try Self.harness()
    let restricted = PrivacySettings(
      hasUserConsent: true, iab: IABConsent(tcString: TCStrings.noPurposes, gdprApplies: true))
    harness.mediator.privacy = restricted
    for id in ["a", "b"] as [NetworkID] {
      #expect(harness.adapters[id]!.privacyChanges == [restricted], "\(id)")
      #expect(harness.adapters[id]!.consentInSDK == restricted.iab)
    }
    harness.mediator.privacy = restricted
    #expect(harness.adapters["a"]!.privacyChanges.count == 1, "an unchanged value is not sent again")
    harness.mediator.updatePrivacy { $0.doNotSell = true }
    #expect(harness.adapters["a"]!.privacyChanges.last?.doNotSell == true)
    #expect(harness.adapters["a"]!.privacyChanges.last?.iab == restricted.iab, "the other fields are kept")
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    #expect(harness.adapters["a"]!.loadRequests.last?.privacy == harness.mediator.privacy)
  }

  @Test func theReaderFeedsTheMediatorKeepingTheAppsBooleans() throws {
    let harness = try Self.harness()
    harness.mediator.privacy = PrivacySettings(hasUserConsent: true, doNotSell: false, isChildDirected: true)
    let suite = IABConsentReaderTests.Suite()
    let center = NotificationCenter()
    suite.defaults.set(TCStrings.noPurposes, forKey: "IABTCF_TCString")
    suite.defaults.set(1, forKey: "IABTCF_gdprApplies")
    let reader = harness.mediator.followIABConsent(in: suite.defaults, notificationCenter: center)
    #expect(harness.mediator.privacy.iab.tcString == TCStrings.noPurposes)
    #expect(harness.mediator.privacy.hasUserConsent == true && harness.mediator.privacy.isChildDirected)
    #expect(harness.mediator.privacy.personalizedAdsConsent == false)
    #expect(harness.adapters["b"]!.consentInSDK.tcString == TCStrings.noPurposes)
    // The CMP records consent to every purpose: the adapters hear it at once, with no clock advance.
    suite.defaults.set(TCStrings.purposes12347, forKey: "IABTCF_TCString")
    center.post(name: UserDefaults.didChangeNotification, object: suite.defaults)
    #expect(harness.adapters["a"]!.consentInSDK.tcString == TCStrings.purposes12347)
    #expect(harness.adapters["a"]!.privacyChanges.last?.personalizedAdsConsent == true)
    #expect(reader.issues.isEmpty)
  }
}

/// An adapter that is the scripted network, except for what its conforming type changes.
protocol ScriptedWrapper: RewardedAdapter {
  var scripted: ScriptedAdapter { get }
}

extension ScriptedWrapper {
  var info: AdapterInfo { scripted.info }

  func start(
    _ request: AdapterStartRequest, completion: @escaping @Sendable (Result<Void, AdapterError>) -> Void
  ) {
    scripted.start(request, completion: completion)
  }

  func load(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void
  ) -> Cancellable {
    scripted.load(request, completion: completion)
  }
}

/// A network whose adapter hands the consent strings to its SDK only with the next load, not when
/// they change: what the conformance kit must catch.
final class ConsentOnLoadOnlyAdapter: ScriptedWrapper, ConsentReadBack {
  let scripted: ScriptedAdapter
  private let held = Locked(IABConsent())

  init(_ scripted: ScriptedAdapter) { self.scripted = scripted }

  var consentInSDK: IABConsent { held.withLock { $0 } }

  func load(
    _ request: AdapterLoadRequest,
    completion: @escaping @Sendable (Result<AdapterLoadedAd, AdapterError>) -> Void
  ) -> Cancellable {
    held.withLock { $0 = request.privacy.iab }
    return scripted.load(request, completion: completion)
  }
}

/// The scripted network without a way to read back what its SDK holds.
final class UnreadableConsentAdapter: ScriptedWrapper {
  let scripted: ScriptedAdapter

  init(_ scripted: ScriptedAdapter) { self.scripted = scripted }
}

@Suite("AdapterConformance checks consent forwarding")
struct ConsentConformanceTests {
  static func registration(_ wrap: @escaping @Sendable (ScriptedAdapter) -> any RewardedAdapter)
    -> AdapterRegistry.Registration
  {
    let info = ScriptedAdapter(id: "net", scheduler: VirtualScheduler(), loads: [:]).info
    return AdapterRegistry.Registration(info: info) { environment in
      let fills = Array(repeating: ScriptedAdapter.LoadScript.fill(after: .seconds(1)), count: 20)
      return wrap(
        ScriptedAdapter(id: "net", scheduler: environment.scheduler, loads: ["p": fills, "p-b": fills]))
    }
  }

  @Test func anAdapterThatForwardsAtOncePasses() {
    let report = AdapterConformance.check(Self.registration { $0 }, placementID: "p", seeds: 1...3)
    #expect(report.passed, "\(report)")
    #expect(report.scenarios.contains { $0.name == "consent forwarding" && $0.ran })
  }

  @Test func anAdapterThatWaitsForTheNextLoadIsCaught() {
    let report = AdapterConformance.check(
      Self.registration { ConsentOnLoadOnlyAdapter($0) }, placementID: "p", seeds: 1...3)
    let consent = report.violations.filter { $0.invariant == .consentForwarded }
    // Caught right after the change; after the load it holds the strings, as it should.
    #expect(consent.count == 1, "\(report)")
    #expect(consent.first?.detail.hasPrefix("right after the privacy change: the SDK holds") == true)
  }

  @Test func anAdapterWithoutReadBackIsReportedNotChecked() {
    let report = AdapterConformance.check(
      Self.registration { UnreadableConsentAdapter($0) }, placementID: "p", seeds: 1...3)
    #expect(report.passed)
    let consent = report.notRun.filter { $0.name == "consent forwarding" }
    #expect(consent.count == 1)
    #expect(
      consent.first?.note.hasPrefix("consent-forwarded: net's adapter does not adopt ConsentReadBack") == true
    )
    #expect(report.description.contains("consent forwarding: NOT RUN — consent-forwarded"))
  }
}
